// install and command-line usage, run as real processes against temp homes.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { fixture, readJson } from '../helpers/fixtures.js';
import { startSilentTcp } from '../helpers/ws-peer.js';
import { runCli, useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-');
const { cli, globalDir, projectDir, source } = sandbox;

/** main() in this process, with captured output. */
async function inProcess(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await main(argv, { stdout, stderr, stdin: new PassThrough(), env: {}, cwd: sandbox.dir });
  return { code, stdout: out, stderr: err };
}

const leftovers = (root: string) => (existsSync(root) ? readdirSync(root).filter((n) => n.startsWith('.')) : []);

function gitRepo(from: string): string {
  const repo = path.join(sandbox.dir, 'repo');
  cpSync(from, repo, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: sandbox.dir } });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-q', '-m', 'init');
  return repo;
}

describe('install', { timeout: 30_000 }, () => {
  it('copies a directory into <home>/extensions/<manifest name>, keeping exec bits', async () => {
    const src = source('extensions/weather');
    const r = await cli('install', src);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`installed weather 1.0.0 (global) at ${globalDir('weather')}\n`);
    expect(readJson(path.join(globalDir('weather'), 'extension.json'))).toEqual(readJson(path.join(src, 'extension.json')));
    expect(statSync(path.join(globalDir('weather'), 'weather.py')).mode & 0o111).not.toBe(0);
    expect(leftovers(path.join(sandbox.home, 'extensions'))).toEqual([]);
  });

  it('installs an extension whose exec is missing or not executable, and warns about it', async () => {
    const missing = source('extensions/hello-sh', (m) => ({ ...m, exec: './not-built.sh' }));
    const r = await cli('install', missing);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`warning: ${path.join(globalDir('hello-sh'), 'extension.json')}: exec "./not-built.sh" was not found`);
    expect(r.stderr).not.toContain('.install-'); // the staging directory is not shown

    const plain = source('extensions/hello-sh', (m) => ({ ...m, name: 'plain' }));
    chmodSync(path.join(plain, 'hello.sh'), 0o644);
    const p = await cli('install', plain);
    expect(p.code).toBe(0);
    expect(p.stderr).toContain(`exec "./hello.sh" is not executable; run chmod +x ${path.join(globalDir('plain'), 'hello.sh')}`);
  });

  it('names the target by the manifest, not the source directory', async () => {
    const src = source('extensions/weather', (m) => ({ ...m, name: 'sky' }));
    const r = await cli('install', src);
    expect(r.code).toBe(0);
    expect(existsSync(path.join(globalDir('sky'), 'weather.py'))).toBe(true);
  });

  it('installs into the project with --project', async () => {
    const r = await cli('install', source('extensions/hello-sh'), '--project');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(project)');
    expect(existsSync(path.join(projectDir('hello-sh'), 'hello.sh'))).toBe(true);
    expect(existsSync(globalDir('hello-sh'))).toBe(false);
  });

  it('shallow-clones a local git repository given as a file:// URL', async () => {
    const repo = gitRepo(fixture('extensions/hello-sh'));
    const r = await cli('install', pathToFileURL(repo).href);
    expect(r.stderr).toBe(`cloning ${pathToFileURL(repo).href} ...\n`);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('installed hello-sh 1.0.0 (global)');
    expect(statSync(path.join(globalDir('hello-sh'), 'hello.sh')).mode & 0o111).not.toBe(0);
    const log = execFileSync('git', ['rev-list', '--count', 'HEAD'], { cwd: globalDir('hello-sh') }).toString().trim();
    expect(log).toBe('1');
    expect(leftovers(path.join(sandbox.home, 'extensions'))).toEqual([]);
  });

  it('rolls back when the result has no extension.json (path and git)', async () => {
    const empty = path.join(sandbox.dir, 'not-an-extension');
    mkdirSync(empty);
    writeFileSync(path.join(empty, 'README'), 'hi');
    const r = await cli('install', empty);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`zot-ext: error: ${empty} is not a valid extension: it has no extension.json at its top level; nothing was installed\n`);
    expect(readdirSync(path.join(sandbox.home, 'extensions'))).toEqual([]);

    const repo = gitRepo(empty);
    const g = await cli('install', pathToFileURL(repo).href);
    expect(g.code).toBe(1);
    expect(g.stderr).toContain('nothing was installed');
    expect(readdirSync(path.join(sandbox.home, 'extensions'))).toEqual([]);
  });

  it('rolls back when extension.json is invalid, naming line and column', async () => {
    const src = source('extensions/weather');
    writeFileSync(path.join(src, 'extension.json'), '{\n  "name": "weather",\n  "exec": ./weather.py\n}\n');
    const r = await cli('install', src);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('extension.json:3:11: invalid JSON');
    expect(r.stderr).not.toContain('.install-');
    expect(readdirSync(path.join(sandbox.home, 'extensions'))).toEqual([]);
  });

  it('refuses to overwrite an installed extension without --force, and replaces it with --force', async () => {
    expect((await cli('install', source('extensions/weather'))).code).toBe(0);
    const v2 = source('extensions/weather', (m) => ({ ...m, version: '2.0.0' }));
    const refused = await cli('install', v2);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`zot-ext: error: "weather" is already installed at ${globalDir('weather')}; add --force to replace it, or run zot-ext remove weather first\n`);
    expect((readJson(path.join(globalDir('weather'), 'extension.json')) as { version: string }).version).toBe('1.0.0');
    expect(leftovers(path.join(sandbox.home, 'extensions'))).toEqual([]);

    const forced = await cli('install', v2, '--force');
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('installed weather 2.0.0');
    expect((readJson(path.join(globalDir('weather'), 'extension.json')) as { version: string }).version).toBe('2.0.0');
    expect(leftovers(path.join(sandbox.home, 'extensions'))).toEqual([]);
  });

  it('recreates symlinks inside the tree and skips those that leave it', async () => {
    const src = source('extensions/weather');
    mkdirSync(path.join(src, 'sub'));
    symlinkSync('../weather.py', path.join(src, 'sub', 'inner'));
    symlinkSync(path.join(src, 'weather.py'), path.join(src, 'absolute-inside'));
    const secret = path.join(sandbox.dir, 'secret.txt');
    writeFileSync(secret, 'secret');
    symlinkSync(secret, path.join(src, 'outer'));
    const r = await cli('install', src);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`warning: skipped outer: symlink to ${secret} leaves the extension directory (not followed)`);
    expect(existsSync(path.join(globalDir('weather'), 'outer'))).toBe(false);
    expect(readlinkSync(path.join(globalDir('weather'), 'sub', 'inner'))).toBe('../weather.py');
    expect(readlinkSync(path.join(globalDir('weather'), 'absolute-inside'))).toBe('weather.py');
  });

  it('drops symlinks of a git repository that leave the clone, and keeps those inside', async () => {
    const secret = path.join(sandbox.dir, 'secret.txt');
    writeFileSync(secret, 'secret');
    const repo = gitRepo(fixture('extensions/hello-sh'));
    symlinkSync(secret, path.join(repo, 'outer'));
    symlinkSync('../../../../../../../../../../../../..' + secret, path.join(repo, 'relative-outer'));
    symlinkSync('hello.sh', path.join(repo, 'inner'));
    execFileSync('git', ['add', '-A'], { cwd: repo });
    execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-q', '-m', 'links'], { cwd: repo });
    const r = await cli('install', pathToFileURL(repo).href);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`warning: skipped outer: symlink to ${secret} leaves the extension directory (not followed)`);
    expect(r.stderr).toContain('warning: skipped relative-outer: symlink to');
    expect(existsSync(path.join(globalDir('hello-sh'), 'outer'))).toBe(false);
    expect(existsSync(path.join(globalDir('hello-sh'), 'relative-outer'))).toBe(false);
    expect(readlinkSync(path.join(globalDir('hello-sh'), 'inner'))).toBe('hello.sh');
    expect(leftovers(path.join(sandbox.home, 'extensions'))).toEqual([]);
  });

  it('reports a missing source and an unsupported URL', async () => {
    const missing = await cli('install', path.join(sandbox.dir, 'nope'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('does not exist');
    const url = await cli('install', 'ftp://example.com/x');
    expect(url.code).toBe(2);
    expect(url.stderr).toContain('cannot install from a ftp:// URL');
  });
});

describe('install from git: progress and a deadline', { timeout: 30_000 }, () => {
  it('says what it clones, credentials masked', async () => {
    const repo = gitRepo(fixture('extensions/hello-sh'));
    const r = await cli('install', pathToFileURL(repo).href);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`cloning ${pathToFileURL(repo).href} ...\n`);
    const secret = await cli('install', 'http://user:s3cret@127.0.0.1:9/repo.git', '--timeout', '5000');
    expect(secret.code).toBe(1);
    expect(secret.stderr).not.toContain('s3cret');
    expect(secret.stderr).toContain('cloning http://***:***@127.0.0.1:9/repo.git ...');
  });

  it('a clone that hangs fails at --timeout, leaving nothing behind', async () => {
    const silent = await startSilentTcp();
    try {
      const url = silent.url.replace('ws://', 'http://') + 'repo.git';
      const r = await cli('install', url, '--timeout', '500');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`zot-ext: error: git clone ${url} did not finish within 500 ms (--timeout); nothing was installed\n`);
      expect(leftovers(path.join(sandbox.home, 'extensions'))).toEqual([]);
    } finally {
      await silent.close();
    }
  });

  it('refuses a --timeout that is not a whole number above 0', async () => {
    const r = await cli('install', 'https://example.com/x.git', '--timeout', '0');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--timeout needs a whole number of milliseconds above 0');
  });
});

describe('usage', { timeout: 30_000 }, () => {
  it('exits 2 with one line for unknown commands, options and missing arguments', async () => {
    const real = await runCli(['list', '--bogus']);
    expect(real).toMatchObject({ code: 2, stderr: 'zot-ext: error: unknown option --bogus; see zot-ext list --help\n' });
    for (const args of [['frob'], ['install'], ['remove', 'a', 'b'], ['logs', '--lines'], ['list', '--json=1'], ['disable', 'x', '--project', '--global']]) {
      const r = await inProcess(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(/^zot-ext: error: /);
    }
  });

  it('prints --help for every command, and the version', async () => {
    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    const commands = ['list', 'doctor', 'install', 'update', 'remove', 'enable', 'disable', 'logs', 'run', 'new'];
    for (const command of commands) expect(top.stdout).toContain(`  ${command} `);
    const run = await runCli(['run', '--help']);
    expect(run.stdout).toMatch(/^usage: zot-ext run \[paths\.\.\.\] \[options\]\n/);
    // The rest in-process: same code, no process start-up per command.
    for (const command of commands) {
      const r = await inProcess([command, '--help']);
      expect(r.code, command).toBe(0);
      expect(r.stdout, command).toMatch(new RegExp(`^usage: zot-ext ${command}`));
      expect(r.stdout).toContain('--home <dir>');
      expect(r.stdout).toContain('  -h, --help');
    }
    expect((await inProcess(['help', 'logs'])).stdout).toContain('-f, --follow');
    expect((await inProcess(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(await inProcess([])).toMatchObject({ code: 2, stdout: expect.stringContaining('usage: zot-ext <command>') });
  });

  it('shows a stack only with --debug', async () => {
    // A log "file" that is a directory: an unexpected error, not a CliError.
    mkdirSync(path.join(sandbox.home, 'logs', 'ext-odd.log'), { recursive: true });
    const r = await cli('logs', 'odd');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^zot-ext: error: EISDIR.* \(run with --debug for details\)\n$/);
    const debug = await cli('logs', 'odd', '--debug');
    expect(debug.code).toBe(1);
    expect(debug.stderr.split('\n').length).toBeGreaterThan(3);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });
});
