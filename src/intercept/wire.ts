// The intercept frames' fields as the TypeScript side names them, defined once: the host's extension
// steps (camelCase input -> event_intercept, event_intercept_response -> decision) and the TS SDK
// (event_intercept -> handler input, handler decision -> event_intercept_response) both map here.
import type { EventInterceptFrame, EventInterceptResponseFrame, InterceptName, JsonObject } from '../protocol/frames.js';
import type { StepMethod } from './types.js';

/** Each interceptable event's input fields: camelCase name -> event_intercept field, in wire order. */
export const INTERCEPT_INPUT_FIELDS = {
  tool_call: { toolId: 'tool_id', toolName: 'tool_name', args: 'tool_args' },
  turn_start: { step: 'step' },
  assistant_message: { text: 'text' },
  before_agent_start: { sessionId: 'session_id', agentRunId: 'agent_run_id', cwd: 'cwd', provider: 'provider', model: 'model', systemPrompt: 'system_prompt' },
} as const satisfies Record<InterceptName, Record<string, string>>;

/** The decision fields each event accepts: camelCase name -> event_intercept_response field. */
export const INTERCEPT_DECISION_FIELDS = {
  tool_call: { block: 'block', reason: 'reason', modifiedArgs: 'modified_args' },
  turn_start: { block: 'block', reason: 'reason' },
  assistant_message: { block: 'block', reason: 'reason', replaceText: 'replace_text' },
  before_agent_start: { systemPrompt: 'system_prompt' },
} as const satisfies Record<InterceptName, Record<string, keyof EventInterceptResponseFrame>>;

/** The interceptor method of each interceptable event. */
export const INTERCEPT_METHODS = {
  tool_call: 'toolCall',
  turn_start: 'turnStart',
  assistant_message: 'assistantMessage',
  before_agent_start: 'beforeAgentStart',
} as const satisfies Record<InterceptName, StepMethod>;

/** An event_intercept frame without its id: what the host sends for `input` (camelCase). */
export type InterceptRequest = { type: 'event_intercept' } & DistributiveOmit<EventInterceptFrame, 'id' | 'type'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function rename(fields: Readonly<Record<string, string>>, from: Readonly<Record<string, unknown>>, to: Record<string, unknown>, wire: boolean): Record<string, unknown> {
  for (const [camel, field] of Object.entries(fields)) to[wire ? field : camel] = from[wire ? camel : field];
  return to;
}

/** Host: the event_intercept frame (no id) for an interceptor's input. */
export function interceptRequest(event: InterceptName, input: Readonly<Record<string, unknown>>): InterceptRequest {
  const frame = rename(INTERCEPT_INPUT_FIELDS[event], input, { type: 'event_intercept', event }, true);
  // zot's: a tool call another extension started (its call_tool); absent otherwise (the snapshot's bytes).
  if (event === 'tool_call' && typeof input.originExtension === 'string') frame.origin_extension = input.originExtension;
  return frame as InterceptRequest;
}

/** Host: the decision in an extension's answer, with the fields of `event` (each present, maybe undefined). */
export function interceptDecision(event: InterceptName, response: EventInterceptResponseFrame): Record<string, unknown> {
  return rename(INTERCEPT_DECISION_FIELDS[event], response, {}, false);
}

/** SDK: the interceptor input for an event_intercept frame; `raw` is the whole line. */
export function interceptInput(frame: EventInterceptFrame, raw: JsonObject): Record<string, unknown> & { raw: JsonObject } {
  const input = rename(INTERCEPT_INPUT_FIELDS[frame.event], frame, {}, false);
  // zot marks a tool call another extension started (its call_tool); present only then.
  const origin = (frame as { origin_extension?: unknown }).origin_extension;
  if (frame.event === 'tool_call' && typeof origin === 'string') input.originExtension = origin;
  return Object.assign(input, { raw });
}

/** SDK: the wire answer for an interceptor's decision; fields that do not apply to the event are dropped. */
export function interceptResponseFrame(id: string, event: InterceptName, decision: object | undefined): EventInterceptResponseFrame {
  const frame: EventInterceptResponseFrame = { type: 'event_intercept_response', id };
  if (decision === undefined || decision === null || typeof decision !== 'object') return frame;
  const given = decision as Readonly<Record<string, unknown>>;
  for (const [camel, field] of Object.entries(INTERCEPT_DECISION_FIELDS[event])) {
    const value = given[camel];
    // `block` only as true, `reason` only as a string; the rewrites as given ("" included).
    if (field === 'block') {
      if (value === true) frame.block = true;
    } else if (field === 'reason') {
      if (typeof value === 'string') frame.reason = value;
    } else if (value !== undefined) {
      frame[field] = value;
    }
  }
  return frame;
}
