/**
 * Zod schemas for every frame of the zot extension protocol (../../shared spec, "Wire format").
 * The schemas are the only definition of the wire types: every type below is inferred from them.
 *
 * Rules: unknown extra fields are tolerated but NOT kept (z.object strips them), so the inferred types
 * have no index signature and stay precise; only `hello` keeps them (z.looseObject), so an extension
 * can send extra metadata that the host exposes. Wrong types are rejected. For frames an
 * extension sends, `null` is accepted wherever a field is optional and means "absent", because many
 * languages serialise absent values that way.
 * Payloads defined by extensions (JSON Schemas, tool args) stay loose.
 */
import { z } from 'zod';
import { MAX_PROGRESS_MESSAGE } from './limits.js';
import { COMMAND_ACTIONS, HELLO_ACK_CAPABILITIES, INTERCEPT_NAMES, KNOWN_EVENTS, PANEL_KEYS } from './names.js';

// The name lists live in names.ts (no zod there: the main entry imports them); the frame unions
// below list their members in the same order (test/protocol/names.test.ts, names.test-d.ts).
export {
  COMMAND_ACTIONS,
  EVENT_NAMES,
  EXTENSION_FRAME_TYPE_NAMES,
  EXTENSION_FRAME_TYPES,
  HOST_FRAME_TYPE_NAMES,
  INTERCEPT_NAMES,
  NOTIFY_LEVELS,
  PANEL_KEYS,
} from './names.js';
export type { EventName, NotifyLevel } from './names.js';

/** Optional field that also accepts `null` as "absent". */
const opt = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === null ? undefined : v), schema.optional());

/** A JSON object (tool args, JSON Schemas): any keys, any values. */
export const JsonObject = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof JsonObject>;

// ---------------------------------------------------------------------------------------------
// Extension -> host
// ---------------------------------------------------------------------------------------------

export const HelloFrame = z.looseObject({
  type: z.literal('hello'),
  name: z.string(),
  version: opt(z.string()),
  capabilities: opt(z.array(z.string())),
});
export type HelloFrame = z.infer<typeof HelloFrame>;

export const RegisterCommandFrame = z.object({
  type: z.literal('register_command'),
  name: z.string().min(1),
  description: opt(z.string()),
});
export type RegisterCommandFrame = z.infer<typeof RegisterCommandFrame>;

export const RegisterToolFrame = z.object({
  type: z.literal('register_tool'),
  name: z.string().min(1),
  description: opt(z.string()),
  /**
   * JSON Schema of the tool's args, kept exactly as sent. Any JSON value is accepted, as zot does; the
   * host lists one that is not an object as `{type:"object"}` with a diagnostic.
   */
  schema: opt(z.unknown()),
  /** Registered but not advertised until a tool_result names it in `activate_tools`. */
  deferred: opt(z.boolean()),
  /** zot, after the snapshot: its calls wait for the user (no default reply deadline; docs/protocol.md). */
  interactive: opt(z.boolean()),
  // zot's, after the spec snapshot (docs/protocol.md "zot versions"):
  /** Describes `tool_result.structured_content`; any JSON, never validated. */
  output_schema: opt(z.unknown()),
  /** Groups tools for discovery (zot: defaults to the extension name). */
  namespace: opt(z.string()),
  namespace_description: opt(z.string()),
  namespace_instructions: opt(z.string()),
  /** `direct` (also `""`), `codemode`, `deferred`, `model-only`; the host refuses the tool for another value. */
  exposure: opt(z.string()),
  /** `never` (also `""`), `safe`, `idempotent`, `reconcile`; another value is taken as `never` with a diagnostic. */
  replay: opt(z.string()),
  /**
   * Ours (docs/protocol.md): hints about the tool's behaviour, as MCP's tool annotations
   * (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`, `title`); any JSON, the
   * host keeps a JSON object and ignores anything else.
   */
  annotations: opt(z.unknown()),
});
export type RegisterToolFrame = z.infer<typeof RegisterToolFrame>;

export const ReadyFrame = z.object({ type: z.literal('ready') });
export type ReadyFrame = z.infer<typeof ReadyFrame>;

export const TextBlock = z.object({
  type: z.literal('text'),
  text: z.string(),
  /** zot's display hint (`"markdown"`); the model gets the text as it is. */
  format: opt(z.string()),
});
export type TextBlock = z.infer<typeof TextBlock>;

export const ImageBlock = z.object({
  type: z.literal('image'),
  mime_type: z.string(),
  /** Base64-encoded image bytes. */
  data: z.string(),
});
export type ImageBlock = z.infer<typeof ImageBlock>;

export const ContentBlock = z.discriminatedUnion('type', [TextBlock, ImageBlock]);
export type ContentBlock = z.infer<typeof ContentBlock>;

/** A content block of a type the protocol does not define (audio, resource, ...), kept as its type only. */
export type UnknownBlock = { type: string };

/**
 * A block of `tool_result.content`: a well-formed text or image block, or a block of another type,
 * kept as its type only so that it does not fail the whole result (the host shows a placeholder for
 * it, as zot does). A malformed text or image block is an error.
 */
export const ResultBlock = z.looseObject({ type: z.string() }).transform((block, ctx): ContentBlock | UnknownBlock => {
  if (block.type !== 'text' && block.type !== 'image') return { type: block.type };
  const known = ContentBlock.safeParse(block);
  if (known.success) return known.data;
  for (const issue of known.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  return z.NEVER;
});
export type ResultBlock = z.infer<typeof ResultBlock>;

export const ToolResultFrame = z.object({
  type: z.literal('tool_result'),
  id: z.string(),
  content: opt(z.array(ResultBlock)),
  is_error: opt(z.boolean()),
  activate_tools: opt(z.array(z.string())),
  /** zot's: a JSON value next to `content` (described by the tool's `output_schema`), never validated. */
  structured_content: opt(z.unknown()),
});
export type ToolResultFrame = z.infer<typeof ToolResultFrame>;

export const InterceptName = z.enum(INTERCEPT_NAMES);
export type InterceptName = z.infer<typeof InterceptName>;

export const SubscribeFrame = z.object({
  type: z.literal('subscribe'),
  /** Event names to observe. Unknown names are kept (the host may emit custom events). */
  events: opt(z.array(z.string())),
  /** Event names to intercept. Unknown names are reported by the host and ignored. */
  intercept: opt(z.array(z.string())),
});
export type SubscribeFrame = z.infer<typeof SubscribeFrame>;

export const EventInterceptResponseFrame = z.object({
  type: z.literal('event_intercept_response'),
  id: z.string(),
  block: opt(z.boolean()),
  reason: opt(z.string()),
  // The next three are validated per event by the intercept chain, so that one bad field is
  // reported and ignored on its own (a bad `modified_args` must not also drop a `block`).
  /** tool_call: rewritten args; must be a JSON object. */
  modified_args: z.unknown().optional(),
  /** assistant_message: replacement user-visible text; a string ("" included). */
  replace_text: z.unknown().optional(),
  /** before_agent_start: exact replacement of the system prompt; a string ("" included). */
  system_prompt: z.unknown().optional(),
});
export type EventInterceptResponseFrame = z.infer<typeof EventInterceptResponseFrame>;

export const CommandAction = z.enum(COMMAND_ACTIONS);
export type CommandAction = z.infer<typeof CommandAction>;

/** Content of an extension-owned panel (`open_panel` in command_response). */
export const PanelSpec = z.object({
  id: z.string().min(1),
  title: opt(z.string()),
  lines: opt(z.array(z.string())),
  footer: opt(z.string()),
});
export type PanelSpec = z.infer<typeof PanelSpec>;

export const CommandResponseFrame = z.object({
  type: z.literal('command_response'),
  id: z.string(),
  /** Absent means `noop` (an error-only response is common). */
  action: opt(CommandAction),
  prompt: opt(z.string()),
  insert: opt(z.string()),
  display: opt(z.string()),
  open_panel: opt(PanelSpec),
  /** Non-empty: shown as an error status line regardless of `action`. */
  error: opt(z.string()),
  /** `tool_prompt` (zot, after the snapshot): the tool to run before the model turn, and its args. */
  tool_name: opt(z.string()),
  tool_args: opt(JsonObject),
});
export type CommandResponseFrame = z.infer<typeof CommandResponseFrame>;

export const SubmitFrame = z.object({ type: z.literal('submit'), text: z.string() });
export type SubmitFrame = z.infer<typeof SubmitFrame>;

export const PanelRenderFrame = z.object({
  type: z.literal('panel_render'),
  panel_id: z.string().min(1),
  title: opt(z.string()),
  lines: opt(z.array(z.string())),
  footer: opt(z.string()),
});
export type PanelRenderFrame = z.infer<typeof PanelRenderFrame>;

/** `panel_close` goes both ways with the same shape. */
export const PanelCloseFrame = z.object({ type: z.literal('panel_close'), panel_id: z.string().min(1) });
export type PanelCloseFrame = z.infer<typeof PanelCloseFrame>;

export const NotifyFrame = z.object({
  type: z.literal('notify'),
  /** One of info, success, warn, error; the host maps anything else to info with a diagnostic. */
  level: opt(z.string()),
  message: z.string(),
});
export type NotifyFrame = z.infer<typeof NotifyFrame>;

export const ClearNotesFrame = z.object({ type: z.literal('clear_notes') });
export type ClearNotesFrame = z.infer<typeof ClearNotesFrame>;

export const ShutdownAckFrame = z.object({ type: z.literal('shutdown_ack') });
export type ShutdownAckFrame = z.infer<typeof ShutdownAckFrame>;

/**
 * A panel the extension opens by itself, at any time after the handshake (zot, after the snapshot):
 * the same panel as a command's `open_panel` action, routed the same way. No id, no reply.
 */
export const OpenPanelFrame = z.object({ type: z.literal('open_panel'), panel: PanelSpec });
export type OpenPanelFrame = z.infer<typeof OpenPanelFrame>;
/** zot's: run `text` (it starts with "/") as a slash command, as if typed; no reply. */
export const SubmitSlashFrame = z.object({ type: z.literal('submit_slash'), text: z.string() });
export type SubmitSlashFrame = z.infer<typeof SubmitSlashFrame>;

/**
 * zot's `call_tool`: run tool `name` (another extension's or the agent's own) with `args`, inside
 * the host tool call `parent_id` of this extension when given; answered by the host's `tool_result`
 * (CallToolResultFrame). Loose as zot reads it: an absent `name` or `args` that are not a JSON
 * object are answered with an error text; an empty or absent `id` is not answered at all.
 */
export const CallToolFrame = z.object({
  type: z.literal('call_tool'),
  id: opt(z.string()),
  name: opt(z.string()),
  args: z.unknown().optional(),
  parent_id: opt(z.string()),
});
export type CallToolFrame = z.infer<typeof CallToolFrame>;
/** zot's: stop the `call_tool` request `id` of this extension; an unknown id changes nothing. */
export const CallToolCancelFrame = z.object({ type: z.literal('call_tool_cancel'), id: opt(z.string()) });
export type CallToolCancelFrame = z.infer<typeof CallToolCancelFrame>;

export const ExtensionFrame = z.discriminatedUnion('type', [
  HelloFrame,
  RegisterCommandFrame,
  RegisterToolFrame,
  ReadyFrame,
  ToolResultFrame,
  SubscribeFrame,
  EventInterceptResponseFrame,
  CommandResponseFrame,
  SubmitFrame,
  PanelRenderFrame,
  PanelCloseFrame,
  NotifyFrame,
  ClearNotesFrame,
  ShutdownAckFrame,
  OpenPanelFrame,
  SubmitSlashFrame,
  CallToolFrame,
  CallToolCancelFrame,
]);
/** Any frame an extension may send to the host. */
export type ExtensionFrame = z.infer<typeof ExtensionFrame>;


/** Capability "progress" (docs/protocol.md): not in ExtensionFrame, accepted only once negotiated. */
export const ProgressFrame = z.object({
  type: z.literal('progress'),
  id: z.string(),
  message: opt(z.string().max(MAX_PROGRESS_MESSAGE)),
  progress: opt(z.number().finite()),
  total: opt(z.number().finite()),
});
export type ProgressFrame = z.infer<typeof ProgressFrame>;

/**
 * Capability "unregister" (docs/protocol.md): the extension withdraws a tool it registered (an MCP
 * server's `tools/list_changed`). Not in ExtensionFrame, accepted only once negotiated.
 */
export const UnregisterToolFrame = z.object({ type: z.literal('unregister_tool'), name: z.string().min(1) });
export type UnregisterToolFrame = z.infer<typeof UnregisterToolFrame>;
export type ExtensionFrameType = ExtensionFrame['type'];

// ---------------------------------------------------------------------------------------------
// Host -> extension
// ---------------------------------------------------------------------------------------------

export const HelloAckFrame = z.object({
  type: z.literal('hello_ack'),
  protocol_version: z.number().int(),
  zot_version: z.string(),
  provider: z.string(),
  model: z.string(),
  cwd: z.string(),
  extension_dir: z.string(),
  data_dir: z.string(),
  /** The negotiated protocol extensions, and zot's `call_tool` for an extension that declared it; absent when none (docs/protocol.md). */
  capabilities: z.array(z.enum(HELLO_ACK_CAPABILITIES)).optional(),
});
export type HelloAckFrame = z.infer<typeof HelloAckFrame>;

export const CommandInvokedFrame = z.object({
  type: z.literal('command_invoked'),
  id: z.string(),
  name: z.string(),
  args: z.string(),
});
export type CommandInvokedFrame = z.infer<typeof CommandInvokedFrame>;

export const ToolCallFrame = z.object({
  type: z.literal('tool_call'),
  id: z.string(),
  name: z.string(),
  args: JsonObject,
  /** zot's, experimental ("continuous" mode): a stable idempotency key; sent only when the embedder passes one. */
  operation_key: z.string().optional(),
  /** zot's, experimental: do not perform the operation, answer its state in `structured_content`. */
  reconcile: z.boolean().optional(),
});
export type ToolCallFrame = z.infer<typeof ToolCallFrame>;

/**
 * What zot adds to every event since 2026-08 (docs/protocol.md "zot versions"): the conversation, its
 * working directory and the host's event counter. The host fills them for an extension newer than the
 * spec snapshot; an embedder may pass them.
 */
const eventBase = {
  type: z.literal('event'),
  session_id: z.string().optional(),
  cwd: z.string().optional(),
  /** From 1, one per event the host emits (to anyone): gaps are normal. */
  sequence: z.number().int().nonnegative().optional(),
};
/** The extension that started a tool call (zot's `call_tool`); present only for such calls. */
const origin = { origin_extension: z.string().optional() };

export const SessionStartEvent = z.object({ ...eventBase, event: z.literal('session_start') });
export const TurnStartEvent = z.object({ ...eventBase, event: z.literal('turn_start'), step: z.number() });
export const TurnEndEvent = z.object({ ...eventBase, event: z.literal('turn_end'), stop: z.string() });
export const ToolCallEvent = z.object({
  ...eventBase,
  ...origin,
  event: z.literal('tool_call'),
  tool_id: z.string(),
  tool_name: z.string(),
  tool_args: JsonObject,
});
export const ToolConfirmationRequestedEvent = z.object({
  ...eventBase,
  ...origin,
  event: z.literal('tool_confirmation_requested'),
  tool_id: z.string(),
  tool_name: z.string(),
  tool_preview: z.string(),
});
export const AssistantMessageEvent = z.object({
  ...eventBase,
  event: z.literal('assistant_message'),
  text: z.string(),
});

// zot's events after the spec snapshot (observe-only). Required: what zot always writes; optional:
// what it leaves out when empty (Go omitempty).

/** The session ends (zot: `shutdown`, `session_switch`, `cwd_change`); at most once per activation. */
export const SessionEndEvent = z.object({ ...eventBase, event: z.literal('session_end'), reason: z.string() });
export const UserPromptSubmitEvent = z.object({
  ...eventBase,
  event: z.literal('user_prompt_submit'),
  /** Absent for an image-only prompt. */
  text: z.string().optional(),
  /** Queued behind a running turn (zot writes it only when true). */
  queued: z.boolean().optional(),
  image_count: z.number().int().nonnegative().optional(),
});
/** `tool_result.result`: the result as the host bounded it. */
export const ObservedResult = z.object({
  content: z.array(JsonObject),
  is_error: z.boolean(),
  truncated: z.boolean().optional(),
});
export const ToolResultEvent = z.object({
  ...eventBase,
  ...origin,
  event: z.literal('tool_result'),
  tool_id: z.string(),
  tool_name: z.string(),
  /** The args the tool got (after rewrites). */
  tool_args: JsonObject.optional(),
  /** The args as text, instead of `tool_args`, when they are not JSON. */
  tool_args_raw: z.string().optional(),
  /** `completed`, `failed`, `blocked`, `cancelled` or `timed_out`. */
  status: z.string(),
  executed: z.boolean(),
  result: ObservedResult,
});
export const PermissionDecisionEvent = z.object({
  ...eventBase,
  ...origin,
  event: z.literal('permission_decision'),
  tool_id: z.string(),
  tool_name: z.string(),
  /** `approved`, `denied` or `cancelled`. */
  decision: z.string(),
  /** `user`, `remembered`, `policy` or `yolo`. */
  source: z.string(),
  /** `pre_execution` or `tool_execution`. */
  stage: z.string(),
  reason: z.string().optional(),
});
const compaction = { compaction_id: z.string(), message_count: z.number(), token_estimate: z.number() };
const subagent = { agent_id: z.string(), agent_run_id: z.string(), name: z.string() };
/** `completed`, `failed`, `cancelled` or `timed_out`. */
const outcome = { status: z.string(), error: z.string().optional() };
export const PreCompactEvent = z.object({ ...eventBase, event: z.literal('pre_compact'), ...compaction });
export const PostCompactEvent = z.object({ ...eventBase, event: z.literal('post_compact'), ...compaction, ...outcome });
export const SubagentStartEvent = z.object({ ...eventBase, event: z.literal('subagent_start'), ...subagent });
export const SubagentStopEvent = z.object({ ...eventBase, event: z.literal('subagent_stop'), ...subagent, ...outcome });

/** Any other event name the embedding agent chooses to emit. */
export const CustomEvent = z.looseObject({
  type: z.literal('event'),
  event: z.string().refine((name) => !KNOWN_EVENTS.has(name), 'known events must match their schema'),
});

export const EventFrame = z.union([
  SessionStartEvent,
  TurnStartEvent,
  TurnEndEvent,
  ToolCallEvent,
  ToolConfirmationRequestedEvent,
  AssistantMessageEvent,
  SessionEndEvent,
  UserPromptSubmitEvent,
  ToolResultEvent,
  PermissionDecisionEvent,
  PreCompactEvent,
  PostCompactEvent,
  SubagentStartEvent,
  SubagentStopEvent,
  CustomEvent,
]);
export type EventFrame = z.infer<typeof EventFrame>;

const interceptBase = { type: z.literal('event_intercept'), id: z.string() };

export const ToolCallIntercept = z.object({
  ...interceptBase,
  event: z.literal('tool_call'),
  tool_id: z.string(),
  tool_name: z.string(),
  tool_args: JsonObject,
  ...origin,
});
export const TurnStartIntercept = z.object({ ...interceptBase, event: z.literal('turn_start'), step: z.number() });
export const AssistantMessageIntercept = z.object({
  ...interceptBase,
  event: z.literal('assistant_message'),
  text: z.string(),
});
export const BeforeAgentStartIntercept = z.object({
  ...interceptBase,
  event: z.literal('before_agent_start'),
  session_id: z.string(),
  agent_run_id: z.string(),
  cwd: z.string(),
  provider: z.string(),
  model: z.string(),
  system_prompt: z.string(),
});

export const EventInterceptFrame = z.discriminatedUnion('event', [
  ToolCallIntercept,
  TurnStartIntercept,
  AssistantMessageIntercept,
  BeforeAgentStartIntercept,
]);
export type EventInterceptFrame = z.infer<typeof EventInterceptFrame>;

export const PanelKeyName = z.enum(PANEL_KEYS);
export type PanelKeyName = z.infer<typeof PanelKeyName>;
/**
 * A panel key: one of the spec's names (`PANEL_KEYS`), or any other non-empty name, forwarded as it
 * is (zot may send `unknown`); an extension gets it as it came.
 */
export type PanelKey = PanelKeyName | (string & {});

export const PanelKeyFrame = z.object({
  type: z.literal('panel_key'),
  panel_id: z.string(),
  key: PanelKeyName,
  /** The typed character, for `key: "rune"`. */
  text: z.string().optional(),
});
export type PanelKeyFrame = z.infer<typeof PanelKeyFrame>;

export const ShutdownFrame = z.object({ type: z.literal('shutdown') });
export type ShutdownFrame = z.infer<typeof ShutdownFrame>;

/**
 * zot's `tool_cancel`, sent only to an extension that declared "tool_cancel" in `hello` (and not
 * "cancel", which gets ours): the host gave up on tool call `id`. Not in HostFrame, like `cancel`.
 */
export const ToolCancelFrame = z.object({ type: z.literal('tool_cancel'), id: z.string() });
export type ToolCancelFrame = z.infer<typeof ToolCancelFrame>;

/**
 * zot's answer to an extension's `call_tool` (same `type` as the extension's `tool_result`, another
 * frame): the tool's result, bounded (docs/protocol.md "zot versions"). Not in HostFrame, like `cancel`.
 */
export const CallToolResultFrame = z.object({
  type: z.literal('tool_result'),
  id: z.string(),
  name: z.string(),
  content: z.array(ContentBlock),
  /** Present only when true. */
  is_error: z.boolean().optional(),
  /** Present only when true: the host cut the result (blocks or text over its bound). */
  truncated: z.boolean().optional(),
});
export type CallToolResultFrame = z.infer<typeof CallToolResultFrame>;

export const HostFrame = z.union([
  HelloAckFrame,
  CommandInvokedFrame,
  ToolCallFrame,
  EventFrame,
  EventInterceptFrame,
  PanelKeyFrame,
  PanelCloseFrame,
  ShutdownFrame,
]);
/** Any frame the host may send to an extension. */
export type HostFrame = z.infer<typeof HostFrame>;
