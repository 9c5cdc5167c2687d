// Today's extensions: a child process speaking NDJSON over its stdin/stdout, its stderr going
// straight to the per-extension log, stopped as a whole process tree.
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { checkExecutable, resolveExec } from '../manifest/exec.js';
import type { ExtensionLog } from './log.js';
import { type ChildHandle, loadSpawn, spawnChild, spawnProblem } from './child.js';
import { type SandboxLaunch, sandboxedSpawn } from './sandbox.js';
import { StreamTransport, type StreamTransportOptions } from './streams.js';

export interface StdioTransportOptions extends StreamTransportOptions {
  /** The manifest name, in every message. */
  name: string;
  /** The extension directory: the child's cwd, and where a relative `exec` is resolved. */
  dir: string;
  exec: string;
  args?: readonly string[] | undefined;
  /** @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
  /** The extension's log: the child's stderr goes into it. */
  log: ExtensionLog;
  /** The sandbox it runs in (sandbox.ts); undefined or mode `'off'`: none. */
  sandbox?: SandboxLaunch | undefined;
}

export class StdioTransport extends StreamTransport {
  // The options as given, not a copy with closures: the base class keeps them (one field, not two).
  constructor(options: StdioTransportOptions) {
    super(options);
  }

  private get stdio(): StdioTransportOptions {
    return this.options as StdioTransportOptions;
  }

  protected get describe(): string {
    return this.stdio.exec;
  }

  protected override forced(message: string): void {
    void this.stdio.log.write(message);
  }

  /** The spawn function loads on first use (see child.ts). */
  prepare(): Promise<void> {
    return loadSpawn();
  }

  protected async open(): Promise<ChildHandle> {
    const { name, dir, exec, args = [], log } = this.stdio;
    await loadSpawn();
    const { command, onPath } = resolveExec(exec, dir);
    if (!onPath) {
      const problem = await checkExecutable(command);
      if (problem !== undefined) {
        const error = this.error(`cannot start ${name}: ${problem} (exec ${JSON.stringify(exec)} in ${dir}/extension.json)`);
        void log.write(error.message);
        throw error;
      }
    }
    let spawned: { command: string; args: string[]; env: NodeJS.ProcessEnv; cleanup?: (() => void) | undefined } = { command, args: [...args], env: this.stdio.env ?? process.env };
    let started = `start ${name}: ${command} ${args.join(' ')}`.trimEnd();
    const sandbox = this.stdio.sandbox;
    if (sandbox !== undefined && sandbox.policy.mode !== 'off') {
      if (sandbox.backend.kind === 'none') {
        if (sandbox.policy.mode === 'required') {
          const error = new ExtensionHostError(ErrorCode.SANDBOX_UNAVAILABLE, `cannot start ${name}: its sandbox is required but unavailable: ${sandbox.backend.reason ?? 'no backend'} (log: ${log.path})`, { extension: name, logPath: log.path });
          void log.write(error.message);
          throw error;
        }
        started += ` (unsandboxed: sandbox 'auto' but ${sandbox.backend.reason ?? 'no backend'})`;
      } else {
        try {
          spawned = await sandboxedSpawn(sandbox, { command, args, dir, dataDir: sandbox.dataDir, env: spawned.env, name });
        } catch (err) {
          // Its data dir could not be made (the home not writable, a file in the way).
          const error = this.error(`cannot start ${name}: cannot prepare its sandbox (data dir ${sandbox.dataDir}): ${(err as Error).message}`, err);
          void log.write(error.message);
          throw error;
        }
        started += ` (sandbox ${sandbox.backend.kind}, network ${sandbox.policy.network})`;
      }
    }
    let stderr;
    try {
      stderr = await log.openForChild(started);
    } catch (err) {
      throw this.error(`cannot start ${name}: cannot open log file ${log.path}: ${(err as Error).message}`, err);
    }
    try {
      const child = await spawnChild({ command: spawned.command, args: spawned.args, cwd: dir, env: spawned.env, stderrFd: stderr.fd });
      // The sandbox's private temp dir (macOS) goes with the process.
      if (spawned.cleanup !== undefined) child.onExit(spawned.cleanup);
      return child;
    } catch (err) {
      spawned.cleanup?.();
      // spawn() throws for some arguments (a NUL byte, an invalid cwd type), and fails without
      // pipes when the host is out of file descriptors.
      const error = this.error(`cannot start ${name}: ${spawnProblem(err)}`, err);
      void log.write(error.message);
      throw error;
    } finally {
      await stderr.close();
    }
  }

  private error(message: string, cause?: unknown): ExtensionHostError {
    return new ExtensionHostError(ErrorCode.SPAWN_FAILED, message, { extension: this.stdio.name, logPath: this.stdio.log.path, cause });
  }
}
