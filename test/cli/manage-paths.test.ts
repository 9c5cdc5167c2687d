// remove / enable / disable never reach a path outside one extension directory: names that are
// paths are refused.
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliSandbox } from './cli.js';

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
