// remove / enable / disable / install never reach a path outside one extension directory: names
// that are paths are refused, a manifest that links out is never written through, and install
// applies discovery's identity rule (NFC + case folding) to the name it installs under.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson } from '../helpers/fixtures.js';
import { runCli, useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-paths-');
const { cli, globalDir, projectDir, source } = sandbox;

const extensionsOf = (root: string) => readdirSync(root).sort();

describe('remove refuses names that are paths', { timeout: 30_000 }, () => {
  it.each(['', '.', '..', '/', '/tmp', '../extensions', 'a/b', 'a\\b', './weather'])('remove %j: exit 2, nothing deleted', async (name) => {
    expect((await cli('install', source('extensions/weather'))).code).toBe(0);
    expect((await cli('install', source('extensions/hello-sh'), '--project')).code).toBe(0);
    const r = await cli('remove', name);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^zot-ext: error: .*is not an extension name.*\n$/);
    expect(extensionsOf(path.join(sandbox.home, 'extensions'))).toEqual(['weather']);
    expect(existsSync(projectDir('hello-sh'))).toBe(true);
  });

  it('enable and disable refuse them too', async () => {
    for (const command of ['enable', 'disable']) {
      const r = await cli(command, '');
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('is not an extension name');
    }
  });

  it('removes only a direct child of the extensions root, never the root behind a symlink', async () => {
    expect((await cli('install', source('extensions/weather'))).code).toBe(0);
    // The extensions root itself is a symlink to a directory holding other data.
    const data = path.join(sandbox.dir, 'data');
    mkdirSync(data);
    writeFileSync(path.join(data, 'keep.txt'), 'keep');
    const root = path.join(sandbox.project, '.zot', 'extensions');
    mkdirSync(path.dirname(root), { recursive: true });
    symlinkSync(data, root);
    const r = await cli('remove', 'keep.txt');
    expect(r.code).toBe(1);
    expect(readFileSync(path.join(data, 'keep.txt'), 'utf8')).toBe('keep');
    expect(existsSync(globalDir('weather'))).toBe(true);
  });
});

describe('enable and disable never write through a link out of the extension directory', { timeout: 30_000 }, () => {
  it('refuses a manifest that is a symlink to a file outside, leaving that file as it was', async () => {
    expect((await cli('install', source('extensions/weather'))).code).toBe(0);
    const outside = path.join(sandbox.dir, 'settings.json');
    const text = `${JSON.stringify({ name: 'weather', exec: './weather.py', user: 'data' }, null, 2)}\n`;
    writeFileSync(outside, text);
    const manifest = path.join(globalDir('weather'), 'extension.json');
    rmSync(manifest);
    symlinkSync(outside, manifest);

    for (const command of ['disable', 'enable']) {
      const r = await cli(command, 'weather');
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `zot-ext: error: cannot ${command} weather: ${manifest} is a symlink to ${outside}, outside the extension directory; edit that file by hand, or replace the link with a copy\n`,
      );
      expect(readFileSync(outside, 'utf8')).toBe(text);
    }
  });

  it('edits a manifest linked to a file inside its own directory, through the link, atomically', async () => {
    const src = source('extensions/weather');
    const real = path.join(src, 'manifests', 'extension.json');
    mkdirSync(path.dirname(real));
    writeFileSync(real, readFileSync(path.join(src, 'extension.json')));
    rmSync(path.join(src, 'extension.json'));
    symlinkSync('manifests/extension.json', path.join(src, 'extension.json'));
    expect((await cli('install', src)).code).toBe(0);

    const r = await cli('disable', 'weather');
    expect(r.code, r.stderr).toBe(0);
    const dir = globalDir('weather');
    expect((readJson(path.join(dir, 'manifests', 'extension.json')) as { enabled?: boolean }).enabled).toBe(false);
    expect(existsSync(path.join(dir, 'extension.json'))).toBe(true);
    // No temp file left behind.
    expect(readdirSync(path.join(dir, 'manifests'))).toEqual(['extension.json']);
  });
});

describe('install: names', { timeout: 30_000 }, () => {
  it.each([
    ['a case variant', 'weather', 'Weather'],
    ['an NFD variant', 'caf\u00e9', 'cafe\u0301'],
    ['an NFD case variant', 'caf\u00e9', 'CAFE\u0301'],
  ])('refuses %s of an installed name without --force, and replaces it with --force', async (_what, base, variant) => {
    const first = source('extensions/weather', (m) => ({ ...m, name: base }));
    expect((await cli('install', first)).code).toBe(0);
    const second = source('extensions/weather', (m) => ({ ...m, name: variant, version: '2.0.0' }));
    const refused = await cli('install', second);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`is already installed at ${globalDir(base)}`);
    expect(refused.stderr).toContain('add --force to replace it');
    expect(extensionsOf(path.join(sandbox.home, 'extensions'))).toEqual([base]);

    const forced = await cli('install', second, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(extensionsOf(path.join(sandbox.home, 'extensions'))).toEqual([variant]);
    const list = JSON.parse((await cli('list', '--json')).stdout) as { extensions: { name: string; version: string; state: string }[] };
    expect(list.extensions.map((e) => [e.name, e.version, e.state])).toEqual([[variant, '2.0.0', 'enabled']]);
  });

  it('refuses a name starting with "." (discovery never loads a dot-directory)', async () => {
    const src = source('extensions/weather', (m) => ({ ...m, name: '.hidden' }));
    const r = await cli('install', src);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`zot-ext: error: ${src} is not a valid extension: its name ".hidden" starts with "." and discovery never loads a directory of that name; rename it in extension.json; nothing was installed\n`);
    const root = path.join(sandbox.home, 'extensions');
    expect(existsSync(root) ? readdirSync(root) : []).toEqual([]);
  });
});

describe('install: inside the extension itself', { timeout: 30_000 }, () => {
  it('install . --project from inside the extension is refused and leaves no .zot directory behind', async () => {
    const src = source('extensions/weather');
    const r = await runCli(['install', '.', '--project', '--home', sandbox.home, '--cwd', src], { cwd: src });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('contains the extensions directory');
    expect(existsSync(path.join(src, '.zot'))).toBe(false);
  });
});
