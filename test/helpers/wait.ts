// Waits shared by every test folder: they resolve on the event itself and fail after a deadline.
// Polling is only for state that announces itself through no event.
import type { ExtensionHost } from '../../src/host/host.js';
import type { HostEvents } from '../../src/host/types.js';

/** How long any wait on a real extension process (or a host over them) may take before it fails the test. */
export const WAIT_MS = 5000;

/** How long a wait on an in-memory extension (no process to start, nothing to schedule) may take. */
export const MEMORY_WAIT_MS = 2000;

/** How long a wait on an extension subprocess started through a slow launcher (tsx, a shim) may take. */
export const SPAWN_WAIT_MS = 8000;

/**
 * Resolves with the first value `subscribe` hands to its callback (also when it hands one over
 * synchronously), or rejects after `ms` naming `what` (a function is read at the deadline, so the
 * message can show the state then). Always unsubscribes; later values are ignored.
 */
export function withDeadline<T>(what: string | (() => string), ms: number, subscribe: (resolve: (value: T) => void) => () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let unsubscribe: (() => void) | undefined;
    let done = false;
    const timer = setTimeout(() => {
      done = true;
      unsubscribe?.();
      reject(new Error(`timed out after ${ms} ms waiting for ${typeof what === 'string' ? what : what()}`));
    }, ms);
    unsubscribe = subscribe((value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unsubscribe?.();
      resolve(value);
    });
    if (done) unsubscribe();
  });
}

/** The next host event `name` whose first argument matches; rejects after `ms`. Subscribe BEFORE causing it. */
export function nextEvent<K extends keyof HostEvents>(
  host: ExtensionHost,
  name: K,
  predicate: (arg: HostEvents[K][0]) => boolean = () => true,
  ms = WAIT_MS,
): Promise<HostEvents[K][0]> {
  return withDeadline(`host event ${name}`, ms, (resolve) => {
    const listener = (arg: HostEvents[K][0]) => {
      if (predicate(arg)) resolve(arg);
    };
    // eventemitter3's typed map makes a generic listener awkward to express; the shape is checked above.
    (host.on as (event: string, fn: (arg: HostEvents[K][0]) => void) => void)(name, listener);
    return () => (host.off as (event: string, fn: (arg: HostEvents[K][0]) => void) => void)(name, listener);
  });
}

/**
 * Calls `check` every `intervalMs` until it holds or `ms` have passed; resolves whether it held. For
 * a caller that asserts (or reports) the state itself afterwards.
 */
export async function pollUntil(check: () => boolean | Promise<boolean>, ms: number, intervalMs = 10): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Polls `check` every 10 ms until it holds; rejects after `ms`. Only for state that announces itself
 * through no event (log files the host appends to asynchronously, processes the kernel reaps).
 */
export async function waitUntil(what: string, check: () => boolean | Promise<boolean>, ms = WAIT_MS): Promise<void> {
  if (!(await pollUntil(check, ms))) throw new Error(`timed out after ${ms} ms waiting until ${what}`);
}

/** A promise with its resolver, to hold a handler until the test lets it go. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
