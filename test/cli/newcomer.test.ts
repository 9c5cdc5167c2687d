// The first hour of a new user (issue 33), through the built CLI in a temp dir outside the
// repository: `zot-ext new` then `npm install`, a type-check and the extension's own tests, and
// `zot-ext new --python` then its unittest; `zot-ext doctor` loads each. Nothing reaches the registry.
import { realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readJson, ROOT, tempDir } from '../helpers/fixtures.js';
import { CLI_ARGS, killRunningClis, runCli, runProgram } from './cli.js';

const temp = tempDir('zot-newcomer-');
const work = realpathSync(temp.dir);
const home = path.join(work, 'home');
afterAll(() => temp.cleanup());
afterEach(() => killRunningClis());

// A vitest run inside this one must not think it is one of this run's workers.
const env = { ...Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith('VITEST')).map((k) => [k, undefined])), PYTHONPATH: undefined };

describe('a newcomer', () => {
  it('runs the built CLI', () => {
    expect(CLI_ARGS, 'run npm run build first').toEqual([path.join(ROOT, 'dist', 'cli.js')]);
  });

  it('zot-ext new, npm install, tsc --noEmit, vitest run: a TypeScript extension that loads', { timeout: 180_000 }, async () => {
    const created = await runCli(['new', 'my-ext'], { cwd: work });
    expect(created.code).toBe(0);
    const dir = path.join(work, 'my-ext');
    const pkg = readJson(path.join(dir, 'package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.dependencies['zot-extension-host']).toBe(`file:${ROOT}`);

    // The SDK dependency stays as `new` wrote it. The others are published packages, which npm
    // install --offline could only resolve from registry metadata in the npm cache, and `npm ci` of
    // this repository never stores that (it installs from the lockfile's tarballs): they point at
    // this repository's own copies, which are the versions the template asks for.
    const ours = readJson(path.join(ROOT, 'package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    for (const deps of [pkg.dependencies, pkg.devDependencies]) {
      for (const name of Object.keys(deps)) {
        if (name === 'zot-extension-host') continue;
        expect(deps[name], name).toBe(`^${ours.dependencies[name] ?? ours.devDependencies[name]}`);
        deps[name] = `file:${path.join(ROOT, 'node_modules', name)}`;
      }
    }
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg, null, 2));

    const npm = await runProgram('npm', ['install', '--offline', '--no-audit', '--no-fund'], { cwd: dir, env, timeoutMs: 90_000 });
    expect(npm.stderr).not.toMatch(/npm error/);
    expect(npm.code).toBe(0);
    expect(realpathSync(path.join(dir, 'node_modules', 'zot-extension-host'))).toBe(realpathSync(ROOT));

    const tsc = await runProgram('npx', ['--offline', 'tsc', '--noEmit'], { cwd: dir, env, timeoutMs: 90_000 });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);

    const vitest = await runProgram('npx', ['--offline', 'vitest', 'run'], { cwd: dir, env: { ...env, NO_COLOR: '1', CI: '1' }, timeoutMs: 90_000 });
    expect(vitest.stdout).toMatch(/Tests\s+4 passed \(4\)/);
    expect(vitest.code).toBe(0);

    const doctor = await runCli(['doctor', '--no-discover', dir, '--home', home, '--cwd', work], { timeoutMs: 60_000 });
    expect(doctor.stdout).toMatch(/✓ my-ext 0\.1\.0 \(explicit\) ready in \d+ ms\n\s+commands: \/my-ext\n\s+tools: shout\n/);
    expect(doctor.code).toBe(0);
  });

  it('zot-ext new --python, python3 -m unittest: a Python extension that loads, also once installed elsewhere', { timeout: 60_000 }, async () => {
    const created = await runCli(['new', '--python', 'py-ext'], { cwd: work });
    expect(created.code).toBe(0);
    const dir = path.join(work, 'py-ext');

    const unittest = await runProgram('/usr/bin/python3', ['-m', 'unittest'], { cwd: dir, env: { ...env, PYTHONDONTWRITEBYTECODE: '1' }, timeoutMs: 30_000 });
    expect(unittest.stderr).toMatch(/Ran 3 tests in [\d.]+s\n\nOK\n$/);
    expect(unittest.code).toBe(0);

    const doctor = await runCli(['doctor', '--no-discover', dir, '--home', home, '--cwd', work], { env, timeoutMs: 30_000 });
    expect(doctor.stdout).toMatch(/✓ py-ext 0\.1\.0 \(explicit\) ready in \d+ ms\n\s+commands: \/py-ext\n\s+tools: shout\n/);
    expect(doctor.code).toBe(0);

    // Installed into the project, away from where it was made: the vendored SDK went with it.
    expect((await runCli(['install', dir, '--project', '--home', home, '--cwd', work])).code).toBe(0);
    const installed = await runCli(['doctor', '--trust', '--home', home, '--cwd', work], { env, timeoutMs: 30_000 });
    expect(installed.stdout).toMatch(/✓ py-ext 0\.1\.0 \(project\) ready in \d+ ms\n/);
    expect(installed.code).toBe(0);
  });
});
