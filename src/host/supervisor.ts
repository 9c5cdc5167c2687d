// The restart policy of one extension: whether a crash is restarted, after what delay, and when the
// window's budget is spent. It owns at most one timer; the host does the respawn.
import type { RestartPolicy } from './restart-policy.js';
import { monotonicMs } from '../clock.js';

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
