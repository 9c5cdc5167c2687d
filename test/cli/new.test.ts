// `zot-ext new <name>`: a runnable TypeScript extension from the SDK template.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readJson, ROOT, tempDir } from '../helpers/fixtures.js';
import { killRunningClis, runCli } from './cli.js';

// Under the repository, so the generated extension finds zod and tsx in its node_modules.
const temp = tempDir('cli-new-', path.join(ROOT, '.tmp'));
const work = temp.dir;
afterAll(() => temp.cleanup());
afterEach(() => killRunningClis());

describe('new', { timeout: 30_000 }, () => {
  it('creates a runnable extension named after the argument, importing the package', async () => {
    const r = await runCli(['new', 'hello-world', '--cwd', work]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`created ${path.join(work, 'hello-world')}: .gitignore, extension.json, extension.test.ts, extension.ts, main.ts, package.json, tsconfig.json`);
    const dir = path.join(work, 'hello-world');
    // The package is not on the registry: the dependency is this package, as a path npm resolves.
    const pkg = readJson(path.join(dir, 'package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.dependencies['zot-extension-host']).toBe(`file:${ROOT}`);
    expect(r.stdout).toContain(`zot-extension-host: file:${ROOT} (not on the npm registry yet; --sdk picks another clone or tarball)`);
    expect(Object.keys(pkg.devDependencies)).toEqual(expect.arrayContaining(['typescript', '@types/node', 'vitest']));
    expect(readFileSync(path.join(dir, '.gitignore'), 'utf8')).toContain('node_modules/');
    expect(JSON.parse(readFileSync(path.join(dir, 'extension.json'), 'utf8'))).toMatchObject({ name: 'hello-world', exec: 'node' });
    const source = readFileSync(path.join(dir, 'extension.ts'), 'utf8');
    expect(source).toContain("from 'zot-extension-host/sdk'");
    expect(source).toContain("ext.command('hello-world'");
    expect(source).not.toContain('my-extension');
    expect(readFileSync(path.join(dir, 'extension.test.ts'), 'utf8')).toContain("from 'zot-extension-host/testing'");

    // As an installed package would be: node_modules/zot-extension-host -> this repository.
    mkdirSync(path.join(dir, 'node_modules'));
    symlinkSync(ROOT, path.join(dir, 'node_modules', 'zot-extension-host'), 'dir');
    const home = path.join(work, 'home');
    const run = await runCli(['run', dir, '--home', home, '--cwd', work], { input: '/hello-world zot\n!shout {"text":"hi"}\n' });
    expect(run.stdout).toContain('[hello-world] display: hello, zot');
    expect(run.stdout).toContain('HI');
    expect(run.code).toBe(0);
  });

  it('prints next steps that work when pasted from where it ran, quoting paths with spaces', async () => {
    const r = await runCli(['new', 'spaced', '--dir', "my dir/it's here", '--cwd', work], { cwd: work });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`created ${path.join(work, "my dir/it's here")}: `);
    expect(r.stdout).toContain("next:\n  cd 'my dir/it'\\''s here' && npm install && npx tsc --noEmit && npx vitest run\n  npx zot-ext run .     # try it without a model\n");
    const plain = await runCli(['new', 'plain-one', '--cwd', work], { cwd: work });
    expect(plain.stdout).toContain('  cd plain-one && npm install');
  });

  it('--sdk depends on a given clone or npm pack tarball, and refuses what is neither', async () => {
    const tarball = path.join(work, 'zot-extension-host-0.1.0.tgz');
    writeFileSync(tarball, '');
    const r = await runCli(['new', 'from-tarball', '--sdk', tarball, '--cwd', work]);
    expect(r.code).toBe(0);
    expect(readJson(path.join(work, 'from-tarball', 'package.json'))).toMatchObject({ dependencies: { 'zot-extension-host': `file:${tarball}` } });
    const clone = await runCli(['new', 'from-clone', '--sdk', '.', '--cwd', work], { cwd: ROOT });
    expect(readJson(path.join(work, 'from-clone', 'package.json'))).toMatchObject({ dependencies: { 'zot-extension-host': `file:${ROOT}` } });
    expect(clone.code).toBe(0);

    const other = await runCli(['new', 'other-sdk', '--sdk', path.join(ROOT, 'node_modules', 'zod'), '--cwd', work]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('is not the zot-extension-host package (its package.json names "zod")');
    const missing = await runCli(['new', 'no-sdk', '--sdk', path.join(work, 'nope'), '--cwd', work]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('does not exist');
    expect(existsSync(path.join(work, 'other-sdk'))).toBe(false);
  });

  it('--python writes a Python extension with the SDK vendored, whose own test passes and which loads', async () => {
    const r = await runCli(['new', '--python', 'py-hello', '--cwd', work], { cwd: work });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const dir = path.join(work, 'py-hello');
    expect(r.stdout).toBe(
      [
        `created ${dir}: .gitignore, extension.json, extension.py, test_extension.py, zot_ext/`,
        `zot_ext/: a copy of the Python SDK from ${path.join(ROOT, 'python', 'zot_ext')} (no pip install needed)`,
        'next:',
        '  cd py-hello && python3 -m unittest',
        '  zot-ext run .     # try it without a model',
        '',
      ].join('\n'),
    );
    expect(readJson(path.join(dir, 'extension.json'))).toMatchObject({ name: 'py-hello', exec: './extension.py', language: 'python' });
    expect(statSync(path.join(dir, 'extension.py')).mode & 0o111).not.toBe(0);
    expect(readdirSync(path.join(dir, 'zot_ext')).sort()).toEqual(readdirSync(path.join(ROOT, 'python', 'zot_ext')).filter((f) => f.endsWith('.py') || f === 'py.typed').sort());

    // Its own test, with nothing on PYTHONPATH: the vendored copy is what it finds.
    const env = { ...process.env, PYTHONPATH: undefined, PYTHONDONTWRITEBYTECODE: '1' };
    const test = spawnSync('/usr/bin/python3', ['-m', 'unittest'], { cwd: dir, env, encoding: 'utf8', timeout: 20_000 });
    expect(test.stderr).toMatch(/Ran 3 tests[\s\S]*\nOK\n$/);
    expect(test.status).toBe(0);

    const run = await runCli(['run', dir, '--home', path.join(work, 'home'), '--cwd', work], { input: '/py-hello zot\n!shout {"text":"hi"}\n', env: { PYTHONPATH: undefined } });
    expect(run.stdout).toContain('[py-hello] display: hello, zot');
    expect(run.stdout).toContain('[py-hello] shout: HI');
    expect(run.code).toBe(0);
  });

  it('refuses unsafe names and directories that are not empty', async () => {
    const bad = await runCli(['new', '../escape', '--cwd', work]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/name/);
    // The manifest accepts these, but the template's command and TypeScript would not: refused up front.
    for (const name of ['a b', "it's"]) {
      const r = await runCli(['new', name, '--cwd', work]);
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toContain(`name ${JSON.stringify(name)} contains`);
      expect(r.stderr.trimEnd().split('\n'), name).toHaveLength(1);
    }
    mkdirSync(path.join(work, 'taken'));
    writeFileSync(path.join(work, 'taken', 'file.txt'), 'x');
    const taken = await runCli(['new', 'taken', '--cwd', work]);
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toContain('is not empty');
  });
});
