// One extension's lifecycle: a guarded state value with one table of allowed transitions. Handlers
// ask `can()` / `state`, never a set of booleans; every transition goes through `moveTo()` and is
// reported to one callback (the host emits it as `extension:state`).
import type { ExtensionState } from './types.js';

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
  private current: ExtensionState = 'starting';

  /** `onChange` runs with the state machine as `this` (a subclass's shared function needs no closure per extension). */
  constructor(
    private readonly extension: string,
    private readonly onChange: (change: StateChange) => void,
  ) {}

  get state(): ExtensionState {
    return this.current;
  }

  can(to: ExtensionState): boolean {
    return canMove(this.current, to);
  }

  /** Moves to `to` and reports it; throws IllegalTransitionError (and changes nothing) when the table refuses. */
  moveTo(to: ExtensionState, reason?: string): void {
    const from = this.current;
    if (!canMove(from, to)) throw new IllegalTransitionError(this.extension, from, to);
    this.current = to;
    this.onChange.call(this, { from, to, reason });
  }
}
