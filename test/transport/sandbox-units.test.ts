// The sandbox launcher's pure parts: the policy (host option, per extension, narrowed by the
// manifest), the bubblewrap arguments and the macOS sandbox-exec profile (which cannot run here:
// its generation is what CI checks). The real sandbox is test/host/sandbox.test.ts.
import { chmodSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Manifest } from '../../src/manifest/schema.js';
import { bwrapArgs, checkGrants, prefixProblem, resolveSandbox, sandboxDataDir, sandboxExecProfile, sandboxOptionProblem } from '../../src/transport/sandbox.js';
import { tempDir } from '../helpers/fixtures.js';
import { constructionError } from '../helpers/host.js';

const temp = tempDir('zot-sandbox-units-');
afterAll(() => temp.cleanup());

describe('the policy', () => {
  it("defaults to 'off'; a mode alone means network 'none' and no grants; relative grants resolve against the cwd", () => {
    expect(resolveSandbox(undefined, undefined, '/p')).toEqual({ mode: 'off', network: 'none', writable: [], readable: [], bwrap: undefined });
    expect(resolveSandbox('auto', undefined, '/p')).toMatchObject({ mode: 'auto', network: 'none', writable: [] });
    expect(resolveSandbox({ mode: 'required', network: 'all', writable: ['out', '/abs'], readable: ['lib'] }, undefined, '/p')).toMatchObject({ writable: ['/p/out', '/abs'], readable: ['/p/lib'], network: 'all' });
  });

  it('a manifest narrows (stricter mode, less network) and never widens', () => {
    expect(resolveSandbox('off', 'required', '/p').mode).toBe('required');
    expect(resolveSandbox('auto', { mode: 'required' }, '/p').mode).toBe('required');
    expect(resolveSandbox('required', 'auto', '/p').mode).toBe('required');
    expect(resolveSandbox({ mode: 'auto', network: 'all' }, { network: 'loopback' }, '/p').network).toBe('loopback');
    expect(resolveSandbox({ mode: 'auto', network: 'none' }, { network: 'all' }, '/p').network).toBe('none');
  });

  it('a wrong option is INVALID_OPTIONS naming it', () => {
    expect(sandboxOptionProblem('on')).toBeDefined();
    expect(sandboxOptionProblem({ mode: 'auto', network: 'internet' })).toBeDefined();
    expect(sandboxOptionProblem({ mode: 'auto', writeable: ['/x'] })).toMatch(/unknown field "writeable"/);
    expect(sandboxOptionProblem({ mode: 'auto', writable: [''] })).toMatch(/writable/);
    expect(sandboxOptionProblem({ mode: 'required', network: 'loopback', writable: ['/x'], readable: [], bwrap: '/b' })).toBeUndefined();
    expect(constructionError({ sandbox: 'yes' })).toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining('option sandbox must be') });
    expect(constructionError({ sandboxByExtension: { a: 'nope' } })).toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining('sandboxByExtension') });
    expect(constructionError({ sandboxByExtension: { a: 'auto', A: 'off' } })).toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining('name the same extension') });
  });

  it('the manifest field: "auto", "required" or { mode?, network? }; nothing that widens or grants', () => {
    const base = { name: 'x', exec: './x' };
    expect(Manifest.safeParse({ ...base, sandbox: 'required' }).success).toBe(true);
    expect(Manifest.safeParse({ ...base, sandbox: { network: 'loopback' } }).success).toBe(true);
    expect(Manifest.safeParse({ ...base, sandbox: null }).success).toBe(true);
    for (const bad of ['off', { mode: 'off' }, { writable: ['/'] }, { network: 'internet' }, true]) {
      const parsed = Manifest.safeParse({ ...base, sandbox: bad });
      expect(parsed.success, JSON.stringify(bad)).toBe(false);
    }
  });
});

const pair = (args: readonly string[], flag: string): string[][] => args.flatMap((a, i) => (a === flag ? [args.slice(i + 1, i + 3)] : []));

describe('bubblewrap arguments', () => {
  const dir = path.join(temp.dir, 'ext');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'extension.json'), '{}');
  const dataDir = path.join(temp.dir, 'home', 'data', 'ext');
  const target = { command: 'sh', args: ['./x.sh', 'a b'], dir, dataDir, env: { PATH: '/usr/bin:/bin' }, name: 'ext' };

  it("network 'none' and 'loopback': every namespace new, its own loopback only; 'all' shares the host's network", async () => {
    for (const network of ['none', 'loopback'] as const) {
      const args = await bwrapArgs(resolveSandbox({ mode: 'required', network }, undefined, '/'), target);
      expect(args).toContain('--unshare-all');
      expect(args).not.toContain('--share-net');
    }
    expect(await bwrapArgs(resolveSandbox({ mode: 'required', network: 'all' }, undefined, '/'), target)).toContain('--share-net');
  });

  it('the system read-only, a fresh /proc, /dev and /tmp; the extension directory read-only, its data dir (made 0700) writable; the program last', async () => {
    const writable = path.join(temp.dir, 'granted');
    const args = await bwrapArgs(resolveSandbox({ mode: 'required', writable: [writable] }, undefined, '/'), target);
    for (const flag of ['--die-with-parent', '--new-session']) expect(args).toContain(flag);
    expect(pair(args, '--cap-drop')).toContainEqual(['ALL', expect.any(String)]);
    expect(pair(args, '--ro-bind')).toContainEqual(['/usr', '/usr']);
    expect(pair(args, '--ro-bind')).toContainEqual(['/etc', '/etc']);
    expect(pair(args, '--proc')[0]![0]).toBe('/proc');
    expect(pair(args, '--dev')[0]![0]).toBe('/dev');
    expect(pair(args, '--tmpfs')[0]![0]).toBe('/tmp');
    // Its code (extension.json, scripts, .git, package.json) is not writable: only its data dir is.
    expect(pair(args, '--bind')).toEqual([[dataDir, dataDir]]);
    expect(pair(args, '--ro-bind')).toContainEqual([dir, dir]);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    mkdirSync(writable, { recursive: true });
    expect(pair(await bwrapArgs(resolveSandbox({ mode: 'required', writable: [writable] }, undefined, '/'), target), '--bind-try')).toEqual([[writable, writable]]);
    // The home is not in the view: nothing under it is bound (the temp dir is not either).
    expect(args.filter((a) => a.startsWith('/root') || a.startsWith('/home'))).toEqual([]);
    // Order: the fresh /tmp before the binds (so a bind under /tmp survives), the root read-only at the end.
    expect(args.indexOf('--tmpfs')).toBeLessThan(args.indexOf('--bind'));
    expect(args.indexOf('--remount-ro')).toBeGreaterThan(args.lastIndexOf('--ro-bind'));
    // A grant that contains the extension directory cannot make it writable: the directory comes after the grants.
    expect(args.lastIndexOf('--ro-bind')).toBe(args.indexOf('--bind') - 3);
    expect(args.slice(args.indexOf('--'))).toEqual(['--', '/usr/bin/sh', './x.sh', 'a b']);
    expect(pair(args, '--chdir')[0]![0]).toBe(dir);
  });

  it("an interpreter outside the system (nvm, pyenv, a venv) stays readable: its install prefix, or a version manager's root", async () => {
    const prefix = path.join(temp.dir, 'home', '.nvm', 'versions', 'node', 'v22');
    mkdirSync(path.join(prefix, 'bin'), { recursive: true });
    const node = path.join(prefix, 'bin', 'fakenode');
    writeFileSync(node, '');
    chmodSync(node, 0o755);
    const pyenv = path.join(temp.dir, 'home', '.pyenv');
    mkdirSync(path.join(pyenv, 'shims'), { recursive: true });
    const shim = path.join(pyenv, 'shims', 'fakepython');
    writeFileSync(shim, '#!/bin/sh\n');
    chmodSync(shim, 0o755);
    const script = path.join(dir, 'main');
    writeFileSync(script, '#!/usr/bin/env fakepython\n');
    chmodSync(script, 0o755);
    const env = { PATH: `${path.join(prefix, 'bin')}:${path.join(pyenv, 'shims')}:/usr/bin` };
    const policy = resolveSandbox('required', undefined, '/');
    const viaNode = await bwrapArgs(policy, { ...target, command: 'fakenode', env });
    expect(pair(viaNode, '--ro-bind-try')).toContainEqual([prefix, prefix]);
    expect(viaNode.slice(viaNode.indexOf('--') + 1)[0]).toBe(node);
    const viaShebang = await bwrapArgs(policy, { ...target, command: script, env });
    expect(pair(viaShebang, '--ro-bind-try')).toContainEqual([pyenv, pyenv]);
  });

  it('the extension cannot pick mounts through its #! line: env options, missing files, shallow or system prefixes, the home itself', async () => {
    const policy = resolveSandbox('required', undefined, '/');
    const home = path.join(temp.dir, 'u');
    mkdirSync(path.join(home, 'bin'), { recursive: true });
    const homeSh = path.join(home, 'bin', 'sh');
    writeFileSync(homeSh, '#!/bin/sh\n');
    chmodSync(homeSh, 0o755);
    const shebangs = [
      '#!/usr/bin/env -S -u /run/x sh', // env's options: its real program is sh; /run/x must not be mounted
      '#!/usr/bin/env -u /home/x sh',
      '#!/usr/bin/env A=/proc/x sh',
      '#!/home/x/bin/sh', // missing
      '#!/run/user/1000/sh',
      '#!/proc/self/root/bin/sh',
      `#!${homeSh}`, // <home>/bin/sh: its prefix would be the home itself
    ];
    for (const line of shebangs) {
      const script = path.join(dir, 'evil');
      writeFileSync(script, `${line}\n`);
      chmodSync(script, 0o755);
      const args = await bwrapArgs(policy, { ...target, command: script, env: { PATH: '/usr/bin:/bin', HOME: home } });
      // Only the script's own directory (the extension's, mounted anyway).
      expect(pair(args, '--ro-bind-try').map(([from]) => from), line).toEqual([dir]);
    }
    expect(prefixProblem('/home', [])).toMatch(/too shallow/);
    expect(prefixProblem('/home/x', [])).toMatch(/too shallow/);
    expect(prefixProblem('/var/lib/x', [])).toMatch(/under \/var/);
    expect(prefixProblem('/run/user/1000', [])).toMatch(/under \/run/);
    expect(prefixProblem('/srv/users/pat', ['/srv/users/pat'])).toMatch(/home/);
    expect(prefixProblem('/srv/users', ['/srv/users/pat'])).toBeDefined();
    expect(prefixProblem('/srv/users/pat/.pyenv/versions/3.11.7', ['/srv/users/pat'])).toBeUndefined();
    expect(prefixProblem('/home/pat/.nvm/versions/node/v22', ['/home/pat'])).toBeUndefined();
    // Right in the home: ~/.local, ~/.cargo hold more than an interpreter (credentials); a version manager's root through its shims is fine.
    expect(prefixProblem('/home/pat/.local', ['/home/pat'])).toMatch(/directory of the home/);
    expect(prefixProblem('/home/pat/.cargo', ['/home/pat'])).toBeDefined();
    expect(prefixProblem('/home/pat/.pyenv', ['/home/pat'], true)).toBeUndefined();
  });

  it('a program on PATH in ~/.local/bin that links to an install prefix: that prefix is mounted, not ~/.local, and it runs by its real path', async () => {
    const home = path.join(temp.dir, 'u2');
    const prefix = path.join(home, '.nvm', 'versions', 'node', 'v22');
    mkdirSync(path.join(prefix, 'bin'), { recursive: true });
    mkdirSync(path.join(home, '.local', 'bin'), { recursive: true });
    const node = path.join(prefix, 'bin', 'fakenode');
    writeFileSync(node, '');
    chmodSync(node, 0o755);
    symlinkSync(node, path.join(home, '.local', 'bin', 'fakenode'));
    const args = await bwrapArgs(resolveSandbox('required', undefined, '/'), { ...target, command: 'fakenode', env: { PATH: `${path.join(home, '.local', 'bin')}:/usr/bin`, HOME: home } });
    expect(pair(args, '--ro-bind-try').map(([from]) => from)).toEqual([prefix]);
    expect(args[args.indexOf('--') + 1]).toBe(node);
  });

  it('a grant through a symlink is refused (checkGrants) and never bound, even if it became one after start', async () => {
    const real = path.join(temp.dir, 'real-out');
    mkdirSync(real, { recursive: true });
    const project = path.join(temp.dir, 'project');
    mkdirSync(path.join(project, 'ok'), { recursive: true });
    symlinkSync(temp.dir, path.join(project, 'out'));
    const policy = resolveSandbox({ mode: 'required', writable: ['./out', './ok', './missing'], readable: ['./out/real-out'] }, undefined, project);
    const { policy: checked, refused } = await checkGrants(policy);
    expect(refused).toEqual([
      { kind: 'writable', path: path.join(project, 'out'), real: temp.dir },
      { kind: 'readable', path: path.join(project, 'out', 'real-out'), real },
    ]);
    expect(checked).toMatchObject({ writable: [path.join(project, 'ok'), path.join(project, 'missing')], readable: [] });
    // bwrapArgs checks again at the spawn: the unchecked policy binds no symlinked path either.
    const args = await bwrapArgs(policy, target);
    expect(pair(args, '--bind-try')).toEqual([[path.join(project, 'ok'), path.join(project, 'ok')]]);
    expect(args).not.toContain(path.join(project, 'out'));
    expect(args).not.toContain(path.join(project, 'out', 'real-out'));
  });

  it("the data dir: <home>/data/<name>, the name made one safe path component", () => {
    expect(sandboxDataDir('/h', 'weather')).toBe('/h/data/weather');
    expect(sandboxDataDir('/h', '../x')).toBe('/h/data/..%2Fx');
    expect(sandboxDataDir('/h', '..')).toBe('/h/data/%2E%2E');
  });
});

describe('the macOS sandbox-exec profile (generated here, run only on macOS; untested on CI)', () => {
  const where = { dir: '/Users/pat/.zot/extensions/x "y"', dataDir: '/Users/pat/.zot/data/x', tmp: '/private/var/folders/t/zot-ext-x', programRoots: ['/Users/pat/.nvm/versions/node/v22'] };

  it('denies by default; reads the system, the interpreter and the extension; writes its data dir, its temp dir and the grants', () => {
    const profile = sandboxExecProfile(resolveSandbox({ mode: 'required', writable: ['/Users/pat/out'], readable: ['/Users/pat/lib'] }, undefined, '/'), where);
    expect(profile.split('\n').slice(0, 2)).toEqual(['(version 1)', '(deny default)']);
    const reads = profile.split('\n').find((l) => l.startsWith('(allow file-read*'))!;
    for (const p of ['/usr', '/System', '/Users/pat/.nvm/versions/node/v22', '/Users/pat/lib']) expect(reads).toContain(`(subpath "${p}")`);
    expect(reads).toContain('(subpath "/Users/pat/.zot/extensions/x \\"y\\"")');
    expect(reads).not.toMatch(/subpath "\/Users\/pat"\)/);
    const writes = profile.split('\n').find((l) => l.startsWith('(allow file-write*'))!;
    for (const p of ['/private/var/folders/t/zot-ext-x', '/Users/pat/out', '/Users/pat/.zot/data/x']) expect(writes).toContain(`(subpath "${p}")`);
    expect(writes).not.toContain('/Users/pat/lib');
    expect(writes).not.toContain('extensions/x');
    // The extension directory is read-only even inside a writable grant (the later rule wins), its data dir writable.
    const lines = profile.split('\n');
    expect(lines.indexOf('(deny file-write* (subpath "/Users/pat/.zot/extensions/x \\"y\\""))')).toBeGreaterThan(lines.indexOf(writes));
    expect(lines.at(-2)).toBe('(allow file-write* (subpath "/Users/pat/.zot/data/x"))');
    expect(profile).toContain('(allow signal (target same-sandbox))');
  });

  it("network: nothing for 'none', localhost for 'loopback', everything for 'all'", () => {
    const profile = (network: 'none' | 'loopback' | 'all') => sandboxExecProfile(resolveSandbox({ mode: 'required', network }, undefined, '/'), where);
    expect(profile('none')).not.toContain('network');
    expect(profile('loopback')).toContain('(allow network-outbound (remote ip "localhost:*"))');
    expect(profile('loopback')).not.toContain('(allow network*)');
    expect(profile('all')).toContain('(allow network*)');
  });
});
