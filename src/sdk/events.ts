/**
 * Lifecycle events and interceptors as the SDK hands them to handlers: camelCase payloads derived
 * from the wire frames (the whole frame stays available as `raw`). The intercept fields are mapped
 * both ways in intercept/wire.ts, which the host shares.
 */
import type { EventFrame, EventName, JsonObject } from '../protocol/frames.js';

/** Payloads of the events the spec defines. */
export interface EventPayloads {
  session_start: { event: 'session_start'; raw: JsonObject };
  turn_start: { event: 'turn_start'; step: number; raw: JsonObject };
  turn_end: { event: 'turn_end'; stop: string; raw: JsonObject };
  tool_call: { event: 'tool_call'; toolId: string; toolName: string; args: JsonObject; raw: JsonObject };
  tool_confirmation_requested: {
    event: 'tool_confirmation_requested';
    toolId: string;
    toolName: string;
    /** The short preview shown in the confirmation dialog. */
    preview: string;
    raw: JsonObject;
  };
  assistant_message: { event: 'assistant_message'; text: string; raw: JsonObject };
}

/** Payload of an event the spec does not define (an embedding agent may emit its own). */
export interface CustomEventPayload {
  event: string;
  raw: JsonObject;
}

/** The payload type for an event name. */
export type EventPayload<E extends string> = E extends EventName ? EventPayloads[E] : CustomEventPayload;

/** What interceptors receive, per interceptable event. */
export interface InterceptInputs {
  tool_call: { toolId: string; toolName: string; args: JsonObject; raw: JsonObject };
  turn_start: { step: number; raw: JsonObject };
  assistant_message: { text: string; raw: JsonObject };
  before_agent_start: {
    systemPrompt: string;
    sessionId: string;
    /** Identifies one preparation pass; changes on each rebuild. */
    agentRunId: string;
    cwd: string;
    provider: string;
    model: string;
    raw: JsonObject;
  };
}

/** What interceptors may answer, per interceptable event. Returning nothing allows unchanged. */
export interface InterceptDecisions {
  tool_call: {
    /** Refuse the call; `reason` is shown to the model as the tool error. */
    block?: boolean | undefined;
    reason?: string | undefined;
    /** Replacement args the tool will see (ignored when blocking). */
    modifiedArgs?: JsonObject | undefined;
  };
  turn_start: {
    /** Refuse the turn; `reason` is shown to the user. */
    block?: boolean | undefined;
    reason?: string | undefined;
  };
  assistant_message: {
    /** Suppress the message; `reason` is shown to the user. */
    block?: boolean | undefined;
    reason?: string | undefined;
    /** Replacement user-visible text ("" included); the transcript keeps the original. */
    replaceText?: string | undefined;
  };
  before_agent_start: {
    /** Exact replacement of the whole system prompt ("" removes it); omit to keep it. */
    systemPrompt?: string | undefined;
  };
}

/** The handler payload for an event frame (already validated by its schema); `raw` is the whole line. */
export function eventPayload(frame: EventFrame, raw: JsonObject): EventPayloads[EventName] | CustomEventPayload {
  const f = frame as JsonObject & { event: string };
  switch (f.event) {
    case 'turn_start':
      return { event: f.event, step: f.step as number, raw } satisfies EventPayloads['turn_start'];
    case 'turn_end':
      return { event: f.event, stop: f.stop as string, raw } satisfies EventPayloads['turn_end'];
    case 'tool_call':
      return {
        event: f.event,
        toolId: f.tool_id as string,
        toolName: f.tool_name as string,
        args: f.tool_args as JsonObject,
        raw,
      } satisfies EventPayloads['tool_call'];
    case 'tool_confirmation_requested':
      return {
        event: f.event,
        toolId: f.tool_id as string,
        toolName: f.tool_name as string,
        preview: f.tool_preview as string,
        raw,
      } satisfies EventPayloads['tool_confirmation_requested'];
    case 'assistant_message':
      return { event: f.event, text: f.text as string, raw } satisfies EventPayloads['assistant_message'];
    default:
      return { event: f.event, raw };
  }
}
