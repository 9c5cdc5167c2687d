// One extension as an interceptor: each intercepted event is one event_intercept request.
import { ErrorCode } from '../errors.js';
import type { ExtensionStep, StepCall, StepRunner } from '../intercept/extension-step.js';
import { NO_DECISION, abortedError, failureOutcome, stepDeadline, timeoutOutcome, type StepMethod, type StepOutcome } from '../intercept/step.js';
import type { InterceptContext, Interceptor } from '../intercept/types.js';
import type { ExtensionProcess, RequestFrame, RequestOptions, ResponseMapper } from '../process/extension-process.js';
import { toolCallInterceptHead } from '../protocol/encode.js';
import type { EventInterceptResponseFrame } from '../protocol/frames.js';
import type { InterceptPolicy } from './types.js';

const METHOD_OF = {
  tool_call: 'toolCall',
  turn_start: 'turnStart',
  assistant_message: 'assistantMessage',
  before_agent_start: 'beforeAgentStart',
} as const satisfies Record<string, StepMethod>;

type Decision = Record<string, unknown>;
type Mapper = ResponseMapper<EventInterceptResponseFrame, StepOutcome>;

/**
 * A chain call's tool_call request as its extension steps share it (StepCall.cache): the frame, its
 * line up to the id, and the request options of the step that made it.
 */
interface SharedToolCall {
  readonly frame: RequestFrame<'event_intercept'>;
  readonly head: string | undefined;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  readonly options: RequestOptions;
}

function frameFor(method: StepMethod, input: Record<string, unknown>): RequestFrame<'event_intercept'> {
  switch (method) {
    case 'toolCall':
      return { type: 'event_intercept', event: 'tool_call', tool_id: input.toolId as string, tool_name: input.toolName as string, tool_args: input.args as Record<string, unknown> };
    case 'turnStart':
      return { type: 'event_intercept', event: 'turn_start', step: input.step as number };
    case 'assistantMessage':
      return { type: 'event_intercept', event: 'assistant_message', text: input.text as string };
    case 'beforeAgentStart':
      return {
        type: 'event_intercept',
        event: 'before_agent_start',
        session_id: input.sessionId as string,
        agent_run_id: input.agentRunId as string,
        cwd: input.cwd as string,
        provider: input.provider as string,
        model: input.model as string,
        system_prompt: input.systemPrompt as string,
      };
  }
}

function decisionFor(method: StepMethod, r: EventInterceptResponseFrame): Decision {
  switch (method) {
    case 'toolCall':
      return { block: r.block, reason: r.reason, modifiedArgs: r.modified_args };
    case 'turnStart':
      return { block: r.block, reason: r.reason };
    case 'assistantMessage':
      return { block: r.block, reason: r.reason, replaceText: r.replace_text };
    case 'beforeAgentStart':
      return 'system_prompt' in r && r.system_prompt !== undefined ? { systemPrompt: r.system_prompt } : {};
  }
}

/** An answer with no decision field at all (the usual "allow"): the same for every event. */
function isPlainAllow(r: EventInterceptResponseFrame): boolean {
  return r.block === undefined && r.reason === undefined && r.modified_args === undefined && r.replace_text === undefined && r.system_prompt === undefined;
}

function requestOptions(method: StepMethod, stepTimeoutMs: number, signal: AbortSignal | undefined, head?: string): RequestOptions {
  const options: RequestOptions = { timeoutMs: stepDeadline(stepTimeoutMs) };
  if (signal !== undefined) options.signal = signal;
  if (method === 'beforeAgentStart') options.closeStdinOnWriteTimeout = true;
  if (head !== undefined) options.head = head;
  return options;
}

/** The chain call's tool_call request, made by its first extension step (per args version) and reused by the others. */
function sharedToolCall(call: StepCall, input: Record<string, unknown>, stepTimeoutMs: number, signal: AbortSignal | undefined): SharedToolCall {
  const cached = call.cache as SharedToolCall | undefined;
  if (cached !== undefined && cached.timeoutMs === stepTimeoutMs && cached.signal === signal) return cached;
  const frame = cached?.frame ?? frameFor('toolCall', input);
  const head = cached !== undefined ? cached.head : toolCallInterceptHead(input.toolId, input.toolName, input.args);
  const shared: SharedToolCall = { frame, head, timeoutMs: stepTimeoutMs, signal, options: requestOptions('toolCall', stepTimeoutMs, signal, head) };
  call.cache = shared;
  return shared;
}

/**
 * The interceptor for one extension and the events it intercepts. Its methods can be called like
 * any interceptor's (one request each); see extensionStep() for how the host's chain runs it.
 */
export function interceptAdapter(name: string, proc: Pick<ExtensionProcess, 'request'>, events: ReadonlySet<string>, timeoutMs: number, policy?: InterceptPolicy): Interceptor {
  return extensionStep(name, proc, events, timeoutMs, policy).interceptor;
}

/**
 * One extension as a step of the host's chain (intercept/extension-step.ts): its interceptor, and
 * the runner the chain calls instead: one request whose deadline is the step's, answered straight
 * into the step's outcome; a tool_call frame is made and encoded once per chain call and args version.
 */
export function extensionStep(name: string, proc: Pick<ExtensionProcess, 'request'>, events: ReadonlySet<string>, timeoutMs: number, policy?: InterceptPolicy): ExtensionStep {
  const interceptor: Interceptor = { name };
  if (policy?.onFailure !== undefined) interceptor.onFailure = policy.onFailure;
  const methods: Partial<Record<StepMethod, unknown>> = {};
  for (const [event, method] of Object.entries(METHOD_OF)) {
    if (!events.has(event)) continue;
    const closeStdinOnWriteTimeout = method === 'beforeAgentStart' || undefined;
    const call = async (input: object, ctx: InterceptContext): Promise<Decision> =>
      decisionFor(method, await proc.request(frameFor(method, input as Record<string, unknown>), { timeoutMs, signal: ctx.signal, closeStdinOnWriteTimeout }));
    (interceptor as Record<StepMethod, unknown>)[method] = call;
    methods[method] = call;
  }
  const mapperFor = (method: StepMethod, stepTimeoutMs: number, signal: AbortSignal | undefined): Mapper => ({
    frame: (r) => (isPlainAllow(r) ? NO_DECISION : { ok: true, decision: decisionFor(method, r) }),
    error: (error) => {
      if (error.code === ErrorCode.ABORTED && signal?.aborted === true) throw abortedError(signal);
      // Input that cannot be encoded is the caller's fault, not this guard's: it must reject the
      // chain call (INVALID_ARGUMENT), never pass as a failed step that the policy may allow.
      if (error.code === ErrorCode.INVALID_ARGUMENT) throw error;
      return error.code === ErrorCode.TIMEOUT ? timeoutOutcome(name, stepTimeoutMs) : failureOutcome(error);
    },
  });
  // Without a caller signal a mapper (and the request options) depend only on the method and the
  // deadline: reused.
  const unsignalled: Partial<Record<StepMethod, { timeoutMs: number; mapper: Mapper; options: RequestOptions }>> = {};
  const runner: StepRunner = {
    methods,
    run(method, input, stepTimeoutMs, signal, call) {
      if (signal?.aborted) return Promise.reject(abortedError(signal));
      // A before_agent_start step that cannot even be written within its deadline closes the
      // extension's stdin (the spec: "a blocked request write closes its input pipe"); the step
      // counts as a timeout. Other steps follow the request rule (taken back or completed).
      let mapper: Mapper;
      let options: RequestOptions | undefined;
      if (signal === undefined) {
        let cached = unsignalled[method];
        if (cached?.timeoutMs !== stepTimeoutMs) {
          cached = { timeoutMs: stepTimeoutMs, mapper: mapperFor(method, stepTimeoutMs, undefined), options: requestOptions(method, stepTimeoutMs, undefined) };
          unsignalled[method] = cached;
        }
        mapper = cached.mapper;
        options = cached.options;
      } else {
        mapper = mapperFor(method, stepTimeoutMs, signal);
      }
      if (method === 'toolCall') {
        const shared = sharedToolCall(call, input as Record<string, unknown>, stepTimeoutMs, signal);
        return proc.request(shared.frame, shared.options, mapper);
      }
      return proc.request(frameFor(method, input as Record<string, unknown>), options ?? requestOptions(method, stepTimeoutMs, signal), mapper);
    },
  };
  return { interceptor, runner };
}
