/**
 * Zod-free validation of the frames on the hot path: the responses to requests (`tool_result`,
 * `event_intercept_response`, `command_response`). The zod schemas in frames.ts stay the only
 * definition; this is a shortcut for the common, plainly valid shape, tested to give exactly the
 * schema's output. Anything else (a `null`, an unknown key, a wrong type) returns `undefined` and
 * goes through the schema, which also produces the error message.
 *
 * An accepted object is returned as is: with no unknown keys and no `null` to drop, it already is
 * what the schema would build, without the copies.
 */
import type { CommandResponseFrame, EventInterceptResponseFrame, ToolResultFrame } from './frames.js';
import { KNOWN_ACTIONS } from './names.js';

type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isStringArray(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return false;
  return true;
}

function isContentBlock(value: unknown): boolean {
  if (!isObject(value)) return false;
  let keys = 0;
  for (const key in value) {
    keys++;
    if (key !== 'type' && key !== 'text' && key !== 'mime_type' && key !== 'data') return false;
  }
  if (value.type === 'text') return keys === 2 && typeof value.text === 'string';
  if (value.type === 'image') return keys === 3 && typeof value.mime_type === 'string' && typeof value.data === 'string';
  return false;
}

function isToolResult(frame: Json): boolean {
  for (const key in frame) {
    const value = frame[key];
    switch (key) {
      case 'type':
        break;
      case 'id':
        if (typeof value !== 'string') return false;
        break;
      case 'content':
        if (!Array.isArray(value)) return false;
        for (let i = 0; i < value.length; i++) if (!isContentBlock(value[i])) return false;
        break;
      case 'is_error':
        if (typeof value !== 'boolean') return false;
        break;
      case 'activate_tools':
        if (!isStringArray(value)) return false;
        break;
      default:
        return false;
    }
  }
  return typeof frame.id === 'string';
}

function isInterceptResponse(frame: Json): boolean {
  for (const key in frame) {
    const value = frame[key];
    switch (key) {
      case 'type':
      // Validated per event by the intercept chain; the schema keeps any value, null included.
      case 'modified_args':
      case 'replace_text':
      case 'system_prompt':
        break;
      case 'id':
      case 'reason':
        if (typeof value !== 'string') return false;
        break;
      case 'block':
        if (typeof value !== 'boolean') return false;
        break;
      default:
        return false;
    }
  }
  return typeof frame.id === 'string';
}

function isPanelSpec(value: unknown): boolean {
  if (!isObject(value)) return false;
  for (const key in value) {
    const field = value[key];
    switch (key) {
      case 'id':
      case 'title':
      case 'footer':
        if (typeof field !== 'string') return false;
        break;
      case 'lines':
        if (!isStringArray(field)) return false;
        break;
      default:
        return false;
    }
  }
  return typeof value.id === 'string' && value.id.length > 0;
}

function isCommandResponse(frame: Json): boolean {
  for (const key in frame) {
    const value = frame[key];
    switch (key) {
      case 'type':
        break;
      case 'id':
      case 'prompt':
      case 'insert':
      case 'display':
      case 'error':
        if (typeof value !== 'string') return false;
        break;
      case 'action':
        if (!KNOWN_ACTIONS.has(value)) return false;
        break;
      case 'open_panel':
        if (!isPanelSpec(value)) return false;
        break;
      default:
        return false;
    }
  }
  return typeof frame.id === 'string';
}

/**
 * `frame` (a parsed JSON object whose `type` is already known) as a response frame, when it is in
 * the plain valid shape; `undefined` when the schema must decide.
 */
export function hotFrame(
  frame: Json,
  type: string,
): ToolResultFrame | EventInterceptResponseFrame | CommandResponseFrame | undefined {
  switch (type) {
    case 'tool_result':
      return isToolResult(frame) ? (frame as ToolResultFrame) : undefined;
    case 'event_intercept_response':
      return isInterceptResponse(frame) ? (frame as EventInterceptResponseFrame) : undefined;
    case 'command_response':
      return isCommandResponse(frame) ? (frame as CommandResponseFrame) : undefined;
    default:
      return undefined;
  }
}
