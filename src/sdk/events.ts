/**
 * Lifecycle events and interceptors as the SDK hands them to handlers: camelCase payloads derived
 * from the wire frames (the whole frame stays available as `raw`). The intercept fields are mapped
 * both ways in intercept/wire.ts, which the host shares.
 */
import type { JsonObject } from '../protocol/frames.js';
import type { EventName } from '../protocol/names.js';

/** The events zot added after the spec snapshot (all in `EVENT_NAMES`), observe-only. */
export type UpstreamEventName = Exclude<EventName, 'session_start' | 'turn_start' | 'turn_end' | 'tool_call' | 'tool_confirmation_requested' | 'assistant_message'>;

/**
 * What every event payload carries: `raw`, the whole frame, and the fields zot's Manager adds to every
 * event since 2026-08, each present only when the host sent it.
 */
export interface EventBase {
  /** The conversation's id (zot: the persisted one, else a process-local one). */
  sessionId?: string | undefined;
  /** The session's working directory. */
  cwd?: string | undefined;
  /** The host's event counter: from 1, one per event emitted (to anyone), so gaps are normal. */
  sequence?: number | undefined;
  raw: JsonObject;
}

/** How a tool call that another extension started is marked (zot's `call_tool`). */
interface Origin {
  /** The extension that started the call; present only for such calls. */
  originExtension?: string | undefined;
}

/** `tool_result.result` of a lifecycle event: the result as bounded by the host. */
export interface ObservedResult {
  /** Text and image blocks as the host sent them (a text block may carry `format: "markdown"`). */
  content: JsonObject[];
  isError: boolean;
  /** The host cut the result (zot: past 256 KiB or 128 blocks). */
  truncated: boolean;
}

/**
 * Payloads of the lifecycle events (`EVENT_NAMES`: the spec's and those zot added after it). A field
 * the host left out reads as its zero value (`''`, `0`, `false`, `{}`), as zot leaves out empty ones;
 * the optional ones are present only when sent.
 */
export interface EventPayloads extends UpstreamEventPayloads {
  session_start: EventBase & { event: 'session_start' };
  turn_start: EventBase & { event: 'turn_start'; step: number };
  turn_end: EventBase & { event: 'turn_end'; stop: string };
  tool_call: EventBase &
    Origin & {
      event: 'tool_call';
      toolId: string;
      toolName: string;
      args: JsonObject;
      /** The args as text when the host could not send them as JSON (then `args` is `{}`). */
      argsRaw?: string | undefined;
    };
  tool_confirmation_requested: EventBase &
    Origin & {
      event: 'tool_confirmation_requested';
      toolId: string;
      toolName: string;
      /** The short preview shown in the confirmation dialog. */
      preview: string;
    };
  assistant_message: EventBase & { event: 'assistant_message'; text: string };
}

/** Payloads of the events zot added after the spec snapshot (part of EventPayloads). */
export interface UpstreamEventPayloads {
  /** The session ends (zot: `shutdown`, `session_switch`, `cwd_change`); at most once per activation. */
  session_end: EventBase & { event: 'session_end'; reason: string };
  /** The user submitted a prompt. */
  user_prompt_submit: EventBase & {
    event: 'user_prompt_submit';
    /** `''` for an image-only prompt. */
    text: string;
    /** Queued behind a running turn. */
    queued: boolean;
    imageCount: number;
  };
  /** A tool call ended: completed, failed, blocked, cancelled or timed_out. */
  tool_result: EventBase &
    Origin & {
      event: 'tool_result';
      toolId: string;
      toolName: string;
      /** The args the tool got (after rewrites). */
      args: JsonObject;
      argsRaw?: string | undefined;
      status: string;
      /** The tool's own code ran (a tool-local refusal is `blocked` with `executed`). */
      executed: boolean;
      result: ObservedResult;
    };
  /** A permission was decided for a tool call. */
  permission_decision: EventBase &
    Origin & {
      event: 'permission_decision';
      toolId: string;
      toolName: string;
      /** `approved`, `denied` or `cancelled`. */
      decision: string;
      /** `user`, `remembered`, `policy` or `yolo`. */
      source: string;
      /** `pre_execution` or `tool_execution`. */
      stage: string;
      reason: string;
    };
  /** Compaction starts; each gets a matching `post_compact`. */
  pre_compact: EventBase & { event: 'pre_compact'; compactionId: string; messageCount: number; tokenEstimate: number };
  post_compact: EventBase & {
    event: 'post_compact';
    compactionId: string;
    messageCount: number;
    tokenEstimate: number;
    /** `completed`, `failed`, `cancelled` or `timed_out`. */
    status: string;
    error: string;
  };
  subagent_start: EventBase & {
    event: 'subagent_start';
    agentId: string;
    /** New for each run of the subagent. */
    agentRunId: string;
    name: string;
  };
  subagent_stop: EventBase & {
    event: 'subagent_stop';
    agentId: string;
    agentRunId: string;
    name: string;
    status: string;
    error: string;
  };
}

/** A lifecycle event this SDK has a typed payload for. */
export type KnownEventName = EventName;
type KnownPayload = EventPayloads[EventName];
/** A payload without `raw` (distributed over the union). */
type WithoutRaw<T> = T extends unknown ? Omit<T, 'raw'> : never;

/** Payload of an event the SDK does not know (an embedding agent may emit its own). */
export interface CustomEventPayload {
  event: string;
  raw: JsonObject;
}

/** The payload type for an event name. */
export type EventPayload<E extends string> = E extends EventName ? EventPayloads[E] : CustomEventPayload;

/** What interceptors receive, per interceptable event. */
export interface InterceptInputs {
  tool_call: {
    toolId: string;
    toolName: string;
    args: JsonObject;
    /** The extension that started the call (zot's `call_tool`); present only for such calls. */
    originExtension?: string | undefined;
    raw: JsonObject;
  };
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

type Fields = JsonObject & { event: string };

/** The fields of EventBase and Origin that the frame has. */
function base(f: Fields, raw: JsonObject): EventBase & Origin {
  const out: EventBase & Origin = { raw };
  if (f.session_id !== undefined) out.sessionId = f.session_id as string;
  if (f.cwd !== undefined) out.cwd = f.cwd as string;
  if (f.sequence !== undefined) out.sequence = f.sequence as number;
  if (f.origin_extension !== undefined) out.originExtension = f.origin_extension as string;
  return out;
}

function withArgsRaw<T extends object>(payload: T, f: Fields): T & { argsRaw?: string } {
  return f.tool_args_raw === undefined ? payload : { ...payload, argsRaw: f.tool_args_raw as string };
}

const compaction = (f: Fields) => ({
  compactionId: f.compaction_id as string,
  messageCount: f.message_count as number,
  tokenEstimate: f.token_estimate as number,
});
const subagent = (f: Fields) => ({ agentId: f.agent_id as string, agentRunId: f.agent_run_id as string, name: f.name as string });
const outcome = (f: Fields) => ({ status: f.status as string, error: f.error as string });

/**
 * The handler payload for an event frame, already validated by its schema (host-frames.ts, which
 * also filled the zero values); `raw` is the whole line.
 */
export function eventPayload(frame: { event: string }, raw: JsonObject): KnownPayload | CustomEventPayload {
  const f = frame as Fields;
  const { raw: _raw, ...common } = base(f, raw);
  const tool = { toolId: f.tool_id as string, toolName: f.tool_name as string };
  let payload: WithoutRaw<KnownPayload> | undefined;
  switch (f.event) {
    case 'session_start':
      payload = { event: f.event, ...common };
      break;
    case 'turn_start':
      payload = { event: f.event, step: f.step as number, ...common };
      break;
    case 'turn_end':
      payload = { event: f.event, stop: f.stop as string, ...common };
      break;
    case 'tool_call':
      payload = withArgsRaw({ event: f.event, ...tool, args: f.tool_args as JsonObject, ...common }, f);
      break;
    case 'tool_confirmation_requested':
      payload = { event: f.event, ...tool, preview: f.tool_preview as string, ...common };
      break;
    case 'assistant_message':
      payload = { event: f.event, text: f.text as string, ...common };
      break;
    case 'session_end':
      payload = { event: f.event, reason: f.reason as string, ...common };
      break;
    case 'user_prompt_submit':
      payload = { event: f.event, text: f.text as string, queued: f.queued as boolean, imageCount: f.image_count as number, ...common };
      break;
    case 'tool_result': {
      const result = f.result as { content: JsonObject[]; is_error: boolean; truncated: boolean };
      payload = withArgsRaw(
        {
          event: f.event,
          ...tool,
          args: f.tool_args as JsonObject,
          status: f.status as string,
          executed: f.executed as boolean,
          result: { content: result.content, isError: result.is_error, truncated: result.truncated },
          ...common,
        },
        f,
      );
      break;
    }
    case 'permission_decision':
      payload = {
        event: f.event,
        ...tool,
        decision: f.decision as string,
        source: f.source as string,
        stage: f.stage as string,
        reason: f.reason as string,
        ...common,
      };
      break;
    case 'pre_compact':
      payload = { event: f.event, ...compaction(f), ...common };
      break;
    case 'post_compact':
      payload = { event: f.event, ...compaction(f), ...outcome(f), ...common };
      break;
    case 'subagent_start':
      payload = { event: f.event, ...subagent(f), ...common };
      break;
    case 'subagent_stop':
      payload = { event: f.event, ...subagent(f), ...outcome(f), ...common };
      break;
  }
  return payload === undefined ? { event: f.event, raw } : ({ ...payload, raw } as KnownPayload);
}
