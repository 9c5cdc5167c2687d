// One extension's life: its state machine (one table of allowed transitions), readiness, the end
// of a process (exit, crash), the late join of one slow to say hello, and restarts (the supervisor's
// policy and timer, host.restart()). The respawn itself is the loader's (ctx.respawn).
import { monotonicMs } from '../clock.js';
import { ErrorCode, ExtensionHostError } from '../errors.js';
import type { ExitInfo } from '../process/extension-process.js';
import type { ExtensionSlot, ExtensionSpec, HostContext, LoadedExtension } from './context.js';
import { describeValue } from './options.js';
import { closePanelsOf } from './panels.js';
import { announceIfChanged, carryOver, commandsChangedSoon, dropCarried, dropNotRegisteredAgain, removeRegistrations, toolsChangedSoon } from './registrations.js';
import { removeInterceptor } from './interceptors.js';
import type { ExtensionState, HostEvents, ReadyVia, RestartPolicy } from './types.js';

// ---------------------------------------------------------------------------------------------
// The state machine: a guarded state value with one table of allowed transitions. Handlers ask
// `can()` / `state`, never a set of booleans; every transition goes through `moveTo()` and is
// reported to one callback (the host emits it as `extension:state`).
// ---------------------------------------------------------------------------------------------

/**
 * Where each state may go. `restarting` is the supervisor's (a crash with a restart policy on, or
 * `host.restart()`): it waits out the backoff and goes back to `starting`.
 * - starting -> ready (handshake done), failed (no/bad hello, crash while starting, restart limit),
 *   restarting (crash while starting with a policy on, or a manual restart), stopped.
 * - ready -> exited (crash, policy off: dead until reload), failed (crash past the restart limit),
 *   restarting, stopped.
 * - failed / exited -> restarting (a manual restart) only: stop() leaves a down extension as it is.
 * - stopped is final (start() and reload() build new ones).
 */
export const TRANSITIONS = {
  starting: ['ready', 'failed', 'restarting', 'stopped'],
  ready: ['exited', 'failed', 'restarting', 'stopped'],
  restarting: ['starting', 'stopped'],
  failed: ['restarting'],
  exited: ['restarting'],
  stopped: [],
} as const satisfies { readonly [S in ExtensionState]: readonly ExtensionState[] };

/** Every state, in table order (`satisfies` makes the table's keys exactly `ExtensionState`). */
export const STATES = Object.keys(TRANSITIONS) as ExtensionState[];

export function canMove(from: ExtensionState, to: ExtensionState): boolean {
  return (TRANSITIONS[from] as readonly ExtensionState[]).includes(to);
}

/**
 * A transition the table refuses. Internal: it means a host bug, never bad input, so the host never
 * catches it. Where a move can race (an exit after stop(), a `ready` after a failure) the host asks
 * `can()` first and drops the move.
 */
export class IllegalTransitionError extends Error {
  override readonly name = 'IllegalTransitionError';
  constructor(
    readonly extension: string,
    readonly from: ExtensionState,
    readonly to: ExtensionState,
  ) {
    super(`${extension}: illegal lifecycle transition ${from} -> ${to}`);
  }
}

/** One transition, as the callback gets it. */
export interface StateChange {
  from: ExtensionState;
  to: ExtensionState;
  /** Why, in a few words (`crashed`, `restart limit`, `manual restart`, ...), when the caller says. */
  reason: string | undefined;
}

export class Lifecycle {
  /** The current state; moveTo() is its only writer. */
  state: ExtensionState = 'starting';

  constructor(
    private readonly extension: string,
    private readonly onChange: (change: StateChange) => void,
  ) {}

  can(to: ExtensionState): boolean {
    return canMove(this.state, to);
  }

  /** Moves to `to` and reports it; throws IllegalTransitionError (and changes nothing) when the table refuses. */
  moveTo(to: ExtensionState, reason?: string): void {
    const from = this.state;
    if (!canMove(from, to)) throw new IllegalTransitionError(this.extension, from, to);
    this.state = to;
    this.onChange({ from, to, reason });
  }
}

/** A new extension's slot: its state machine (reporting to the host) and its supervisor. */
export function newSlot(ctx: HostContext, spec: ExtensionSpec): ExtensionSlot {
  const supervisor = new Supervisor(resolveRestartPolicy(ctx.options.restart));
  const lifecycle = new Lifecycle(spec.name, (change) => stateChanged(ctx, spec.name, supervisor, change));
  return { spec, lifecycle, supervisor, carry: undefined, trust: 'exempt' };
}

/** Every lifecycle transition of extension `name` (its Lifecycle's callback): the 'extension:state' event. */
function stateChanged(ctx: HostContext, name: string, supervisor: Supervisor, c: StateChange): void {
  const change: HostEvents['extension:state'][0] = { name, state: c.to, previous: c.from };
  if (c.reason !== undefined) change.reason = c.reason;
  if (c.to === 'restarting' || supervisor.restarts > 0) change.restarts = supervisor.restarts;
  ctx.out.emit('extension:state', change);
}

/** `ext` is ready (by its `ready` frame, the idle rule or the grace); a no-op unless it is starting and said hello. */
export function becomeReady(ctx: HostContext, ext: LoadedExtension, via: ReadyVia): void {
  const carried = ext.carried;
  if (!ext.canBecomeReady) return;
  // A restart attempt: the registries are settled before anyone hears it is ready.
  if (carried !== undefined) dropNotRegisteredAgain(ctx, ext, carried);
  ext.markReady(via, carried !== undefined ? 'restart' : undefined);
  ext.process.logLine(`ready (${via}) after ${ext.readyMs} ms`);
  if (carried !== undefined) return announceIfChanged(ctx, ext, carried);
  // A late joiner (start() went on without it): its registrations are announced now.
  if (ctx.status === 'running') {
    if (ext.tools.size > 0) toolsChangedSoon(ctx);
    if (ext.commands.size > 0) commandsChangedSoon(ctx);
  }
}

/**
 * The handler of an extension's exit. Under a restart policy restartAfterCrash takes a crash over;
 * otherwise dead until reload (the spec): it is `exited` (or `failed` while starting), its commands,
 * tools, interceptor and panels go, and 'extension:exit' and one warning say why.
 */
export function onExtensionExit(ctx: HostContext, ext: LoadedExtension, info: ExitInfo): void {
  // A retired process was given up for a restart: its end is expected.
  if (ctx.byName.get(ext.name) !== ext || ext.retired || ext.state === 'stopped') return;
  const exit = { name: ext.name, code: info.code, signal: info.signal, reason: info.reason };
  if (ext.state === 'starting' && !ext.process.saidHello) {
    ctx.out.emit('extension:exit', exit); // startExtension reports the failure
    return;
  }
  const status = info.signal !== null ? `signal ${info.signal}` : `code ${info.code}`;
  const why = info.reason === 'exited' ? (info.status ?? `exited with ${status}`) : info.reason === 'stdout_closed' ? 'closed its stdout' : info.reason === 'frame_too_large' ? 'sent an oversized frame' : info.reason === 'stdin_blocked' ? 'stopped reading its stdin' : 'stopped';
  if (restartAfterCrash(ctx, ext, { why, exitCode: info.code, signal: info.signal })) {
    ctx.out.emit('extension:exit', exit);
    return;
  }
  const error = new ExtensionHostError(ErrorCode.PROCESS_EXITED, `${ext.name} ${why}; its commands and tools were removed; see ${ext.logPath}`, { extension: ext.name, logPath: ext.logPath, exitCode: info.code, signal: info.signal });
  dropCarried(ctx, ext);
  ext.end(ext.state === 'starting' ? 'failed' : 'exited', error);
  removeRegistrations(ctx, ext);
  closePanelsOf(ctx, ext);
  ctx.out.emit('extension:exit', exit);
  ctx.out.warn({ message: error.message, extension: ext.name, logPath: ext.logPath, code: error.code, error });
}

// ---------------------------------------------------------------------------------------------
// Late join. zot has no hello deadline; launchers on a cold cache (`npx -y tsx`) can take seconds.
// start() waits for hello only up to `timeouts.hello`: an extension still silent then is left
// `starting` and joins later, up to `timeouts.helloJoin` (the process layer's hello deadline).
// ---------------------------------------------------------------------------------------------

/**
 * Resolves when `started` does, or, when `helloJoinMs` is longer than `helloMs`, at `helloMs` if the
 * extension has not said hello by then (`onLate` is called; `started` goes on in the background).
 * `started` must never reject.
 */
export function startBound(started: Promise<void>, saidHello: () => boolean, helloMs: number, helloJoinMs: number, onLate: () => void): Promise<void> {
  if (helloJoinMs <= helloMs) return started;
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      if (saidHello()) return;
      onLate();
      resolve();
    }, helloMs);
    void started.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The process layer's hello deadline: the longer of the two. */
export function processHelloTimeout(helloMs: number, helloJoinMs: number): number {
  return Math.max(helloMs, helloJoinMs);
}

// ---------------------------------------------------------------------------------------------
// The restart policy of one extension: whether a crash is restarted, after what delay, and when the
// window's budget is spent. It owns at most one timer; the host does the respawn.
// ---------------------------------------------------------------------------------------------

/** Time for the supervisor; injectable so tests run without real time. */
export interface Clock {
  /** Monotonic ms. */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: monotonicMs,
  // unref'd: a pending restart never keeps the embedding process alive.
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export type ResolvedRestartPolicy = Readonly<{ maxRestarts: number; windowMs: number; backoffMs: readonly number[]; jitter: number }>;

export const DEFAULT_RESTART_POLICY: ResolvedRestartPolicy = { maxRestarts: 3, windowMs: 180_000, backoffMs: [250, 1000, 4000], jitter: 0.2 };

/** The option as the host uses it: undefined = off. Expects a validated option (options.ts). */
export function resolveRestartPolicy(option: RestartPolicy | boolean | undefined): ResolvedRestartPolicy | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return DEFAULT_RESTART_POLICY;
  const d = DEFAULT_RESTART_POLICY;
  return {
    maxRestarts: option.maxRestarts ?? d.maxRestarts,
    windowMs: option.windowMs ?? d.windowMs,
    backoffMs: [...(option.backoffMs ?? d.backoffMs)],
    jitter: option.jitter ?? d.jitter,
  };
}

/** What to do about one crash. `attempt` counts the restarts in the window, this one included. */
export type CrashDecision =
  | { restart: true; delayMs: number; attempt: number }
  | { restart: false; why: 'off' | 'limit'; recent: number };

/** The empty window of every supervisor that saw no crash (never written: crashed() makes its own). */
const NONE: number[] = [];

export class Supervisor {
  /** Times of the automatic restarts still in the window, oldest first; never more than maxRestarts. */
  private recent: number[] = NONE;
  private timer: unknown;
  private pending = false;
  /** Restarts begun (automatic and manual) since this extension was loaded. */
  restarts = 0;

  constructor(
    readonly policy: ResolvedRestartPolicy | undefined,
    private readonly clock: Clock = systemClock,
    private readonly random: () => number = Math.random,
  ) {}

  /** Records a crash and decides; a restart is not scheduled here (see `schedule`). */
  crashed(): CrashDecision {
    const policy = this.policy;
    if (policy === undefined) return { restart: false, why: 'off', recent: 0 };
    const now = this.clock.now();
    while (this.recent.length > 0 && this.recent[0]! <= now - policy.windowMs) this.recent.shift();
    if (this.recent.length >= policy.maxRestarts) return { restart: false, why: 'limit', recent: this.recent.length };
    const step = policy.backoffMs[Math.min(this.recent.length, policy.backoffMs.length - 1)]!;
    if (this.recent === NONE) this.recent = [];
    this.recent.push(now);
    return { restart: true, delayMs: Math.round(step * (1 + policy.jitter * this.random())), attempt: this.recent.length };
  }

  /** Runs `respawn` after `delayMs` (replacing a restart already waiting); counts it when it runs. */
  schedule(respawn: () => void, delayMs: number): void {
    this.cancel();
    this.pending = true;
    this.timer = this.clock.setTimeout(() => {
      this.pending = false;
      this.timer = undefined;
      this.restarts++;
      respawn();
    }, delayMs);
  }

  /** Whether a restart waits for its delay. */
  get waiting(): boolean {
    return this.pending;
  }

  /** Drops a waiting restart; true when there was one. */
  cancel(): boolean {
    if (!this.pending) return false;
    this.clock.clearTimeout(this.timer);
    this.pending = false;
    this.timer = undefined;
    return true;
  }

  /**
   * `host.restart()`: counted in `restarts` but not in the window, and it starts a fresh window (the
   * person restarting has presumably fixed something; an old crash run must not end the new one).
   * A restart waiting for its delay is dropped: the manual one replaces it.
   */
  manual(): void {
    this.cancel();
    this.recent = NONE;
    this.restarts++;
  }
}

// ---------------------------------------------------------------------------------------------
// Restarts: a crash under the `restart` policy, the end of the budget, a failed restart attempt, and
// host.restart(). The supervisor decides and keeps the timer; registrations.ts carries the
// registrations over; the respawn itself is the loader's (ctx.respawn).
// ---------------------------------------------------------------------------------------------

/** How a process ended, for the messages. */
export interface Crash {
  /** `exited with code 3`, `closed its stdout`, ... */
  why: string;
  exitCode?: number | null | undefined;
  signal?: NodeJS.Signals | null | undefined;
  cause?: unknown;
}

/**
 * `ext` crashed (exited without being stopped). Under a restart policy, an extension that has been
 * ready since it was loaded (or a restart attempt of one, also before hello) goes `restarting` and is
 * respawned after the backoff, or, past the limit, `failed` with one RESTART_LIMIT diagnostic. Returns
 * false when the policy does not apply (off, or it never got ready: a load error start() reports);
 * the caller then ends it as before.
 */
function restartAfterCrash(ctx: HostContext, ext: LoadedExtension, crash: Crash): boolean {
  const { supervisor, lifecycle } = ext.slot;
  const policy = supervisor.policy;
  if (policy === undefined || (ext.state !== 'ready' && ext.carried === undefined)) return false;
  const decision = supervisor.crashed();
  const errorOptions = { extension: ext.name, logPath: ext.logPath, exitCode: crash.exitCode, signal: crash.signal, cause: crash.cause };
  if (!decision.restart) {
    const message = `${ext.name} ${crash.why}; it was restarted ${decision.recent} times within ${policy.windowMs} ms, the limit: it stays down until host.restart() or reload(); its commands and tools were removed; see ${ext.logPath}`;
    const error = new ExtensionHostError(ErrorCode.PROCESS_EXITED, message, errorOptions);
    dropCarried(ctx, ext);
    ext.end('failed', error, 'restart limit');
    removeRegistrations(ctx, ext);
    closePanelsOf(ctx, ext);
    ctx.diagnostics.diagnose({ code: 'RESTART_LIMIT', message, extension: ext.name, severity: 'error' });
    ctx.out.warn({ message, extension: ext.name, logPath: ext.logPath, code: 'RESTART_LIMIT', error });
    return true;
  }
  const message = `${ext.name} ${crash.why}; restart ${decision.attempt} of ${policy.maxRestarts} within ${policy.windowMs} ms in ${decision.delayMs} ms; see ${ext.logPath}`;
  const error = new ExtensionHostError(ErrorCode.PROCESS_EXITED, message, errorOptions);
  leave(ctx, ext, error);
  lifecycle.moveTo('restarting', 'crashed');
  ext.process.logLine(`restarting in ${decision.delayMs} ms (restart ${decision.attempt} of ${policy.maxRestarts} within ${policy.windowMs} ms)`);
  supervisor.schedule(() => {
    // stop() or reload() cancel the timer; a manual restart replaces it.
    if (ctx.byName.get(ext.name) === ext && ext.state === 'restarting' && (ctx.status === 'running' || ctx.status === 'starting')) void ctx.respawn(ext, 'restart').started;
  }, decision.delayMs);
  ctx.out.warn({ message, extension: ext.name, logPath: ext.logPath, code: error.code, error });
  return true;
}

/** `ext`'s process is given up for a restart: what it carried is kept, what needs the process goes. */
function leave(ctx: HostContext, ext: LoadedExtension, error: ExtensionHostError | undefined): void {
  carryOver(ctx, ext);
  ext.flushDiagnostics();
  ext.retire();
  if (error !== undefined) ext.error = error;
  removeInterceptor(ctx, ext);
  closePanelsOf(ctx, ext);
}

/**
 * A restart attempt failed to start (spawn failure, bad hello, hello timeout, or a crash before
 * hello): a crash before hello is one more crash for the policy; anything else leaves it `failed`
 * with the registrations it carried removed. Returns false for an extension's first start.
 */
export function restartAttemptFailed(ctx: HostContext, ext: LoadedExtension, error: ExtensionHostError): boolean {
  if (ext.carried === undefined) return false;
  if (error.code === ErrorCode.EXITED_BEFORE_HELLO && restartAfterCrash(ctx, ext, { why: 'exited before hello', exitCode: error.exitCode, signal: error.signal, cause: error })) return true;
  dropCarried(ctx, ext);
  ext.end('failed', error);
  removeRegistrations(ctx, ext);
  ctx.out.warn({ message: `failed to restart ${ext.name}: ${error.message}`, extension: ext.name, logPath: ext.logPath, code: error.code, error });
  return true;
}

/**
 * host.restart(name): whatever its state and whether a policy is on. The running process (if any) is
 * shut down as stop() does, then a new one starts at once (no backoff). Not counted in the policy's
 * window, and it starts a fresh window. Resolves when the new process is ready; rejects with its
 * start error, NOT_STARTED when the host stops meanwhile, RESTARTING when another restart replaced it.
 */
export async function restartByHand(ctx: HostContext, name: string): Promise<void> {
  if (typeof name !== 'string') throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `restart: the name must be a string, got ${describeValue(name)}`);
  if (ctx.status !== 'running') throw new ExtensionHostError(ErrorCode.NOT_STARTED, `restart(${JSON.stringify(name)}): the host is ${ctx.status === 'idle' ? 'not started' : ctx.status}`);
  const ext = ctx.byName.get(name);
  if (ext === undefined) throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `restart: no extension named ${JSON.stringify(name)}`);
  ext.slot.supervisor.manual();
  if (ext.state !== 'restarting') {
    leave(ctx, ext, undefined);
    ext.slot.lifecycle.moveTo('restarting', 'manual restart');
    ext.process.logLine('restarting by host.restart()');
    await ext.process.stop();
    if (ctx.status !== 'running') throw new ExtensionHostError(ErrorCode.NOT_STARTED, `restart(${JSON.stringify(name)}): the host stopped`, { extension: name });
    // Read through the slot: the state may have moved while the process stopped.
    if (ctx.byName.get(name) !== ext || ext.slot.lifecycle.state !== 'restarting') throw superseded(ext);
  }
  const { ext: next, started } = ctx.respawn(ext, 'manual restart');
  await started;
  if (next.state === 'ready') return;
  if (ctx.status !== 'running' || next.state === 'stopped') throw new ExtensionHostError(ErrorCode.NOT_STARTED, `restart(${JSON.stringify(name)}): the host stopped`, { extension: name });
  // Failed, or crashed (a policy may restart it again); without an error another restart took over.
  throw next.error ?? superseded(next);
}

function superseded(ext: LoadedExtension): ExtensionHostError {
  return new ExtensionHostError(ErrorCode.RESTARTING, `restart(${JSON.stringify(ext.name)}): another restart of it took over`, { extension: ext.name, logPath: ext.logPath });
}
