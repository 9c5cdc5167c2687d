// Every name list of the protocol, defined once. The zod schemas (frames.ts), the zod-free frame
// checker (frame-check.ts), the host and the SDK derive theirs from these; names.test.ts and
// names.test-d.ts hold the schemas to them. No imports and no zod here: the main entry imports them.

/** The `type` of every frame an extension may send. */
export const EXTENSION_FRAME_TYPE_NAMES = [
  'hello',
  'register_command',
  'register_tool',
  'ready',
  'tool_result',
  'subscribe',
  'event_intercept_response',
  'command_response',
  'submit',
  'panel_render',
  'panel_close',
  'notify',
  'clear_notes',
  'shutdown_ack',
  // zot's additions after the snapshot (docs/protocol.md "zot versions"), not negotiated:
  'open_panel',
  // zot's, after the spec snapshot (docs/protocol.md "zot versions"):
  'submit_slash',
  // zot's `call_tool` (docs/protocol.md "zot versions"): any extension may send them; one that did
  // not declare "call_tool" is answered with an error, as zot does.
  'call_tool',
  'call_tool_cancel',
] as const;
export type ExtensionFrameTypeName = (typeof EXTENSION_FRAME_TYPE_NAMES)[number];

/** The `type` of every frame the host may send. */
export const HOST_FRAME_TYPE_NAMES = [
  'hello_ack',
  'command_invoked',
  'tool_call',
  'event',
  'event_intercept',
  'panel_key',
  'panel_close',
  'shutdown',
] as const;
export type HostFrameTypeName = (typeof HOST_FRAME_TYPE_NAMES)[number];

/**
 * Extensions to the zot protocol (docs/protocol.md), each sent only to or accepted only from an
 * extension that declared it in `hello.capabilities`: the capability names, and the frames they add.
 */
export const PROTOCOL_CAPABILITIES = ['cancel', 'progress', 'trace', 'unregister'] as const;
export type ProtocolCapability = (typeof PROTOCOL_CAPABILITIES)[number];
/**
 * Capabilities zot itself reads from `hello.capabilities` (upstream, after the spec snapshot;
 * docs/protocol.md "zot versions"): `tool_cancel` gets zot's `tool_cancel` frame, `call_tool` lets
 * the extension call tools. Declaring any capability of either list marks an extension as newer than
 * the snapshot (process/negotiation.ts `isSnapshotEra`).
 */
export const UPSTREAM_CAPABILITIES = ['tool_cancel', 'call_tool'] as const;
export type UpstreamCapability = (typeof UPSTREAM_CAPABILITIES)[number];
/**
 * Host -> extension frames added by a capability (`cancel`; zot's `tool_cancel`), or sent only as
 * the answer to an extension's request (zot's `tool_result`, the answer to `call_tool`).
 */
export const NEGOTIATED_HOST_FRAME_TYPE_NAMES = ['cancel', 'tool_cancel', 'tool_result'] as const;
/** What `hello_ack.capabilities` may list: the negotiated extensions of ours, and zot's `call_tool`. */
export const HELLO_ACK_CAPABILITIES = [...PROTOCOL_CAPABILITIES, 'call_tool'] as const;
/** Extension -> host frames added by a capability (`progress`; `unregister_tool` of `unregister`). */
export const NEGOTIATED_EXTENSION_FRAME_TYPE_NAMES = ['progress', 'unregister_tool'] as const;

/** Lifecycle events an extension may observe. */
export const EVENT_NAMES = [
  'session_start',
  'turn_start',
  'turn_end',
  'tool_call',
  'tool_confirmation_requested',
  'assistant_message',
  // zot's, after the spec snapshot (docs/protocol.md "zot versions"): observe-only.
  'session_end',
  'user_prompt_submit',
  'tool_result',
  'permission_decision',
  'pre_compact',
  'post_compact',
  'subagent_start',
  'subagent_stop',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** Events an extension may intercept. */
export const INTERCEPT_NAMES = ['tool_call', 'turn_start', 'assistant_message', 'before_agent_start'] as const;
export type InterceptEventName = (typeof INTERCEPT_NAMES)[number];

/** `action` of a `command_response`. */
export const COMMAND_ACTIONS = ['prompt', 'insert', 'display', 'open_panel', 'noop', 'tool_prompt'] as const;
export type CommandActionName = (typeof COMMAND_ACTIONS)[number];

export const NOTIFY_LEVELS = ['info', 'success', 'warn', 'error'] as const;
export type NotifyLevel = (typeof NOTIFY_LEVELS)[number];

export const PANEL_KEYS = [
  'up',
  'down',
  'left',
  'right',
  'enter',
  'esc',
  'tab',
  'pageup',
  'pagedown',
  'home',
  'end',
  'backspace',
  'delete',
  'rune',
] as const;

// Membership sets of the lists that are looked up per frame.
export const EXTENSION_FRAME_TYPES: ReadonlySet<string> = new Set(EXTENSION_FRAME_TYPE_NAMES);
export const KNOWN_EVENTS: ReadonlySet<string> = new Set(EVENT_NAMES);
export const KNOWN_ACTIONS: ReadonlySet<unknown> = new Set(COMMAND_ACTIONS);
