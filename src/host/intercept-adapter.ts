// One extension as an interceptor: each intercepted event is one event_intercept request.
import { ErrorCode } from '../errors.js';
import {
  ALLOWED,
  DIRECT_STEP,
  STEP_ABORT,
  TRUSTED_INTERCEPTOR,
  abortedError,
  failureOutcome,
  stepDeadline,
  timeoutOutcome,
  type DirectStep,
  type StepMethod,
  type StepOutcome,
} from '../intercept/step.js';
import type { InterceptContext, Interceptor } from '../intercept/types.js';
import type { AbortLike, ExtensionProcess, RequestFrame, RequestOptions, ResponseMapper } from '../process/extension-process.js';
import { TOOL_CALL_INTERCEPT } from '../protocol/encode.js';
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
 * Where a chain's tool_call input keeps its frame: the chain hands the same, unchanging input object
 * to every trusted step until a rewrite (see InterceptChain.toolCall), so the frame, and with it
 * the encoding (see TOOL_CALL_INTERCEPT), is made once per chain call and args version.
 */
const FRAME = Symbol('zot-extension-host.toolCallFrame');

function frameFor(method: StepMethod, input: Record<string, unknown>): RequestFrame<'event_intercept'> {
  switch (method) {
    case 'toolCall': {
      // Key order as TOOL_CALL_INTERCEPT requires.
      const frame = { type: 'event_intercept', event: 'tool_call', tool_id: input.toolId as string, tool_name: input.toolName as string, tool_args: input.args as Record<string, unknown>, [TOOL_CALL_INTERCEPT]: true } as const;
      return frame;
    }
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

/** The step's abort without creating its AbortSignal (see STEP_ABORT); any other context: its signal. */
function abortOf(ctx: InterceptContext): AbortSignal | AbortLike {
  return (ctx as { [STEP_ABORT]?: AbortLike })[STEP_ABORT] ?? ctx.signal;
}

function requestOptions(method: StepMethod, stepTimeoutMs: number, signal: AbortSignal | undefined): RequestOptions {
  const options: RequestOptions = { timeoutMs: stepDeadline(stepTimeoutMs) };
  if (signal !== undefined) options.signal = signal;
  if (method === 'beforeAgentStart') options.closeStdinOnWriteTimeout = true;
  return options;
}

/**
 * The interceptor for one extension and the events it intercepts. Its methods can be called like
 * any interceptor's; the chain runs its steps directly (DIRECT_STEP): one request whose deadline is
 * the step's, answered straight into the step's outcome.
 */
export function interceptAdapter(name: string, proc: ExtensionProcess, events: ReadonlySet<string>, timeoutMs: number, policy?: InterceptPolicy): Interceptor {
  const adapter: Interceptor & { [TRUSTED_INTERCEPTOR]?: true; [DIRECT_STEP]?: DirectStep } = { name };
  if (policy?.onFailure !== undefined) adapter.onFailure = policy.onFailure;
  const methods: Partial<Record<StepMethod, unknown>> = {};
  for (const [event, method] of Object.entries(METHOD_OF)) {
    if (!events.has(event)) continue;
    const closeStdinOnWriteTimeout = method === 'beforeAgentStart' || undefined;
    const call = async (input: object, ctx: InterceptContext): Promise<Decision> =>
      decisionFor(method, await proc.request(frameFor(method, input as Record<string, unknown>), { timeoutMs, signal: abortOf(ctx), closeStdinOnWriteTimeout }));
    (adapter as Record<StepMethod, unknown>)[method] = call;
    methods[method] = call;
  }
  adapter[TRUSTED_INTERCEPTOR] = true;
  const mapperFor = (method: StepMethod, stepTimeoutMs: number, signal: AbortSignal | undefined): Mapper => ({
    frame: (r) => (isPlainAllow(r) ? ALLOWED : { ok: true, decision: decisionFor(method, r) }),
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
  adapter[DIRECT_STEP] = {
    methods,
    run(method, input, stepTimeoutMs, signal) {
      if (signal?.aborted) return Promise.reject(abortedError(signal));
      // A before_agent_start step that cannot even be written within its deadline closes the
      // extension's stdin (the spec: "a blocked request write closes its input pipe"); the step
      // counts as a timeout. Other steps follow the request rule (taken back or completed).
      let mapper: Mapper;
      let options: RequestOptions;
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
        options = requestOptions(method, stepTimeoutMs, signal);
      }
      const frame =
        method === 'toolCall'
          ? ((input as { [FRAME]?: RequestFrame<'event_intercept'> })[FRAME] ??= frameFor(method, input as Record<string, unknown>))
          : frameFor(method, input as Record<string, unknown>);
      return proc.request(frame, options, mapper);
    },
  };
  return adapter;
}
