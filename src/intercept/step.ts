// Runs one interceptor method under a deadline and the caller's signal, and classifies what it did.
import { ErrorCode, ExtensionHostError } from '../errors.js';
import type { FailureKind, InterceptContext } from './types.js';

export type StepOutcome =
  | { ok: true; decision: Record<string, unknown> | undefined }
  | { ok: false; kind: FailureKind; message: string };

export interface StepOptions {
  name: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

// setTimeout fires at once for delays above 2^31-1 ms, so longer deadlines mean "no deadline".
const MAX_TIMER_MS = 2_147_483_647;

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
    const controller = new AbortController();
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
    const fail = (error: unknown): void =>
      settle(() =>
        resolve({
          ok: false,
          kind: failureKindOf(error),
          message: error instanceof Error ? error.message : String(error),
        }),
      );

    signal?.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs <= MAX_TIMER_MS) {
      timer = setTimeout(() => {
        const message = `${name} did not answer within ${timeoutMs} ms`;
        controller.abort(new ExtensionHostError(ErrorCode.TIMEOUT, message));
        settle(() => resolve({ ok: false, kind: 'timeout', message }));
      }, Math.max(0, timeoutMs));
    }

    let returned: unknown;
    try {
      returned = invoke({ signal: controller.signal });
    } catch (error) {
      fail(error);
      return;
    }
    Promise.resolve(returned).then((value) => {
      if (value === undefined) {
        settle(() => resolve({ ok: true, decision: undefined }));
      } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        settle(() => resolve({ ok: true, decision: value as Record<string, unknown> }));
      } else {
        const message = `${name} answered with ${describe(value)}, not a decision object`;
        settle(() => resolve({ ok: false, kind: 'malformed', message }));
      }
    }, fail);
  });
}
