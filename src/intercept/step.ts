// One step of an intercept chain: an interceptor's method run under a deadline and the caller's
// signal, and what its outcome means for the chain (its trace entry, a block, ignored fields).
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { jsonProblem } from '../protocol/json-check.js';
import { MAX_TIMER_MS } from '../protocol/limits.js';
import type { ChainStep, FailureKind, InterceptContext, InterceptDiagnostic, InterceptEvent, Interceptor, StepMethod, StepOutcome, TraceStep } from './types.js';

/** A step that allowed without deciding anything: the same object for each (never mutated). */
export const NO_DECISION: StepOutcome = Object.freeze({ ok: true, decision: undefined });

export interface StepOptions {
  name: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

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
export function runStep(invoke: (ctx: InterceptContext) => unknown, options: StepOptions): Promise<StepOutcome> {
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
      returned = invoke({ signal: controller.signal });
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

/** A plain object (what JSON.parse makes): its prototype is Object.prototype or null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// Interceptors get copies, so one cannot change what another saw by mutating in place.
function copy<T>(value: T): T {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

/**
 * An interceptor as a chain step: its method (read at each call, so a replaced one runs) under
 * runStep(), given a copy of the input (a shallow one when it cannot be cloned) and its rewritten
 * args copied, so that no interceptor can change what another one saw.
 */
export function interceptorStep(interceptor: Interceptor): ChainStep {
  return {
    interceptor,
    async run(method: StepMethod, input: object, timeoutMs: number, signal: AbortSignal | undefined): Promise<StepOutcome> {
      const own = copy(input);
      const given = own === input ? { ...input } : own;
      const outcome = await runStep((ctx) => (interceptor[method] as (input: object, ctx: InterceptContext) => unknown).call(interceptor, given, ctx), { name: interceptor.name, timeoutMs, signal });
      // Only a plain object is a rewrite (the chain ignores anything else, uncopied).
      const args = outcome.ok ? outcome.decision?.modifiedArgs : undefined;
      if (outcome.ok && isPlainObject(args)) return { ok: true, decision: { ...outcome.decision, modifiedArgs: copy(args) } };
      return outcome;
    },
  };
}

/**
 * A rewrite the host could not send on (cyclic, a BigInt, too deep for JSON.stringify) is a
 * `malformed` answer: the step's failure policy applies, instead of a RangeError out of the chain.
 */
export function checkedRewrite(name: string, outcome: StepOutcome): StepOutcome {
  if (!outcome.ok) return outcome;
  const next = outcome.decision?.modifiedArgs;
  if (typeof next !== 'object' || next === null) return outcome;
  const problem = jsonProblem(next);
  return problem === undefined ? outcome : { ok: false, kind: 'malformed', message: `${name} answered modifiedArgs that ${problem}` };
}

/** Only an input the host's extension steps cannot encode makes a step reject with anything but ABORTED. */
export function invalidInput(method: StepMethod, error: unknown): ExtensionHostError {
  if (error instanceof ExtensionHostError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `intercepts.${method}: the input cannot be sent to extensions (${message})`, { cause: error });
}

export interface StepResult {
  traced: TraceStep;
  decision?: Record<string, unknown> | undefined;
  blocked?: { reason: string; blockedBy: string } | undefined;
}

export type Diagnose = (interceptor: Interceptor, event: InterceptEvent, kind: InterceptDiagnostic['kind'], message: string) => void;

/** Fields each event accepts; other decision fields are reported as ignored. */
const FOREIGN_FIELDS: Record<InterceptEvent, readonly string[]> = {
  tool_call: ['replaceText', 'systemPrompt'],
  turn_start: ['modifiedArgs', 'replaceText', 'systemPrompt'],
  assistant_message: ['modifiedArgs', 'systemPrompt'],
  before_agent_start: ['modifiedArgs', 'replaceText'],
};

export function markFailure(step: TraceStep, kind: FailureKind, policy: 'allow' | 'block', message: string): void {
  step.decision = 'failure';
  step.failure = kind;
  step.failurePolicy = policy;
  step.message = message;
}

/**
 * Records one step in the trace. `blocked` is set when the step blocks (by decision or by failure
 * policy); `decision` is the answer of a non-failed step, for the caller to apply its rewrite.
 */
export function recordStep(
  interceptor: Interceptor,
  event: InterceptEvent,
  outcome: StepOutcome,
  ms: number,
  trace: TraceStep[],
  revalidation: boolean,
  diagnose: Diagnose,
): StepResult {
  const name = interceptor.name;
  const traced: TraceStep = { interceptor: name, decision: 'allow', ms };
  if (revalidation) traced.revalidation = true;
  trace.push(traced);

  const canBlock = event !== 'before_agent_start';
  if (!outcome.ok) {
    // A re-ask that fails blocks whatever the policy: otherwise a rewriter that makes the guard
    // fail (too deep, too big, too slow) would get its rewrite past it.
    const policy = !canBlock ? 'allow' : revalidation ? 'block' : (interceptor.onFailure ?? 'allow');
    markFailure(traced, outcome.kind, policy, outcome.message);
    diagnose(interceptor, event, outcome.kind, outcome.message);
    if (policy === 'allow') return { traced };
    const reason = revalidation
      ? `${name} failed (${outcome.kind}) when asked again with the rewritten args: blocked`
      : `${name} failed (${outcome.kind}): blocked by policy`;
    return { traced, blocked: { reason, blockedBy: name } };
  }

  const decision = outcome.decision ?? {};
  for (const field of FOREIGN_FIELDS[event]) {
    if (decision[field] !== undefined) {
      diagnose(interceptor, event, 'ignored_field', `${field} does not apply to ${event}; ignored`);
    }
  }
  const { block, reason } = decision;
  if (block !== undefined && typeof block !== 'boolean') {
    diagnose(interceptor, event, 'ignored_field', 'block is not a boolean; ignored');
  }
  if (!canBlock) {
    if (block === true) {
      diagnose(interceptor, event, 'ignored_field', 'block does not apply to before_agent_start; ignored');
    }
    return { traced, decision };
  }
  if (block !== true) return { traced, decision };
  if (reason !== undefined && typeof reason !== 'string') {
    diagnose(interceptor, event, 'ignored_field', 'reason is not a string; ignored');
  }
  const text = typeof reason === 'string' && reason !== '' ? reason : `blocked by ${name}`;
  traced.decision = 'block';
  traced.message = text;
  return { traced, decision, blocked: { reason: text, blockedBy: name } };
}
