/** Parsing of host -> extension lines, the mirror of protocol/frame-check's decodeLine. */
import { z } from 'zod';
import { describeIssues } from '../protocol/codec.js';
import { preview } from '../protocol/frame-check.js';
import {
  AssistantMessageEvent,
  AssistantMessageIntercept,
  BeforeAgentStartIntercept,
  CommandInvokedFrame,
  CustomEvent,
  HelloAckFrame,
  JsonObject,
  ObservedResult,
  PanelCloseFrame,
  PanelKeyFrame,
  PermissionDecisionEvent,
  PostCompactEvent,
  PreCompactEvent,
  SessionEndEvent,
  SessionStartEvent,
  ShutdownFrame,
  SubagentStartEvent,
  SubagentStopEvent,
  ToolCallEvent,
  ToolCallFrame,
  ToolCallIntercept,
  ToolCancelFrame,
  ToolConfirmationRequestedEvent,
  ToolResultEvent,
  TurnEndEvent,
  TurnStartEvent,
  TurnStartIntercept,
  UserPromptSubmitEvent,
} from '../protocol/frames.js';
import type { HostFrameTypeName, NEGOTIATED_HOST_FRAME_TYPE_NAMES } from '../protocol/names.js';
import type { HostInfo } from './types.js';

/*
 * The SDK reads host frames as zot's own Manager writes them, not only as our host does: zot leaves
 * out a field holding its Go zero value (`omitempty`: `command_invoked` without `args` when the user
 * typed none, `panel_key` without `text`), writes `null` for a nil slice or map, sends capability
 * names and fields this SDK does not know. A field that is absent or null therefore reads as its zero
 * value; only what routes a frame (type, id, name, event, panel_id, key) is required. Wrong types
 * are still refused.
 */

/** Absent or null reads as `zero` (Go's zero value: "", 0, {}). */
const orZero = <T extends z.ZodType>(schema: T, zero: z.output<T>) =>
  z.preprocess((value) => (value === undefined || value === null ? zero : value), schema) as unknown as T;
const text = orZero(z.string(), '');
const count = orZero(z.number(), 0);
const args = orZero(JsonObject, {});

/**
 * `protocol_version` reads as 1 when absent (zot has only ever sent 1); `capabilities` is read from the
 * raw frame (requests.ts `negotiated`), so a name this SDK does not know (zot sends "call_tool") is
 * ignored instead of failing the ack.
 */
const LenientHelloAck = HelloAckFrame.omit({ capabilities: true }).extend({
  protocol_version: orZero(z.number().int(), 1),
  zot_version: text,
  provider: text,
  model: text,
  cwd: text,
  extension_dir: text,
  data_dir: text,
});

const LenientCommandInvoked = CommandInvokedFrame.extend({ args: text });
const LenientToolCall = ToolCallFrame.extend({ args });

/** Absent or null reads as absent. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === null ? undefined : value), schema.optional());
const flag = orZero(z.boolean(), false);

/** zot's fields on every event since 2026-08; present only when sent. */
const lifecycle = { session_id: optional(z.string()), cwd: optional(z.string()), sequence: optional(z.number()) };
/** The tool an event is about; `origin_extension` marks a call another extension started. */
const tool = { tool_id: text, tool_name: text, origin_extension: optional(z.string()) };
const toolArgs = { tool_args: args, tool_args_raw: optional(z.string()) };
const LenientResult = ObservedResult.extend({ content: orZero(z.array(JsonObject), []), is_error: flag, truncated: flag });
const compaction = { compaction_id: text, message_count: count, token_estimate: count };
const subagent = { agent_id: text, agent_run_id: text, name: text };
const outcome = { status: text, error: text };

const LenientEvent = z.union([
  SessionStartEvent.extend(lifecycle),
  TurnStartEvent.extend({ ...lifecycle, step: count }),
  TurnEndEvent.extend({ ...lifecycle, stop: text }),
  ToolCallEvent.extend({ ...lifecycle, ...tool, ...toolArgs }),
  ToolConfirmationRequestedEvent.extend({ ...lifecycle, ...tool, tool_preview: text }),
  AssistantMessageEvent.extend({ ...lifecycle, text }),
  SessionEndEvent.extend({ ...lifecycle, reason: text }),
  UserPromptSubmitEvent.extend({ ...lifecycle, text, queued: flag, image_count: count }),
  ToolResultEvent.extend({
    ...lifecycle,
    ...tool,
    ...toolArgs,
    status: text,
    executed: flag,
    result: orZero(LenientResult, { content: [], is_error: false, truncated: false }),
  }),
  PermissionDecisionEvent.extend({ ...lifecycle, ...tool, decision: text, source: text, stage: text, reason: text }),
  PreCompactEvent.extend({ ...lifecycle, ...compaction }),
  PostCompactEvent.extend({ ...lifecycle, ...compaction, ...outcome }),
  SubagentStartEvent.extend({ ...lifecycle, ...subagent }),
  SubagentStopEvent.extend({ ...lifecycle, ...subagent, ...outcome }),
  CustomEvent,
]);

const LenientEventIntercept = z.discriminatedUnion('event', [
  ToolCallIntercept.extend({ ...tool, tool_args: args }),
  TurnStartIntercept.extend({ step: count }),
  AssistantMessageIntercept.extend({ text }),
  BeforeAgentStartIntercept.extend({
    session_id: text,
    agent_run_id: text,
    cwd: text,
    provider: text,
    model: text,
    system_prompt: text,
  }),
]);

/** `panel_key` with any key name (zot forwards `unknown`); `text` only comes with `rune`. */
const AnyPanelKeyFrame = PanelKeyFrame.extend({
  key: z.string(),
  text: z.preprocess((value) => (value === null ? undefined : value), z.string().optional()),
});

/**
 * zot's answer to the extension's `call_tool`: blocks are checked one by one when the call settles
 * (call-tool.ts), so that one block this SDK does not know cannot leave the call waiting.
 */
const LenientCallToolResult = z.object({
  type: z.literal('tool_result'),
  id: z.string(),
  name: text,
  content: orZero(z.array(z.unknown()), []),
  is_error: flag,
  truncated: flag,
});

/** `cancel` (capability "cancel"): the host gave up on request `id`. */
const CancelFrame = z.object({ type: z.literal('cancel'), id: z.string(), reason: z.string().optional() });


const SCHEMAS = {
  hello_ack: LenientHelloAck,
  command_invoked: LenientCommandInvoked,
  tool_call: LenientToolCall,
  event: LenientEvent,
  event_intercept: LenientEventIntercept,
  panel_key: AnyPanelKeyFrame,
  panel_close: PanelCloseFrame,
  shutdown: ShutdownFrame,
  cancel: CancelFrame,
  tool_cancel: ToolCancelFrame,
  tool_result: LenientCallToolResult,
} as const satisfies Record<HostFrameTypeName | (typeof NEGOTIATED_HOST_FRAME_TYPE_NAMES)[number], z.ZodType>;

type Schemas = typeof SCHEMAS;
/** Any frame the host may send, as the SDK sees it. */
export type IncomingFrame = { [K in keyof Schemas]: z.output<Schemas[K]> }[keyof Schemas];

/** Request types: each must get exactly one answer, even when the frame is malformed. */
export const REQUEST_TYPES = ['command_invoked', 'tool_call', 'event_intercept'] as const satisfies readonly HostFrameTypeName[];
export type RequestType = (typeof REQUEST_TYPES)[number];

export type DecodedHostFrame =
  /** `raw` is the line's whole JSON object: the schemas drop fields they do not know. */
  | { ok: true; frame: IncomingFrame; raw: JsonObject }
  /** `request` is set when the bad frame still names a request type and an id to answer. */
  | { ok: false; message: string; request?: { type: RequestType; id: string } | undefined };

function isRequestType(type: string): type is RequestType {
  return (REQUEST_TYPES as readonly string[]).includes(type);
}

/** Parses one line from the host. Never throws. */
export function decodeHostFrame(line: string): DecodedHostFrame {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { ok: false, message: `not JSON (${(err as Error).message}): ${preview(line)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: `not a JSON object: ${preview(line)}` };
  }
  const { type, id } = value as { type?: unknown; id?: unknown };
  if (typeof type !== 'string' || !Object.hasOwn(SCHEMAS, type)) {
    return { ok: false, message: `unknown frame type ${JSON.stringify(type ?? null)}: ${preview(line)}` };
  }
  const parsed = SCHEMAS[type as keyof Schemas].safeParse(value);
  if (parsed.success) return { ok: true, frame: parsed.data as IncomingFrame, raw: value as JsonObject };
  const message = `invalid ${type} frame (${describeIssues(parsed.error)})`;
  if (isRequestType(type) && typeof id === 'string') return { ok: false, message, request: { type, id } };
  return { ok: false, message };
}

/** The handler-facing view of `hello_ack`; `raw` is the whole frame. */
export function toHostInfo(frame: z.output<typeof LenientHelloAck>, raw: JsonObject): HostInfo {
  return {
    protocolVersion: frame.protocol_version,
    zotVersion: frame.zot_version,
    provider: frame.provider,
    model: frame.model,
    cwd: frame.cwd,
    extensionDir: frame.extension_dir,
    dataDir: frame.data_dir,
    raw,
  };
}
