// `install <git-url>` and `update`: git run as a command; where a git install came from.
import { spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { redactUrl, URL_SCHEME } from '../manifest/remote.js';
import { CliError, CliErrorCode } from './errors.js';

const GIT_SCHEMES = new Set(['file', 'http', 'https', 'git', 'ssh', 'git+ssh', 'ssh+git']);
// user@host:path (scp-like ssh), but not a Windows drive letter.
const SCP_LIKE = /^[\w.-]+@[\w.-]+:(?!\/\/)/;
const MAX_OUTPUT = 64 * 1024;
const COMMIT = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * What `install` was given: a git URL (`file://`, `https://`, `ssh://`, `git@host:path`, or a local
 * bare repository) to clone, or a local directory to copy. Throws a usage error for other URLs.
 */
export async function classifySource(source: string, cwd: string): Promise<{ kind: 'git'; url: string } | { kind: 'path'; path: string }> {
  const scheme = URL_SCHEME.exec(source)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (!GIT_SCHEMES.has(scheme)) {
      throw new CliError(CliErrorCode.USAGE, `cannot install from a ${scheme}:// URL; give a local path or a git URL (https://, ssh://, git://, file://)`);
    }
    return { kind: 'git', url: source };
  }
  if (SCP_LIKE.test(source)) return { kind: 'git', url: source };
  const local = path.resolve(cwd, source);
  const info = await stat(local).catch(() => undefined);
  if (info === undefined) throw new CliError(CliErrorCode.NOT_FOUND, `${local} does not exist; give the extension's directory or a git URL`);
  if (!info.isDirectory()) {
    throw new CliError(CliErrorCode.USAGE, `${local} is not a directory; give the extension's directory (the one with extension.json)`);
  }
  return (await isBareRepository(local)) ? { kind: 'git', url: local } : { kind: 'path', path: local };
}

async function isBareRepository(dir: string): Promise<boolean> {
  const has = (name: string, dirWanted: boolean) =>
    stat(path.join(dir, name)).then(
      (s) => (dirWanted ? s.isDirectory() : s.isFile()),
      () => false,
    );
  const [head, objects, refs, manifest] = await Promise.all([has('HEAD', false), has('objects', true), has('refs', true), has('extension.json', false)]);
  return head && objects && refs && !manifest;
}

export interface ToolOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string | undefined;
  signal?: AbortSignal | undefined;
  /** The process is killed after this. @default 300000 */
  timeoutMs?: number | undefined;
  /** The option that sets `timeoutMs`, named when the deadline ends the tool. @default undefined */
  timeoutOption?: string | undefined;
  /** What the error says was left as it was. @default 'nothing was changed' */
  outcome?: string | undefined;
  /** Called with each chunk of its stderr (npm's progress); else stderr is kept for the error message. */
  onStderr?: ((chunk: string) => void) | undefined;
}

/**
 * Runs `command args` (git or npm) and resolves with its stdout; a failure becomes one CliError line
 * naming `what` and the tool's own first message line. Ended after `timeoutMs` or when `signal`
 * aborts, with its whole process group on POSIX (git's helpers, e.g. git-remote-https, hold the
 * stderr pipe); the timer is not unref'd: the CLI awaits the tool.
 */
export function runTool(command: string, args: readonly string[], what: string, options: ToolOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 300_000;
  const posix = process.platform !== 'win32';
  return new Promise((resolve, reject) => {
    // No credential prompts: a fetch that needs them fails instead of hanging.
    const child = spawn(command, args, {
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...options.env, GIT_TERMINAL_PROMPT: '0' },
      detached: posix,
      shell: command === 'npm' && !posix,
    });
    let stopped: string | undefined;
    const stop = (why: string): void => {
      if (stopped !== undefined || child.pid === undefined) return;
      stopped = why;
      try {
        if (posix) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // already gone
      }
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const timer = setTimeout(() => stop(`did not finish within ${timeoutMs} ms${options.timeoutOption === undefined ? '' : ` (${options.timeoutOption})`}`), timeoutMs);
    const onAbort = (): void => stop('was interrupted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted === true) onAbort();
    const settled = (): void => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      options.onStderr?.(chunk);
      if (stderr.length < MAX_OUTPUT) stderr += chunk;
    });
    child.once('error', (err: NodeJS.ErrnoException) => {
      settled();
      if (err.code === 'ENOENT') {
        reject(new CliError(CliErrorCode.FAILED, `${command} was not found on PATH; install it, or ${command === 'git' ? 'install from a local directory' : 'install the dependencies by hand'}`, { cause: err }));
      } else reject(new CliError(CliErrorCode.FAILED, `cannot run ${command}: ${err.message}`, { cause: err }));
    });
    child.once('close', (code, sig) => {
      settled();
      if (stopped !== undefined) return reject(new CliError(CliErrorCode.FAILED, `${what} ${stopped}; ${options.outcome ?? 'nothing was changed'}`));
      if (code === 0) return resolve(stdout);
      const message = stderr
        .split('\n')
        .map((l) => l.trim())
        .map((l) => l.replace(/^npm error\s*/, ''))
        // npm starts with "npm error code EUSAGE" and blank "npm error" lines: the reason follows.
        .find((l) => l.length > 0 && !l.startsWith('npm warn') && !/^code [A-Z]/.test(l));
      const status = sig !== null ? `signal ${sig}` : `exit ${code}`;
      reject(new CliError(CliErrorCode.FAILED, `${what} failed (${status}): ${message ?? 'no message'}`));
    });
  });
}

const git = (args: readonly string[], what: string, options: ToolOptions) => runTool('git', args, what, options);

/**
 * Clones `url` into `dest`: `--depth 1` of the default branch, or with `ref` (a tag, commit or
 * branch) a full clone checked out, detached, at that ref.
 */
export async function gitClone(url: string, dest: string, ref: string | undefined, options: ToolOptions): Promise<void> {
  const what = `git clone ${redactUrl(url)}`;
  if (ref === undefined) {
    await git(['clone', '--depth', '1', '--quiet', '--', url, dest], what, options).catch(withHint('check the URL and your access to it'));
    return;
  }
  await git(['clone', '--quiet', '--no-checkout', '--', url, dest], what, options).catch(withHint('check the URL and your access to it'));
  await checkoutRef(dest, ref, url, options);
}

function withHint(hint: string): (err: unknown) => never {
  return (err) => {
    if (err instanceof CliError && err.message.includes(' failed (')) throw new CliError(err.code, `${err.message}; ${hint}`, { cause: err.cause });
    throw err;
  };
}

/** Checks out `ref` (a tag, commit or remote branch of origin) detached; returns the commit. */
async function checkoutRef(dir: string, ref: string, url: string, options: ToolOptions): Promise<string> {
  const at = { ...options, cwd: dir };
  let commit: string | undefined;
  for (const candidate of [ref, `origin/${ref}`]) {
    commit = (await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${candidate}^{commit}`], 'git rev-parse', at).catch(() => '')).trim();
    if (commit !== '') break;
  }
  if (commit === undefined || commit === '') {
    throw new CliError(CliErrorCode.NOT_FOUND, `${redactUrl(url)} has no tag, commit or branch ${JSON.stringify(ref)}; nothing was changed`);
  }
  await git(['-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', commit], `git checkout ${ref}`, at);
  return commit;
}

// Where a git install came from, kept in the installed copy's own .git/config.
const SOURCE_KEY = 'zot-ext.source';
const REF_KEY = 'zot-ext.ref';

/** Marks `dir` (a clone) as a git install of `url`, pinned to `ref` when given, for `update`. */
export async function recordSource(dir: string, url: string, ref: string | undefined, options: ToolOptions): Promise<void> {
  const at = { ...options, cwd: dir };
  await git(['config', SOURCE_KEY, url], 'git config', at);
  if (ref !== undefined) await git(['config', REF_KEY, ref], 'git config', at);
}

export interface GitInstall {
  url: string;
  /** The pinned tag or commit (`install --ref`); undefined: the branch that was cloned. */
  ref: string | undefined;
}

/** The source `install` recorded in `dir`, or undefined when it is not a git install. */
export async function readSource(dir: string, options: ToolOptions): Promise<GitInstall | undefined> {
  if (!(await stat(path.join(dir, '.git')).then((s) => s.isDirectory(), () => false))) return undefined;
  const at = { ...options, cwd: dir };
  const get = (key: string) => git(['config', '--get', key], 'git config', at).then((v) => v.trim() || undefined, () => undefined);
  const url = await get(SOURCE_KEY);
  return url === undefined ? undefined : { url, ref: await get(REF_KEY) };
}

/**
 * Brings a git install up to date: fetch, then the pinned ref checked out again (a moved tag is
 * followed) or the branch fast-forwarded. Returns the commits before and after.
 */
export async function gitUpdate(dir: string, source: GitInstall, options: ToolOptions): Promise<{ before: string; after: string }> {
  const at = { ...options, cwd: dir };
  const head = async () => (await git(['rev-parse', 'HEAD'], 'git rev-parse', at)).trim();
  const before = await head();
  if (source.ref !== undefined) {
    await git(['fetch', '--quiet', '--tags', '--force', 'origin'], `git fetch ${redactUrl(source.url)}`, at);
    return { before, after: await checkoutRef(dir, source.ref, source.url, options) };
  }
  await git(['fetch', '--quiet', 'origin'], `git fetch ${redactUrl(source.url)}`, at);
  await git(['merge', '--ff-only', '--quiet', '@{upstream}'], 'git merge --ff-only', at).catch(
    withHint(`the installed copy cannot be fast-forwarded; reinstall it with zot-ext install ${redactUrl(source.url)} --force`),
  );
  return { before, after: await head() };
}

/** Undoes gitUpdate: back to `commit`. */
export async function gitReset(dir: string, commit: string, options: ToolOptions): Promise<void> {
  await git(['reset', '--hard', '--quiet', commit], 'git reset', { ...options, cwd: dir });
}

/** The commit checked out in `dir`'s own `.git` (read from its files, without git), if any. */
export async function headCommit(dir: string): Promise<string | undefined> {
  const gitDir = path.join(dir, '.git');
  const head = (await readFile(path.join(gitDir, 'HEAD'), 'utf8').catch(() => undefined))?.trim();
  if (head === undefined) return undefined;
  if (!head.startsWith('ref: ')) return COMMIT.test(head) ? head : undefined;
  const ref = head.slice('ref: '.length);
  if (!ref.startsWith('refs/') || ref.split('/').includes('..')) return undefined;
  const loose = (await readFile(path.join(gitDir, ref), 'utf8').catch(() => undefined))?.trim();
  if (loose !== undefined) return COMMIT.test(loose) ? loose : undefined;
  const packed = await readFile(path.join(gitDir, 'packed-refs'), 'utf8').catch(() => '');
  const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
  const sha = line?.split(' ')[0];
  return sha !== undefined && COMMIT.test(sha) ? sha : undefined;
}
