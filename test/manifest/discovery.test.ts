import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DiagnosticCode,
  ManifestDiscovery,
  isSpawnable,
  type DiscoveryResult,
  type ManifestDiscoveryOptions,
} from '../../src/manifest/index.js';
import { tempDirs } from '../helpers/fixtures.js';
import { processExt, tree, under, type Entry } from './tree.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

const P = (dir: string) => `project/.zot/extensions/${dir}`;
const G = (dir: string) => `home/extensions/${dir}`;

/** A temp world with `<base>/project` as cwd and `<base>/home` as home. */
async function world(files: Record<string, Entry>, options: Partial<ManifestDiscoveryOptions> = {}) {
  const base = await dirs.make();
  await tree(base, files);
  await mkdir(path.join(base, 'project'), { recursive: true });
  const discovery = new ManifestDiscovery({
    cwd: path.join(base, 'project'),
    home: path.join(base, 'home'),
    ...options,
  });
  const result = await discovery.discover();
  return { base, discovery, result };
}

const names = (r: DiscoveryResult) => r.extensions.map((e) => e.name);
const codes = (r: DiscoveryResult) => r.diagnostics.map((d) => d.code);

describe('roots and order', () => {
  it('finds nothing and says nothing when no root exists', async () => {
    const { result } = await world({});
    expect(result).toEqual({ extensions: [], diagnostics: [] });
  });

  it('exposes the roots it scans', async () => {
    const { base, discovery } = await world({}, { appName: 'myagent' });
    expect(discovery.appName).toBe('myagent');
    expect(discovery.home).toBe(path.join(base, 'home'));
    expect(discovery.projectRoot).toBe(path.join(base, 'project', '.myagent', 'extensions'));
    expect(discovery.globalRoot).toBe(path.join(base, 'home', 'extensions'));
  });

  it('resolves home from the injected environment when none is given', () => {
    const discovery = new ManifestDiscovery({
      cwd: '/p',
      appName: 'myagent',
      env: { MYAGENT_HOME: '/custom/home' },
      platform: 'linux',
      homedir: '/home/u',
    });
    expect(discovery.home).toBe('/custom/home');
    expect(discovery.globalRoot).toBe('/custom/home/extensions');
    const fallback = new ManifestDiscovery({ cwd: '/p', env: {}, platform: 'linux', homedir: '/home/u' });
    expect(fallback.home).toBe('/home/u/.local/state/zot');
  });

  it('loads explicit paths (in the order given), then project, then global', async () => {
    const { base, result } = await world({
      ...under('work/zeta', processExt('zeta')),
      ...under('work/alpha', processExt('alpha')),
      ...under(P('p1'), processExt('p1')),
      ...under(G('g1'), processExt('g1')),
    }, { explicit: ['../work/zeta', '../work/alpha'] });
    expect(names(result)).toEqual(['zeta', 'alpha', 'p1', 'g1']);
    expect(result.extensions.map((e) => e.source)).toEqual(['explicit', 'explicit', 'project', 'global']);
    expect(result.extensions.map((e) => e.order)).toEqual([0, 1, 2, 3]);
    expect(result.extensions[0]).toMatchObject({
      dir: path.join(base, 'work/zeta'),
      manifestPath: path.join(base, 'work/zeta/extension.json'),
      kind: 'process',
      enabled: true,
      skills: [],
      themePath: undefined,
      shadowedBy: undefined,
    });
    expect(result.diagnostics).toEqual([]);
  });

  it('orders directories within a root by the bytes of their names', async () => {
    // Byte order: uppercase before lowercase, ASCII before Latin-1, BMP before astral (unlike UTF-16 order).
    const dirNames = ['z', '\u{1F600}', 'a', '\uFF5E', 'ä', 'B', '_', '0'];
    const files: Record<string, Entry> = {};
    for (const [i, d] of dirNames.entries()) Object.assign(files, under(G(d), processExt(`ext${i}`)));
    const { result } = await world(files);
    expect(result.extensions.map((e) => path.basename(e.dir))).toEqual([
      '0', 'B', '_', 'a', 'z', 'ä', '\uFF5E', '\u{1F600}',
    ]);
  });

  it('loads only explicit paths when discover is false', async () => {
    const { result } = await world(
      { ...under('work/x', processExt('x')), ...under(P('p'), processExt('p')), ...under(G('g'), processExt('g')) },
      { explicit: ['../work/x'], discover: false },
    );
    expect(names(result)).toEqual(['x']);
  });

  it('accepts an explicit path to the manifest file itself, whatever its name', async () => {
    const { base, result } = await world(
      {
        'work/x/dev.json': { name: 'x-dev', exec: './run.sh' },
        'work/x/run.sh': { mode: 0o755, content: '' },
      },
      { explicit: [path.join('..', 'work', 'x', 'dev.json')] },
    );
    expect(result.extensions[0]).toMatchObject({
      name: 'x-dev',
      dir: path.join(base, 'work/x'),
      manifestPath: path.join(base, 'work/x/dev.json'),
    });
    expect(result.diagnostics).toEqual([]);
  });

  it('ignores plain files and dot-entries in a root, silently', async () => {
    const { result } = await world({
      [G('README.md')]: '# my extensions',
      ...under(G('.install-tmp'), processExt('half-installed')),
      ...under(G('real'), processExt('real')),
    });
    expect(names(result)).toEqual(['real']);
    expect(result.diagnostics).toEqual([]);
  });

  it('keeps byte order in a root larger than the read concurrency', async () => {
    const files: Record<string, Entry> = {};
    const dirNames = Array.from({ length: 150 }, (_, i) => `x${(149 - i) * 7919 % 1000}`);
    for (const d of dirNames) Object.assign(files, under(G(d), processExt(d)));
    const { result } = await world(files);
    expect(result.extensions.map((e) => e.name)).toEqual([...new Set(dirNames)].sort());
  });

  it('reads the disk again on every discover()', async () => {
    const { base, discovery, result } = await world(under(G('a'), processExt('a')));
    expect(names(result)).toEqual(['a']);
    await tree(base, { ...under(G('b'), processExt('b')), [G('a/extension.json')]: { name: 'a', exec: 'node', enabled: false } });
    const again = await discovery.discover();
    expect(again.extensions.map((e) => [e.name, e.enabled, e.order])).toEqual([
      ['a', false, 0],
      ['b', true, 1],
    ]);
    expect(result.extensions[0]?.enabled).toBe(true);
  });

  it('scans a directory once when home is inside the project (same root twice)', async () => {
    const base = await dirs.make();
    await tree(base, under('project/.zot/extensions/a', processExt('a')));
    const discovery = new ManifestDiscovery({ cwd: path.join(base, 'project'), home: path.join(base, 'project/.zot') });
    const result = await discovery.discover();
    expect(result.extensions.map((e) => [e.name, e.source])).toEqual([['a', 'project']]);
    expect(result.diagnostics).toEqual([]);
  });
});

describe('manifest rules', () => {
  it('defaults enabled to true, lists disabled extensions, keeps unknown fields', async () => {
    const { result } = await world({
      ...under(G('a'), processExt('a', { custom: { keep: [1, 2] }, 'x-installed-from': 'git' })),
      ...under(G('b'), processExt('b', { enabled: false, args: ['--mode', 'daemon'], language: 'sh', description: 'd' })),
    });
    const [a, b] = result.extensions;
    expect(a?.enabled).toBe(true);
    expect(a?.manifest).toEqual({
      name: 'a',
      version: '1.0.0',
      exec: './run.sh',
      enabled: true,
      custom: { keep: [1, 2] },
      'x-installed-from': 'git',
    });
    expect(b).toMatchObject({ enabled: false, manifest: { args: ['--mode', 'daemon'], language: 'sh', description: 'd' } });
    expect(result.extensions.map(isSpawnable)).toEqual([true, false]);
    expect(result.diagnostics).toEqual([]);
  });

  it('treats null optional fields as absent', async () => {
    const { result } = await world(
      under(G('a'), processExt('a', { version: null, args: null, enabled: null, description: null })),
    );
    expect(result.extensions[0]?.manifest).toMatchObject({ name: 'a', enabled: true });
    expect(result.extensions[0]?.manifest.args).toBeUndefined();
  });

  it('reports a missing name and wrong-typed fields, naming each, and leaves the extension out', async () => {
    const { base, result } = await world({
      [G('noname/extension.json')]: { exec: './x' },
      [G('types/extension.json')]: { name: 'types', exec: 5, args: 'a b', enabled: 'yes', version: 1, skills: [3] },
      [G('array/extension.json')]: '[1, 2]',
    });
    expect(result.extensions).toEqual([]);
    expect(codes(result)).toEqual([
      DiagnosticCode.MANIFEST_INVALID,
      DiagnosticCode.MANIFEST_INVALID,
      DiagnosticCode.MANIFEST_INVALID,
    ]);
    const [array, noname, types] = result.diagnostics;
    expect(array?.message).toContain('must be a JSON object, got an array');
    expect(noname).toMatchObject({ path: path.join(base, G('noname/extension.json')), severity: 'error', extension: undefined });
    expect(noname?.message).toContain('"name" is required');
    expect(types?.extension).toBe('types');
    expect(types?.message).toContain('"exec" must be a string (path to the program), got number 5');
    expect(types?.message).toContain('"args" must be an array of strings, got the string "a b"');
    expect(types?.message).toContain('"enabled" must be true or false, got the string "yes"');
    expect(types?.message).toContain('"version" must be a string, got number 1');
    expect(types?.message).toContain('"skills"[0] must be a string, got number 3');
  });

  it('refuses an unsafe name with NAME_UNSAFE', async () => {
    const { result } = await world({
      [G('a/extension.json')]: { name: '../../etc/passwd', exec: './x' },
      [G('b/extension.json')]: { name: 'ok\u0007bell', exec: './x' },
    });
    expect(result.extensions).toEqual([]);
    expect(codes(result)).toEqual([DiagnosticCode.NAME_UNSAFE, DiagnosticCode.NAME_UNSAFE]);
    expect(result.diagnostics[0]?.message).toContain('path separator');
    expect(result.diagnostics[1]?.message).toContain('control character');
    expect(result.diagnostics.every((d) => d.extension === undefined)).toBe(true);
  });

  it('gives line and column for invalid JSON', async () => {
    const { base, result } = await world({
      [G('a/extension.json')]: '{\n  "name": "a",\n  "exec": "./run"\n  "args": []\n}\n',
      [G('b/extension.json')]: '{ "name": "b", "exec": "./x", }',
      [G('c/extension.json')]: '',
    });
    expect(result.extensions).toEqual([]);
    const [a, b, c] = result.diagnostics;
    expect(a).toMatchObject({
      code: DiagnosticCode.MANIFEST_INVALID_JSON,
      severity: 'error',
      line: 4,
      column: 3,
      path: path.join(base, G('a/extension.json')),
    });
    expect(a?.message).toBe(
      `${path.join(base, G('a/extension.json'))}:4:3: invalid JSON: expected "," or "}" after a property value but found "\\""`,
    );
    expect(b).toMatchObject({ line: 1, column: 31 });
    expect(b?.message).toContain('trailing comma');
    expect(c).toMatchObject({ line: 1, column: 1 });
    expect(c?.message).toContain('expected a value but found end of file');
  });

  it('accepts a manifest that starts with a byte order mark', async () => {
    const { result } = await world({
      [G('a/extension.json')]: `\uFEFF${JSON.stringify({ name: 'a', exec: 'node' })}`,
    });
    expect(names(result)).toEqual(['a']);
  });

  it('requires exec for a process extension', async () => {
    const { result } = await world({
      [G('a/extension.json')]: { name: 'a' },
      [G('b/extension.json')]: { name: 'b', skills: [] },
    });
    expect(result.extensions).toEqual([]);
    expect(result.diagnostics.map((d) => [d.code, d.extension])).toEqual([
      [DiagnosticCode.EXEC_MISSING, 'a'],
      [DiagnosticCode.EXEC_MISSING, 'b'],
    ]);
    expect(result.diagnostics[0]?.message).toContain('"exec" is required');
  });

  it('with checkExec, reports an exec path that does not exist or cannot run, and still lists the extension', async () => {
    const files: Record<string, Entry> = {
      [G('a/extension.json')]: { name: 'a', exec: './missing' },
      [G('b/extension.json')]: { name: 'b', exec: './run.sh' },
      [G('b/run.sh')]: { mode: 0o644, content: '#!/bin/sh\n' },
      [G('c/extension.json')]: { name: 'c', exec: './bin' },
      [G('c/bin/x')]: '',
      [G('d/extension.json')]: { name: 'd', exec: 'node', args: ['index.js'] },
    };
    const unchecked = await world(files);
    expect(unchecked.result.diagnostics).toEqual([]);
    const { base, result } = await world(files, { checkExec: true });
    expect(names(result)).toEqual(['a', 'b', 'c', 'd']);
    expect(result.diagnostics.map((d) => [d.code, d.severity, d.extension])).toEqual([
      [DiagnosticCode.EXEC_NOT_FOUND, 'warning', 'a'],
      [DiagnosticCode.EXEC_NOT_EXECUTABLE, 'warning', 'b'],
      [DiagnosticCode.EXEC_NOT_EXECUTABLE, 'warning', 'c'],
    ]);
    expect(result.diagnostics[0]?.path).toBe(path.join(base, G('a/missing')));
    expect(result.diagnostics[1]?.message).toContain(`chmod +x ${path.join(base, G('b/run.sh'))}`);
    expect(result.diagnostics[2]?.message).toContain('a directory');
  });
});

describe('kinds and themes', () => {
  it('recognises theme-only bundles (theme.json or themes/theme.json) without exec', async () => {
    const { base, result } = await world({
      [G('t1/extension.json')]: { name: 't1' },
      [G('t1/theme.json')]: { colors: {} },
      [G('t2/extension.json')]: { name: 't2' },
      [G('t2/themes/theme.json')]: { colors: {} },
      [G('t3/extension.json')]: { name: 't3' },
      [G('t3/themes/other.json')]: {},
    });
    expect(result.extensions.map((e) => [e.name, e.kind, e.themePath])).toEqual([
      ['t1', 'theme', path.join(base, G('t1/theme.json'))],
      ['t2', 'theme', path.join(base, G('t2/themes/theme.json'))],
    ]);
    expect(result.diagnostics.map((d) => [d.code, d.extension])).toEqual([[DiagnosticCode.EXEC_MISSING, 't3']]);
    expect(result.extensions.some(isSpawnable)).toBe(false);
  });

  it('keeps an extension with exec a process, theme or not', async () => {
    const { result } = await world({ ...under(G('p'), processExt('p')), [G('p/theme.json')]: {} });
    expect(result.extensions[0]).toMatchObject({ kind: 'process', themePath: undefined });
  });

  it('reports the theme of a skills bundle', async () => {
    const { base, result } = await world({
      [G('s/extension.json')]: { name: 's', skills: ['SKILL.md'] },
      [G('s/SKILL.md')]: '',
      [G('s/themes/theme.json')]: {},
    });
    expect(result.extensions[0]).toMatchObject({ kind: 'skills', themePath: path.join(base, G('s/themes/theme.json')) });
  });

  it('recognises skill-only bundles and never spawns them', async () => {
    const { result } = await world({
      [G('s/extension.json')]: { name: 's', skills: ['SKILL.md'] },
      [G('s/SKILL.md')]: '---\nname: s\n---\n',
    });
    expect(result.extensions.map((e) => [e.name, e.kind, isSpawnable(e)])).toEqual([['s', 'skills', false]]);
  });
});

describe('dedup and shadowing', () => {
  it('explicit beats project beats global; losers are listed as shadowed', async () => {
    const { base, result } = await world(
      {
        ...under('work/w', processExt('w')),
        ...under(P('w'), processExt('w')),
        ...under(G('w'), processExt('w')),
        ...under(P('pg'), processExt('pg')),
        ...under(G('pg'), processExt('pg')),
      },
      { explicit: ['../work/w'] },
    );
    const winner = { name: 'w', dir: path.join(base, 'work/w'), source: 'explicit' };
    expect(result.extensions.map((e) => [e.name, e.source, e.shadowedBy])).toEqual([
      ['w', 'explicit', undefined],
      ['pg', 'project', undefined],
      ['w', 'project', winner],
      ['pg', 'global', { name: 'pg', dir: path.join(base, P('pg')), source: 'project' }],
      ['w', 'global', winner],
    ]);
    expect(result.extensions.filter(isSpawnable).map((e) => `${e.name}:${e.source}`)).toEqual(['w:explicit', 'pg:project']);
    expect(result.diagnostics.map((d) => [d.code, d.severity, d.path])).toEqual([
      [DiagnosticCode.SHADOWED, 'warning', path.join(base, P('w/extension.json'))],
      [DiagnosticCode.SHADOWED, 'warning', path.join(base, G('pg/extension.json'))],
      [DiagnosticCode.SHADOWED, 'warning', path.join(base, G('w/extension.json'))],
    ]);
    expect(result.diagnostics[0]?.message).toContain(path.join(base, 'work/w'));
  });

  it('within one root, the first directory in order wins and the other is a DUPLICATE_NAME', async () => {
    const { base, result } = await world({ ...under(G('b'), processExt('same')), ...under(G('a'), processExt('same')) });
    expect(result.extensions.map((e) => [path.basename(e.dir), e.shadowedBy?.dir])).toEqual([
      ['a', undefined],
      ['b', path.join(base, G('a'))],
    ]);
    expect(result.diagnostics.map((d) => [d.code, d.extension])).toEqual([[DiagnosticCode.DUPLICATE_NAME, 'same']]);
    expect(result.diagnostics[0]?.message).toContain('change "name"');
  });

  it('names that differ only by case or Unicode normalisation are one extension', async () => {
    const { result } = await world({
      ...under(P('upper'), processExt('Guard')),
      ...under(G('lower'), processExt('guard')),
      ...under(G('nfd'), processExt('ca\u0066e\u0301')),
      ...under(P('nfc'), processExt('CAF\u00c9')),
    });
    expect(result.extensions.filter(isSpawnable).map((e) => e.name).sort()).toEqual(['CAF\u00c9', 'Guard']);
    const messages = result.diagnostics.map((d) => d.message).join('\n');
    expect(messages).toContain('"guard" and "Guard" differ only by case or Unicode normalisation');
    expect(result.diagnostics.map((d) => d.code)).toEqual([DiagnosticCode.SHADOWED, DiagnosticCode.SHADOWED]);
  });

  it('rejects names with invisible or bidi characters', async () => {
    const { result } = await world({ ...under(G('zw'), processExt('gu\u200bard')), ...under(G('rtl'), processExt('\u202edraug')) });
    expect(result.extensions).toEqual([]);
    expect(result.diagnostics.map((d) => d.message).join('\n')).toMatch(/U\+200B[\s\S]*U\+202E|U\+202E[\s\S]*U\+200B/);
  });

  it('a disabled extension still shadows a later one of the same name', async () => {
    const { result } = await world({
      ...under(P('x'), processExt('x', { enabled: false })),
      ...under(G('x'), processExt('x')),
    });
    expect(result.extensions.map((e) => [e.source, e.enabled, e.shadowedBy?.source])).toEqual([
      ['project', false, undefined],
      ['global', true, 'project'],
    ]);
    expect(result.extensions.some(isSpawnable)).toBe(false);
  });

  it('an invalid manifest shadows nothing', async () => {
    const { result } = await world({
      [P('x/extension.json')]: { name: 'x' },
      ...under(G('x'), processExt('x')),
    });
    expect(result.extensions.map((e) => [e.source, e.shadowedBy])).toEqual([['global', undefined]]);
    expect(codes(result)).toEqual([DiagnosticCode.EXEC_MISSING]);
  });
});

describe('symlinks', () => {
  it('follows a symlinked extension directory and reports its real path', async () => {
    const { base, result } = await world({
      ...under('work/copy', processExt('linked')),
      [G('linked')]: { link: '../../work/copy' },
    });
    expect(result.extensions[0]).toMatchObject({
      name: 'linked',
      dir: path.join(base, 'work/copy'),
      manifestPath: path.join(base, 'work/copy/extension.json'),
      source: 'global',
    });
    expect(result.diagnostics).toEqual([]);
  });

  it('follows a symlinked explicit path and a symlinked root', async () => {
    const { base, result } = await world(
      {
        ...under('work/copy', processExt('e')),
        'work/link': { link: 'copy' },
        ...under('elsewhere/g', processExt('g')),
        'home/extensions': { link: '../elsewhere' },
      },
      { explicit: [path.join('..', 'work', 'link')] },
    );
    expect(result.extensions.map((e) => [e.name, e.dir])).toEqual([
      ['e', path.join(base, 'work/copy')],
      ['g', path.join(base, 'elsewhere/g')],
    ]);
  });

  it('reports broken links and loops without crashing, and goes on', async () => {
    const { base, result } = await world(
      {
        [G('broken')]: { link: '../../nowhere' },
        [G('loop1')]: { link: 'loop2' },
        [G('loop2')]: { link: 'loop1' },
        [G('to-file')]: { link: '../../work/file.txt' },
        'work/file.txt': 'not an extension',
        ...under(G('ok'), processExt('ok')),
        'work/dangling': { link: 'gone' },
      },
      { explicit: ['../work/dangling', '../work/nothing-here'] },
    );
    expect(names(result)).toEqual(['ok']);
    expect(result.diagnostics.map((d) => [d.code, d.severity, path.relative(base, d.path)])).toEqual([
      [DiagnosticCode.SYMLINK_BROKEN, 'error', 'work/dangling'],
      [DiagnosticCode.PATH_NOT_FOUND, 'error', 'work/nothing-here'],
      [DiagnosticCode.SYMLINK_BROKEN, 'error', G('broken')],
      [DiagnosticCode.SYMLINK_LOOP, 'error', G('loop1')],
      [DiagnosticCode.SYMLINK_LOOP, 'error', G('loop2')],
    ]);
  });
});

describe('unreadable things', () => {
  it('reports a directory without a manifest: a warning in a root, an error when explicit', async () => {
    const { base, result } = await world(
      { [G('empty/notes.txt')]: '', 'work/empty/notes.txt': '' },
      { explicit: ['../work/empty'] },
    );
    expect(result.diagnostics.map((d) => [d.code, d.severity, d.path])).toEqual([
      [DiagnosticCode.MANIFEST_MISSING, 'error', path.join(base, 'work/empty/extension.json')],
      [DiagnosticCode.MANIFEST_MISSING, 'warning', path.join(base, G('empty/extension.json'))],
    ]);
  });

  it('reports a manifest that is a directory, a dangling manifest link and an oversized manifest', async () => {
    const base = await dirs.make();
    await tree(base, {
      [G('dir/extension.json/x')]: '',
      [G('link/extension.json')]: { link: 'missing.json' },
      [G('big/extension.json')]: `{"name":"big","exec":"x","pad":"${'x'.repeat(1024 * 1024)}"}`,
    });
    const result = await new ManifestDiscovery({ cwd: base, home: path.join(base, 'home') }).discover();
    expect(result.diagnostics.map((d) => [d.code, path.relative(base, d.path)])).toEqual([
      [DiagnosticCode.MANIFEST_TOO_LARGE, G('big/extension.json')],
      [DiagnosticCode.MANIFEST_UNREADABLE, G('dir/extension.json')],
      [DiagnosticCode.MANIFEST_UNREADABLE, G('link/extension.json')],
    ]);
    expect(result.diagnostics[2]?.message).toContain('is a symlink to nothing');
    expect(result.diagnostics[1]?.message).toContain('is a directory');
  });

  it('reports a root that is not a directory', async () => {
    const { base, result } = await world({ 'project/.zot/extensions': 'oops, a file', ...under(G('g'), processExt('g')) });
    expect(names(result)).toEqual(['g']);
    expect(result.diagnostics.map((d) => [d.code, d.path])).toEqual([
      [DiagnosticCode.DIR_UNREADABLE, path.join(base, 'project/.zot/extensions')],
    ]);
    expect(result.diagnostics[0]?.message).toContain('is not a directory');
  });

  it('reports an explicit path below a file', async () => {
    const base = await dirs.make();
    await writeFile(path.join(base, 'file'), '');
    const result = await new ManifestDiscovery({ cwd: base, home: base, explicit: ['file/ext'], discover: false }).discover();
    expect(codes(result)).toEqual([DiagnosticCode.DIR_UNREADABLE]);
  });
});
