// install --ref / --install-deps, update, and the commit in list: against local bare git repositories
// made in the test's temp dir (no network), through the real CLI.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fixture, readJson } from '../helpers/fixtures.js';
import { useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-update-');
const { cli, globalDir, source } = sandbox;

/** A bare repository of hello-sh and a working copy that pushes to it; `commit(version)` adds a commit. */
function bareRepo(): { url: string; commit: (version: string) => string; git: (...args: string[]) => string } {
  const bare = path.join(sandbox.dir, 'hello.git');
  const work = path.join(sandbox.dir, 'work');
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: sandbox.dir, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: work, stdio: 'pipe', env, timeout: 10_000 }).toString().trim();
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare], { stdio: 'pipe', env, timeout: 10_000 });
  cpSync(fixture('extensions/hello-sh'), work, { recursive: true });
  git('init', '-q', '-b', 'main');
  git('remote', 'add', 'origin', bare);
  const commit = (version: string) => {
    const manifest = path.join(work, 'extension.json');
    writeFileSync(manifest, JSON.stringify({ ...(readJson(manifest) as object), version }, null, 2));
    git('add', '-A');
    git('commit', '-q', '-m', `v${version}`);
    git('push', '-q', 'origin', 'main');
    return git('rev-parse', 'HEAD');
  };
  return { url: pathToFileURL(bare).href, commit, git };
}

const version = (name: string) => (readJson(path.join(globalDir(name), 'extension.json')) as { version: string }).version;

describe('git installs', { timeout: 30_000 }, () => {
  it('install --ref checks out a tag or a commit, and list shows the commit', async () => {
    const repo = bareRepo();
    const first = repo.commit('1.0.0');
    repo.git('tag', 'v1');
    repo.git('push', '-q', 'origin', 'v1');
    repo.commit('2.0.0');

    const tagged = await cli('install', repo.url, '--ref', 'v1');
    expect(tagged.stderr).toBe(`cloning ${repo.url} at v1 ...\n`);
    expect(tagged).toMatchObject({ code: 0, stdout: `installed hello-sh 1.0.0 (global) at ${globalDir('hello-sh')}\n` });
    const list = await cli('list');
    expect(list.stdout.split('\n')[0]).toMatch(/^NAME\s+VERSION\s+COMMIT\s+SCOPE/);
    expect(list.stdout).toMatch(new RegExp(`hello-sh\\s+1\\.0\\.0\\s+${first.slice(0, 7)}\\s+global`));
    const json = JSON.parse((await cli('list', '--json')).stdout) as { extensions: { commit: string | null }[] };
    expect(json.extensions[0]!.commit).toBe(first);

    const pinned = await cli('install', repo.url, '--ref', first.slice(0, 10), '--force');
    expect(pinned.code).toBe(0);
    expect(version('hello-sh')).toBe('1.0.0');
    const latest = await cli('install', repo.url, '--force');
    expect(latest.code).toBe(0);
    expect(version('hello-sh')).toBe('2.0.0');

    const missing = await cli('install', repo.url, '--ref', 'v9', '--force');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`cloning ${repo.url} at v9 ...\nzot-ext: error: ${repo.url} has no tag, commit or branch "v9"; nothing was changed\n`);
    expect(version('hello-sh')).toBe('2.0.0');
    const onDir = await cli('install', source('extensions/hello-sh'), '--ref', 'v1');
    expect(onDir.code).toBe(2);
    expect(onDir.stderr).toContain('--ref is for git sources');
  });

  it('update fast-forwards a branch install, follows a pinned tag, and undoes an update that breaks the manifest', async () => {
    const repo = bareRepo();
    const first = repo.commit('1.0.0');
    repo.git('tag', 'stable');
    repo.git('push', '-q', 'origin', 'stable');
    expect((await cli('install', repo.url)).code).toBe(0);
    expect((await cli('install', repo.url, '--ref', 'stable', '--project')).code).toBe(0);

    const same = await cli('update', 'hello-sh', '--global');
    expect(same).toMatchObject({ code: 0, stdout: `hello-sh (global) is up to date at ${first.slice(0, 7)}\n` });
    const second = repo.commit('2.0.0');
    const updated = await cli('update', 'hello-sh', '--global');
    expect(updated.stderr).toBe('');
    expect(updated).toMatchObject({ code: 0, stdout: `updated hello-sh (global): ${first.slice(0, 7)} -> ${second.slice(0, 7)}\n` });
    expect(version('hello-sh')).toBe('2.0.0');

    // The pinned install stays at its tag until the tag moves.
    const project = path.join(sandbox.project, '.zot', 'extensions', 'hello-sh', 'extension.json');
    expect((await cli('update', 'hello-sh', '--project')).stdout).toBe(`hello-sh (project) is up to date at ${first.slice(0, 7)} (stable)\n`);
    repo.git('tag', '-f', 'stable', second);
    repo.git('push', '-q', '-f', 'origin', 'stable');
    const moved = await cli('update', 'hello-sh', '--project');
    expect(moved.stdout).toBe(`updated hello-sh (project): ${first.slice(0, 7)} -> ${second.slice(0, 7)} (stable)\n`);
    expect((readJson(project) as { version: string }).version).toBe('2.0.0');

    // A commit whose manifest is broken is not kept.
    writeFileSync(path.join(sandbox.dir, 'work', 'extension.json'), '{ "name": ');
    repo.git('commit', '-q', '-am', 'broken');
    repo.git('push', '-q', 'origin', 'main');
    const broken = await cli('update', 'hello-sh', '--global');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^zot-ext: error: hello-sh \(global\) at [0-9a-f]{7} is not a valid extension: .*invalid JSON.*; it was put back at [0-9a-f]{7}\n$/);
    expect(version('hello-sh')).toBe('2.0.0');
  });

  it('update without a name updates every git install and skips the others; a directory install is not a git install', async () => {
    const repo = bareRepo();
    repo.commit('1.0.0');
    expect((await cli('install', repo.url)).code).toBe(0);
    expect((await cli('install', source('extensions/weather'))).code).toBe(0);
    const second = repo.commit('1.1.0');

    const all = await cli('update');
    expect(all.code).toBe(0);
    expect(all.stdout).toContain(`updated hello-sh (global): `);
    expect(all.stdout).toContain(` -> ${second.slice(0, 7)}\n`);
    expect(all.stdout).toContain('skipped weather (global): not a git install\n');
    expect(version('hello-sh')).toBe('1.1.0');

    const plain = await cli('update', 'weather');
    expect(plain.code).toBe(1);
    expect(plain.stderr).toBe('zot-ext: error: weather (global) is not a git install (it was copied from a directory); reinstall it with zot-ext install <dir> --force\n');
    // A directory install shows no commit column.
    expect((await cli('remove', 'hello-sh')).code).toBe(0);
    expect((await cli('list')).stdout.split('\n')[0]).not.toContain('COMMIT');
  });
});

describe('dependencies', { timeout: 60_000 }, () => {
  /** hello-sh with a package.json that depends on a local package (a file: path, no registry). */
  function withDependency(): string {
    const dep = path.join(sandbox.dir, 'dep-a');
    mkdirSync(dep);
    writeFileSync(path.join(dep, 'package.json'), JSON.stringify({ name: 'dep-a', version: '1.0.0' }));
    const src = source('extensions/hello-sh');
    writeFileSync(path.join(src, 'package.json'), JSON.stringify({ name: 'hello-sh', version: '1.0.0', dependencies: { 'dep-a': `file:${dep}` } }));
    return src;
  }

  it('install says when dependencies are not installed, and --install-deps installs them in the copy', async () => {
    const src = withDependency();
    const bare = await cli('install', src);
    expect(bare.code).toBe(0);
    expect(bare.stderr).toBe(
      `warning: hello-sh declares dependencies that are not installed (dep-a), so it will fail at start; run zot-ext install ${src} --force --install-deps, or npm install --omit=dev in ${globalDir('hello-sh')}\n`,
    );
    expect(existsSync(path.join(globalDir('hello-sh'), 'node_modules'))).toBe(false);

    const deps = await cli('install', src, '--force', '--install-deps');
    expect(deps.code).toBe(0);
    expect(deps.stderr).toContain('installing the dependencies of hello-sh: npm install --omit=dev\n');
    expect(deps.stderr).not.toContain('warning');
    expect(readJson(path.join(globalDir('hello-sh'), 'node_modules', 'dep-a', 'package.json'))).toMatchObject({ name: 'dep-a' });
    expect(existsSync(src + '/node_modules')).toBe(false); // the source is untouched

    // Installed where it was made, a file: directory dependency is a symlink that leaves the tree (not
    // copied) and is locked as a relative path that npm ci cannot use from the copy: npm install is run.
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund'], { cwd: src, stdio: 'pipe', timeout: 30_000 });
    expect(readJson(path.join(src, 'package-lock.json'))).toMatchObject({ packages: { 'node_modules/dep-a': { link: true } } });
    const linked = await cli('install', src, '--force', '--install-deps');
    expect(linked.code).toBe(0);
    expect(linked.stderr).toContain('warning: skipped node_modules/dep-a: symlink to');
    expect(linked.stderr).toContain('installing the dependencies of hello-sh: npm install --omit=dev\n');
    expect(readJson(path.join(globalDir('hello-sh'), 'node_modules', 'dep-a', 'package.json'))).toMatchObject({ name: 'dep-a' });
  });

  it('a failing npm leaves nothing installed', async () => {
    const src = source('extensions/hello-sh');
    writeFileSync(path.join(src, 'package.json'), JSON.stringify({ name: 'hello-sh', dependencies: { 'dep-a': `file:${path.join(sandbox.dir, 'missing-dep.tgz')}` } }));
    const r = await cli('install', src, '--install-deps');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/zot-ext: error: npm install --omit=dev failed \(exit \d+\): /);
    expect(existsSync(globalDir('hello-sh'))).toBe(false);
  });
});
