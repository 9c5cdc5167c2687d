// `install <git-url>`: a shallow clone with the git command.
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { redactUrl, URL_SCHEME } from '../manifest/remote.js';
import { CliError, CliErrorCode } from './errors.js';

const GIT_SCHEMES = new Set(['file', 'http', 'https', 'git', 'ssh', 'git+ssh', 'ssh+git']);
// user@host:path (scp-like ssh), but not a Windows drive letter.
const SCP_LIKE = /^[\w.-]+@[\w.-]+:(?!\/\/)/;
const MAX_STDERR = 64 * 1024;

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

/**
 * `git clone --depth 1 -- <url> <dest>`, ended after `timeoutMs` (or when `signal` aborts); failures
 * become one line naming git's own message (the URL shown with its credentials masked).
 */
export function gitClone(url: string, dest: string, options: { env: NodeJS.ProcessEnv; signal?: AbortSignal | undefined; timeoutMs: number }): Promise<void> {
  const shown = redactUrl(url);
  const posix = process.platform !== 'win32';
  return new Promise<void>((resolve, reject) => {
    // No credential prompts: a clone that needs them fails instead of hanging. Its own process group
    // (POSIX): ending it takes its helpers (git-remote-https, which holds the stderr pipe) along.
    const child = spawn('git', ['clone', '--depth', '1', '--quiet', '--', url, dest], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...options.env, GIT_TERMINAL_PROMPT: '0' },
      detached: posix,
    });
    let stopped: string | undefined;
    const stop = (why: string) => {
      if (stopped !== undefined || child.pid === undefined) return;
      stopped = why;
      try {
        if (posix) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // already gone
      }
      child.stderr.destroy();
    };
    // Not unref'd: install awaits the clone.
    const timer = setTimeout(() => stop(`git clone ${shown} did not finish within ${options.timeoutMs} ms (--timeout)`), options.timeoutMs);
    const onAbort = () => stop('git clone was interrupted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted === true) onAbort();
    const settled = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR) stderr += chunk;
    });
    child.once('error', (err: NodeJS.ErrnoException) => {
      settled();
      if (err.code === 'ENOENT') {
        reject(new CliError(CliErrorCode.FAILED, 'git was not found on PATH; install git, or install from a local directory', { cause: err }));
      } else reject(new CliError(CliErrorCode.FAILED, `cannot run git: ${err.message}`, { cause: err }));
    });
    child.once('close', (code, signal) => {
      settled();
      if (stopped !== undefined) return reject(new CliError(CliErrorCode.FAILED, `${stopped}; nothing was installed`));
      if (code === 0) return resolve();
      const message = stderr
        .split('\n')
        .map((l) => l.trim())
        .find((l) => l.length > 0);
      const status = signal !== null ? `signal ${signal}` : `exit ${code}`;
      reject(new CliError(CliErrorCode.FAILED, `git clone ${shown} failed (${status}): ${message ?? 'no message'}; check the URL and your access to it`));
    });
  });
}
