// The protocol's name lists. No zod here: the package's main entry imports them.
import type { ExtensionFrameType } from './frames.js';

/** Lifecycle events an extension may observe. */
export const EVENT_NAMES = [
  'session_start',
  'turn_start',
  'turn_end',
  'tool_call',
  'tool_confirmation_requested',
  'assistant_message',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** Events an extension may intercept. */
export const INTERCEPT_NAMES = ['tool_call', 'turn_start', 'assistant_message', 'before_agent_start'] as const;

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

/** The `type` of every frame an extension may send. */
export const EXTENSION_FRAME_TYPES: ReadonlySet<string> = new Set<ExtensionFrameType>([
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
]);
