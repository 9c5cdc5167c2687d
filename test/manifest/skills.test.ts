import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DiagnosticCode, ManifestDiscovery, type DiscoveryResult } from '../../src/manifest/index.js';
import { tempDirs } from '../helpers/fixtures.js';
import { tree, under, type Entry } from './tree.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

/** One global extension `s` whose directory holds `files`; `skills` goes into its manifest. */
async function skillExt(skills: unknown, files: Record<string, Entry>, outside: Record<string, Entry> = {}) {
  const base = await dirs.make();
  const dir = path.join(base, 'home/extensions/s');
  await tree(base, { ...outside, ...under('home/extensions/s', { 'extension.json': { name: 's', skills }, ...files }) });
  const result = await new ManifestDiscovery({ cwd: path.join(base, 'project'), home: path.join(base, 'home') }).discover();
  return { base, dir, result };
}

const skillPaths = (r: DiscoveryResult, dir: string) => r.extensions[0]?.skills.map((s) => path.relative(dir, s.path));
const diag = (r: DiscoveryResult, base: string) =>
  r.diagnostics.map((d) => [d.code, d.severity, path.relative(base, d.path), d.extension]);

const skill = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;

describe('skills', () => {
  it('scans a directory recursively for SKILL.md, in byte order, with front matter', async () => {
    const { dir, result } = await skillExt(['skills'], {
      'skills/b/SKILL.md': skill('bee', 'Buzzes.'),
      'skills/a/deep/er/SKILL.md': skill('deep', 'Lives deep.'),
      'skills/B/SKILL.md': '# no front matter\n',
      'skills/a/notes.md': 'not a skill',
      'skills/node_modules/x/SKILL.md': skill('dep', 'ignored'),
      'skills/.hidden/SKILL.md': skill('hidden', 'ignored'),
    });
    expect(result.extensions[0]?.kind).toBe('skills');
    expect(result.extensions[0]?.skills).toEqual([
      { path: path.join(dir, 'skills/B/SKILL.md'), name: undefined, description: undefined },
      { path: path.join(dir, 'skills/a/deep/er/SKILL.md'), name: 'deep', description: 'Lives deep.' },
      { path: path.join(dir, 'skills/b/SKILL.md'), name: 'bee', description: 'Buzzes.' },
    ]);
    expect(result.diagnostics).toEqual([]);
  });

  it('takes a direct SKILL.md path, keeps entry order and lists a skill once', async () => {
    const { dir, result } = await skillExt(['z/SKILL.md', 'a', './z/SKILL.md', 'a/SKILL.md'], {
      'z/SKILL.md': skill('z', 'zed'),
      'a/SKILL.md': skill('a', 'ay'),
    });
    expect(skillPaths(result, dir)).toEqual(['z/SKILL.md', 'a/SKILL.md']);
  });

  it('refuses entries that escape the directory, lexically or through a symlink', async () => {
    const { base, dir, result } = await skillExt(
      ['../../other', '/etc', 'link-out', 'ok'],
      { 'link-out': { link: '../../../outside' }, 'ok/SKILL.md': skill('ok', 'fine') },
      { 'home/other/SKILL.md': skill('other', 'no'), 'outside/SKILL.md': skill('out', 'no') },
    );
    expect(skillPaths(result, dir)).toEqual(['ok/SKILL.md']);
    expect(diag(result, base)).toEqual([
      [DiagnosticCode.SKILL_PATH_ESCAPES, 'error', 'home/extensions/s/extension.json', 's'],
      [DiagnosticCode.SKILL_PATH_ESCAPES, 'error', 'home/extensions/s/extension.json', 's'],
      [DiagnosticCode.SKILL_PATH_ESCAPES, 'error', 'home/extensions/s/link-out', 's'],
    ]);
    expect(result.diagnostics[0]?.message).toContain('"../../other"');
    expect(result.diagnostics[2]?.message).toContain(path.join(base, 'outside'));
  });

  it('ignores (and reports) a symlink inside a scanned directory that points outside', async () => {
    const { base, dir, result } = await skillExt(
      ['skills'],
      { 'skills/in/SKILL.md': skill('in', 'inside'), 'skills/out': { link: '../../../../outside' } },
      { 'outside/SKILL.md': skill('out', 'no') },
    );
    expect(skillPaths(result, dir)).toEqual(['skills/in/SKILL.md']);
    expect(diag(result, base)).toEqual([
      [DiagnosticCode.SKILL_PATH_ESCAPES, 'error', 'home/extensions/s/skills/out', 's'],
    ]);
  });

  it('follows symlinks that stay inside, and survives a symlink loop', async () => {
    const { dir, result } = await skillExt(['skills'], {
      'skills/a/SKILL.md': skill('a', 'ay'),
      'skills/a/loop': { link: '..' },
      'skills/b': { link: 'a' },
      'shared/SKILL.md': skill('shared', 'linked file'),
      'skills/c/SKILL.md': { link: '../../shared/SKILL.md' },
    });
    expect(skillPaths(result, dir)).toEqual(['shared/SKILL.md', 'skills/a/SKILL.md']);
    expect(result.diagnostics).toEqual([]);
  });

  it('reports a missing entry, a directory without SKILL.md and a dangling link', async () => {
    const { base, dir, result } = await skillExt(['nope', 'empty', 'skills'], {
      'empty/README.md': '',
      'skills/x/SKILL.md': skill('x', 'x'),
      'skills/dangling': { link: 'gone' },
    });
    expect(skillPaths(result, dir)).toEqual(['skills/x/SKILL.md']);
    expect(diag(result, base)).toEqual([
      [DiagnosticCode.SKILL_PATH_MISSING, 'error', 'home/extensions/s/nope', 's'],
      [DiagnosticCode.SKILL_NOT_FOUND, 'warning', 'home/extensions/s/empty', 's'],
      [DiagnosticCode.SKILL_PATH_MISSING, 'warning', 'home/extensions/s/skills/dangling', 's'],
    ]);
    expect(result.diagnostics[0]?.message).toContain('does not exist');
    // The extension is still listed: a bad skills entry does not take the others down.
    expect(result.extensions[0]?.name).toBe('s');
  });

  it('reports skills of a process extension too', async () => {
    const { dir, result } = await skillExt(['SKILL.md'], { 'SKILL.md': skill('p', 'proc') });
    expect(result.extensions[0]?.kind).toBe('skills');
    const base = await dirs.make();
    await tree(base, {
      'home/extensions/p/extension.json': { name: 'p', exec: 'node', skills: ['SKILL.md'] },
      'home/extensions/p/SKILL.md': skill('p', 'proc'),
    });
    const proc = await new ManifestDiscovery({ cwd: base, home: path.join(base, 'home') }).discover();
    expect(proc.extensions[0]).toMatchObject({ kind: 'process', skills: [{ name: 'p', description: 'proc' }] });
    expect(skillPaths(result, dir)).toEqual(['SKILL.md']);
  });
});
