// Today's extensions: a child process speaking NDJSON over its stdin/stdout, its stderr going
// straight to the per-extension log, stopped as a whole process tree.
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { checkExecutable, resolveExec } from '../manifest/exec.js';
import type { ExtensionLog } from './log.js';
import { type ChildHandle, loadSpawn, spawnChild, spawnProblem } from './child.js';
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
    let stderr;
    try {
      stderr = await log.openForChild(`start ${name}: ${command} ${args.join(' ')}`.trimEnd());
    } catch (err) {
      throw this.error(`cannot start ${name}: cannot open log file ${log.path}: ${(err as Error).message}`, err);
    }
    try {
      return await spawnChild({ command, args, cwd: dir, env: this.stdio.env ?? process.env, stderrFd: stderr.fd });
    } catch (err) {
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
