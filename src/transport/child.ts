import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { descendantsOf, type ProcessRef, signalDescendants, stillRunning } from './descendants.js';

type Spawn = typeof import('node:child_process').spawn;
let spawn: Spawn | undefined;

/**
 * Loads the spawn function, once: call before spawnChild(). On Windows it is cross-spawn (PATHEXT,
 * shebangs, cmd.exe quoting, ENOENT for a missing command); on POSIX cross-spawn only forwards to
 * child_process.spawn, so that is used directly and cross-spawn (~3 MB of RSS, ~15 ms) never loads.
 * Loaded on first use, so that importing the package does not pay for it.
 */
export async function loadSpawn(): Promise<void> {
  spawn ??= process.platform === 'win32' ? ((await import('cross-spawn')).default as Spawn) : (await import('node:child_process')).spawn;
}

/** What the extension process layer needs from a child: pipes, a pid, signals and an exit. */
export interface ChildHandle {
  readonly pid: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** The child's stderr, when it was spawned with `stderrFd: 'pipe'`. */
  readonly stderr?: Readable | undefined;
  /**
   * Signals the whole process tree: the process group on POSIX, and the descendants that left it
   * (setsid) found so far. Never throws.
   */
  kill(signal: NodeJS.Signals): void;
  /** Looks for descendants that left the process group, while the extension still lives (call before a graceful stop). */
  findDescendants?(): void;
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  onError(listener: (error: Error) => void): void;
  /** Like onError() and onExit() with `watcher`'s methods: no closure per child. Optional. */
  watch?(watcher: ChildWatcher): void;
  /** Resolves once no process of the tree is left (polls the process group), or after `ms`. */
  treeGone?(ms: number): Promise<void>;
}

/** What ChildHandle.watch() reports to. */
export interface ChildWatcher {
  childFailed(error: Error): void;
  childExited(code: number | null, signal: NodeJS.Signals | null): void;
}

const POSIX = process.platform !== 'win32';

// Process groups still alive, so that a host process that exits without stop() takes them along.
const liveGroups = new Set<number>();
let exitHookInstalled = false;
function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const group of liveGroups) signalGroup(group, 'SIGKILL');
    });
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(POSIX ? -pid : pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

export interface SpawnChildOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Where the child's stderr goes: a file descriptor (the log), or a pipe the caller reads (`zot-ext serve`). */
  stderrFd: number | 'pipe';
}

/** How long a spawn that failed before creating its pipes may take to report why. */
const SPAWN_ERROR_WAIT_MS = 1000;

/**
 * Starts an extension as the leader of its own process group (POSIX), so that shutdown reaches
 * grandchildren (`npx` -> `node`, `sh` -> `sleep`). stderr goes straight to the log file. Rejects
 * with the spawn error (its `code` the errno, e.g. EMFILE) when no process could be started.
 */
export async function spawnChild(options: SpawnChildOptions): Promise<ChildHandle> {
  if (spawn === undefined) throw new Error('spawnChild() before loadSpawn()');
  const child: ChildProcess = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', options.stderrFd],
    detached: POSIX,
    windowsHide: true,
  });
  const pid = child.pid;
  if (pid !== undefined && POSIX) trackGroup(pid);
  const handle = new SpawnedChild(child);
  if (child.stdin == null || child.stdout == null) {
    // spawn() failed before the pipes existed (EMFILE, ENFILE, EAGAIN): its error follows in a tick.
    throw await new Promise<Error>((resolve) => {
      handle.onError(resolve);
      // Not unref'd: the caller awaits this, and no pipe is left to keep Node alive meanwhile.
      setTimeout(() => resolve(new Error('spawn failed without reporting why')), SPAWN_ERROR_WAIT_MS);
    });
  }
  return handle;
}

type ExitListener = (code: number | null, signal: NodeJS.Signals | null) => void;

const HANDLE = Symbol('SpawnedChild');
type TaggedChild = ChildProcess & { [HANDLE]: SpawnedChild };
function onChildExit(this: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
  (this as TaggedChild)[HANDLE].exited(code, signal);
}
function onChildError(this: ChildProcess, error: Error): void {
  (this as TaggedChild)[HANDLE].failed(error);
}

const NO_LISTENERS: readonly never[] = [];
function listed<F extends (...args: never[]) => void>(listeners: F | F[] | undefined): readonly F[] {
  return listeners === undefined ? NO_LISTENERS : typeof listeners === 'function' ? [listeners] : listeners;
}
function added<F extends (...args: never[]) => void>(listeners: F | F[] | undefined, listener: F): F | F[] {
  return listeners === undefined ? listener : typeof listeners === 'function' ? [listeners, listener] : [...listeners, listener];
}

/** A spawned child as a ChildHandle: one object with prototype methods (it lives as long as the extension). */
class SpawnedChild implements ChildHandle {
  // Listeners are attached by the caller a few ticks later: remember what happened until then.
  private exitStatus: [number | null, NodeJS.Signals | null] | undefined;
  private spawnError: Error | undefined;
  // One listener each is the usual case: an array only for more.
  private exitListeners: ExitListener | ExitListener[] | undefined;
  private errorListeners: ((error: Error) => void) | ((error: Error) => void)[] | undefined;
  private watcher: ChildWatcher | undefined;
  /** Descendants found while the leader lived (after it exits they are reparented): some may leave the group. */
  private strays: ProcessRef[] | undefined;

  constructor(private readonly child: ChildProcess) {
    // Shared listeners that find this handle on the child (which only it uses), not two closures
    // per child; on(), not once(): 'exit' is emitted once, and once() wraps the listener in two more objects.
    (child as TaggedChild)[HANDLE] = this;
    child.on('exit', onChildExit);
    child.on('error', onChildError);
  }

  // The child's own fields, not copies of them.
  get pid(): number | undefined {
    return this.child.pid;
  }

  get stdin(): Writable {
    return this.child.stdin!;
  }

  get stdout(): Readable {
    return this.child.stdout!;
  }

  get stderr(): Readable | undefined {
    return this.child.stderr ?? undefined;
  }

  /** The child's 'exit'. */
  exited(code: number | null, signal: NodeJS.Signals | null): void {
    this.exitStatus = [code, signal];
    this.watcher?.childExited(code, signal);
    for (const listener of listed(this.exitListeners)) listener(code, signal);
  }

  /** The child's 'error'. */
  failed(error: Error): void {
    this.spawnError = error;
    this.watcher?.childFailed(error);
    for (const listener of listed(this.errorListeners)) listener(error);
  }

  findDescendants(): void {
    const pid = this.pid;
    if (pid === undefined || this.exitStatus !== undefined) return;
    const strays = (this.strays ??= []);
    for (const ref of descendantsOf(pid)) if (!strays.some((s) => s.pid === ref.pid && s.start === ref.start)) strays.push(ref);
  }

  kill(signal: NodeJS.Signals): void {
    const pid = this.pid;
    if (pid === undefined) return;
    if (POSIX) {
      this.findDescendants();
      signalDescendants(this.strays ?? [], pid, signal);
      // The group outlives its leader when grandchildren remain: signal it even after exit.
      signalGroup(pid, signal);
      if (this.exitStatus !== undefined && signal === 'SIGKILL') liveGroups.delete(pid);
    } else if (this.exitStatus === undefined) {
      this.child.kill(signal);
    }
  }

  onExit(listener: ExitListener): void {
    if (this.exitStatus !== undefined) listener(...this.exitStatus);
    else this.exitListeners = added(this.exitListeners, listener);
  }

  onError(listener: (error: Error) => void): void {
    if (this.spawnError !== undefined) listener(this.spawnError);
    this.errorListeners = added(this.errorListeners, listener);
  }

  watch(watcher: ChildWatcher): void {
    this.watcher = watcher;
    if (this.spawnError !== undefined) watcher.childFailed(this.spawnError);
    if (this.exitStatus !== undefined) watcher.childExited(...this.exitStatus);
  }

  async treeGone(ms: number): Promise<void> {
    const pid = this.pid;
    if (pid === undefined || !POSIX) return;
    const deadline = Date.now() + ms;
    while ((groupExists(pid) || (this.strays = (this.strays ?? []).filter(stillRunning)).length > 0) && Date.now() < deadline) {
      // Not unref'd: stop() awaits this, and with the pipes closed the poll may be all that keeps
      // Node alive until stop() resolves (it is bounded by `ms`).
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

function groupExists(pid: number): boolean {
  try {
    process.kill(-pid, 0);
  } catch {
    return false;
  }
  return process.platform !== 'linux' || liveMemberOnLinux(pid);
}

// kill(-pgid, 0) also succeeds for zombies that nobody reaps yet (a container's PID 1 may never do
// it): on Linux, only a member that is not a zombie counts.
function liveMemberOnLinux(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    const c = entry.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[0] = state, fields[2] = pgrp
      if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
    } catch {
      // gone while we looked
    }
  }
  return false;
}

/** A spawn error as a person reads it: the errno named, with what to do about the common ones. */
export function spawnProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'EMFILE' || code === 'ENFILE') return `${message}: too many open files (${code}); raise the limit (ulimit -n) or load fewer extensions`;
  if (code === 'EAGAIN') return `${message}: out of processes (EAGAIN)`;
  return message;
}
