// Runs one interceptor method under a deadline and the caller's signal, and classifies what it did.
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { MAX_TIMER_MS } from '../protocol/limits.js';
import type { FailureKind, InterceptContext } from './types.js';

export type StepOutcome =
  | { ok: true; decision: Record<string, unknown> | undefined }
  | { ok: false; kind: FailureKind; message: string };

/**
 * A step that allowed without deciding anything (answered nothing, or an answer without a field):
 * shared and frozen, so the common case allocates nothing. The chain recognizes it by its fields
 * (`ok && decision === undefined`), never by identity.
 */
export const NO_DECISION: StepOutcome = Object.freeze({ ok: true, decision: undefined });

export interface StepOptions {
  name: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** The interceptor methods, one per interceptable event. */
export type StepMethod = 'toolCall' | 'turnStart' | 'assistantMessage' | 'beforeAgentStart';

/** The longest deadline a timer can express; longer ones mean "no deadline". */
export function stepDeadline(timeoutMs: number): number | undefined {
  return timeoutMs <= MAX_TIMER_MS ? Math.max(0, timeoutMs) : undefined;
}

/** The outcome of a step that did not answer within its deadline. */
export function timeoutOutcome(name: string, timeoutMs: number): StepOutcome {
  return { ok: false, kind: 'timeout', message: timeoutMessage(name, timeoutMs) };
}

function timeoutMessage(name: string, timeoutMs: number): string {
  return `${name} did not answer within ${timeoutMs} ms`;
}

/** The outcome of a step that threw or rejected with `error`. */
export function failureOutcome(error: unknown): StepOutcome {
  return { ok: false, kind: failureKindOf(error), message: error instanceof Error ? error.message : String(error) };
}

/** One step's abort: listeners run once, in order; the public AbortSignal exists only if asked for. */
class StepAbort {
  aborted = false;
  reason: unknown = undefined;
  #listeners: (() => void)[] | undefined;
  #controller: AbortController | undefined;

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) (this.#listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.#listeners;
    const index = listeners === undefined ? -1 : listeners.indexOf(listener);
    if (index !== -1) listeners!.splice(index, 1);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener();
  }
}

class StepContext implements InterceptContext {
  readonly #abort: StepAbort;

  constructor(abort: StepAbort) {
    this.#abort = abort;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }
}

/** The error a chain call rejects with when its caller aborts. */
export function abortedError(signal: AbortSignal): ExtensionHostError {
  return new ExtensionHostError(ErrorCode.ABORTED, 'interception aborted by the caller', {
    cause: signal.reason,
  });
}

/** Maps whatever an interceptor threw to a failure kind. */
export function failureKindOf(error: unknown): FailureKind {
  if (!(error instanceof ExtensionHostError)) return 'error';
  switch (error.code) {
    case ErrorCode.TIMEOUT:
    case ErrorCode.WRITE_TIMEOUT:
      return 'timeout';
    case ErrorCode.PROCESS_EXITED:
    case ErrorCode.NOT_STARTED:
    case ErrorCode.FRAME_TOO_LARGE:
      return 'crash';
    case ErrorCode.BAD_RESPONSE:
      return 'malformed';
    default:
      return 'error';
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Calls `invoke` with a fresh context. Resolves with the decision or a failure (never rejects for
 * anything the interceptor does); rejects with ABORTED only when the caller's signal aborts.
 */
export function runStep(
  invoke: (ctx: InterceptContext) => unknown,
  options: StepOptions,
): Promise<StepOutcome> {
  const { signal, timeoutMs, name } = options;
  if (signal?.aborted) return Promise.reject(abortedError(signal));
  return new Promise<StepOutcome>((resolve, reject) => {
    const controller = new StepAbort();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = (): void => {
      controller.abort(signal?.reason);
      settle(() => reject(abortedError(signal as AbortSignal)));
    };
    const fail = (error: unknown): void => settle(() => resolve(failureOutcome(error)));

    signal?.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs <= MAX_TIMER_MS) {
      timer = setTimeout(() => {
        const message = timeoutMessage(name, timeoutMs);
        controller.abort(new ExtensionHostError(ErrorCode.TIMEOUT, message));
        settle(() => resolve({ ok: false, kind: 'timeout', message }));
      }, Math.max(0, timeoutMs));
    }

    let returned: unknown;
    try {
      returned = invoke(new StepContext(controller));
    } catch (error) {
      fail(error);
      return;
    }
    Promise.resolve(returned).then((value) => {
      if (value === undefined) {
        settle(() => resolve(NO_DECISION));
      } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        settle(() => resolve({ ok: true, decision: value as Record<string, unknown> }));
      } else {
        const message = `${name} answered with ${describe(value)}, not a decision object`;
        settle(() => resolve({ ok: false, kind: 'malformed', message }));
      }
    }, fail);
  });
}
