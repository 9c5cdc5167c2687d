// One extension as an interceptor: each intercepted event is one event_intercept request.
import { ErrorCode, type ExtensionHostError } from '../errors.js';
import { NO_DECISION, abortedError, failureOutcome, stepDeadline, timeoutOutcome } from '../intercept/step.js';
import type { ChainObservation, ChainStep, InterceptContext, Interceptor, StepMethod, StepOutcome } from '../intercept/types.js';
import { INTERCEPT_METHODS, interceptDecision, interceptRequest } from '../intercept/wire.js';
import type { ExtensionProcess, RequestOptions, ResponseMapper } from '../process/extension-process.js';
import type { EventInterceptResponseFrame, InterceptName } from '../protocol/frames.js';
import type { InterceptPolicy } from './types.js';

/** How a step's request is sent: the process's request, or (tracing on) one within the chain call's span. */
export type StepSend = (request: ReturnType<typeof interceptRequest>, options: RequestOptions, mapper: ResponseMapper<EventInterceptResponseFrame, StepOutcome> | undefined, observation: ChainObservation | undefined) => Promise<unknown>;

const EVENT_OF = Object.fromEntries(Object.entries(INTERCEPT_METHODS).map(([event, method]) => [method, event])) as Record<StepMethod, InterceptName>;

/** An answer with no decision field at all (the usual "allow"): the same for every event. */
function isPlainAllow(r: EventInterceptResponseFrame): boolean {
  return r.block === undefined && r.reason === undefined && r.modified_args === undefined && r.replace_text === undefined && r.system_prompt === undefined;
}

/**
 * The interceptor for one extension and the events it intercepts. Its methods can be called like
 * any interceptor's (one request each); see extensionStep() for how the host's chain runs it.
 */
export function interceptAdapter(name: string, proc: Pick<ExtensionProcess, 'request'>, events: ReadonlySet<string>, timeoutMs: number, policy?: InterceptPolicy): Interceptor {
  return extensionStep(name, proc, events, timeoutMs, policy).interceptor;
}

/**
 * One extension as a step of the host's chain: its interceptor (what `list()` shows, whose methods
 * say which events it takes part in), and its run: one request whose deadline is the step's,
 * answered straight into the step's outcome. It serializes its input and its answer is freshly
 * parsed JSON, so it needs no copies.
 */
export function extensionStep(name: string, proc: Pick<ExtensionProcess, 'request'>, events: ReadonlySet<string>, timeoutMs: number, policy?: InterceptPolicy, send?: StepSend): ChainStep {
  const request: StepSend = send ?? ((frame, options, mapper) => (mapper === undefined ? proc.request(frame, options) : proc.request(frame, options, mapper)));
  const interceptor: Interceptor = { name };
  if (policy?.onFailure !== undefined) interceptor.onFailure = policy.onFailure;
  for (const [event, method] of Object.entries(INTERCEPT_METHODS) as [InterceptName, StepMethod][]) {
    if (!events.has(event)) continue;
    const closeStdinOnWriteTimeout = method === 'beforeAgentStart' || undefined;
    (interceptor as Record<StepMethod, unknown>)[method] = async (input: object, ctx: InterceptContext): Promise<Record<string, unknown>> => {
      const answer = (await request(interceptRequest(event, input as Record<string, unknown>), { timeoutMs, signal: ctx.signal, closeStdinOnWriteTimeout }, undefined, undefined)) as EventInterceptResponseFrame;
      return interceptDecision(event, answer);
    };
  }
  return {
    interceptor,
    run(method, input, stepTimeoutMs, signal, observation) {
      if (signal?.aborted) return Promise.reject(abortedError(signal));
      const event = EVENT_OF[method];
      const options: RequestOptions = { timeoutMs: stepDeadline(stepTimeoutMs) };
      if (signal !== undefined) options.signal = signal;
      // A before_agent_start step that cannot even be written within its deadline closes the
      // extension's stdin (the spec: "a blocked request write closes its input pipe"); the step
      // counts as a timeout. Other steps follow the request rule (taken back or completed).
      if (method === 'beforeAgentStart') options.closeStdinOnWriteTimeout = true;
      const mapper: ResponseMapper<EventInterceptResponseFrame, StepOutcome> = {
        frame: (r) => (isPlainAllow(r) ? NO_DECISION : { ok: true, decision: interceptDecision(event, r) }),
        error: (error: ExtensionHostError) => {
          if (error.code === ErrorCode.ABORTED && signal?.aborted === true) throw abortedError(signal);
          // Input that cannot be encoded is the caller's fault, not this guard's: it must reject the
          // chain call (INVALID_ARGUMENT), never pass as a failed step that the policy may allow.
          if (error.code === ErrorCode.INVALID_ARGUMENT) throw error;
          return error.code === ErrorCode.TIMEOUT ? timeoutOutcome(name, stepTimeoutMs) : failureOutcome(error);
        },
      };
      return request(interceptRequest(event, input as Record<string, unknown>), options, mapper, observation) as Promise<StepOutcome>;
    },
  };
}
