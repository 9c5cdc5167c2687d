/**
 * Zod-free validation of the frames of start-up (`hello`, `register_command`, `register_tool`,
 * `subscribe`, `ready`) and of the other small one-way frames (`notify`, `submit`, `panel_render`,
 * `panel_close`, `clear_notes`, `shutdown_ack`), as hot-frames.ts
 * does for the responses: the plain valid shape is checked here and gives exactly the schema's
 * output (test/protocol/plain-frames.test.ts); anything else (a `null`, an unknown key, a wrong
 * type, an empty name) returns `undefined` and goes to the schemas of frames.ts, which also word
 * the problem. With these, an extension that starts in the usual way never needs zod: it loads
 * only for a frame off this path (decode-line.ts). `progress` (capability "progress") likewise.
 */
import { isObject, isStringArray } from './hot-frames.js';
import { MAX_PROGRESS_MESSAGE } from './limits.js';
import type {
  ClearNotesFrame,
  HelloFrame,
  NotifyFrame,
  PanelCloseFrame,
  PanelRenderFrame,
  ProgressFrame,
  ReadyFrame,
  RegisterCommandFrame,
  RegisterToolFrame,
  ShutdownAckFrame,
  SubmitFrame,
  SubscribeFrame,
} from './frames.js';

type Json = Record<string, unknown>;

export type PlainFrame =
  | HelloFrame
  | RegisterCommandFrame
  | RegisterToolFrame
  | SubscribeFrame
  | ReadyFrame
  | NotifyFrame
  | SubmitFrame
  | PanelRenderFrame
  | PanelCloseFrame
  | ClearNotesFrame
  | ShutdownAckFrame;

/** A JSON object as `z.record(z.string(), z.unknown())` keeps it (an own `__proto__` key is left to the schema). */
function isPlainRecord(value: unknown): value is Json {
  return isObject(value) && !Object.prototype.hasOwnProperty.call(value, '__proto__');
}

/**
 * What each key of a frame may hold, per `fields` (every key but `type` optional unless `required`;
 * no other key): `name` a non-empty string, `message` one of at most MAX_PROGRESS_MESSAGE
 * characters, `number` a finite one.
 */
type Field = 'string' | 'name' | 'message' | 'strings' | 'record' | 'boolean' | 'number';

function hasShape(frame: Json, fields: Readonly<Record<string, Field>>, required: readonly string[]): boolean {
  for (const key in frame) {
    if (key === 'type') continue;
    const value = frame[key];
    switch (fields[key]) {
      case 'string':
        if (typeof value !== 'string') return false;
        break;
      case 'name':
        if (typeof value !== 'string' || value.length === 0) return false;
        break;
      case 'message':
        if (typeof value !== 'string' || value.length > MAX_PROGRESS_MESSAGE) return false;
        break;
      case 'number':
        if (typeof value !== 'number' || !Number.isFinite(value)) return false;
        break;
      case 'strings':
        if (!isStringArray(value)) return false;
        break;
      case 'record':
        if (!isPlainRecord(value)) return false;
        break;
      case 'boolean':
        if (typeof value !== 'boolean') return false;
        break;
      default:
        return false;
    }
  }
  for (const key of required) if (frame[key] === undefined) return false;
  return true;
}

const NOTIFY: Record<string, Field> = { level: 'string', message: 'string' };
const SUBMIT: Record<string, Field> = { text: 'string' };
const PANEL_RENDER: Record<string, Field> = { panel_id: 'name', title: 'string', lines: 'strings', footer: 'string' };
const PANEL_CLOSE: Record<string, Field> = { panel_id: 'name' };
const REGISTER_COMMAND: Record<string, Field> = { name: 'name', description: 'string' };
const REGISTER_TOOL: Record<string, Field> = { name: 'name', description: 'string', schema: 'record', deferred: 'boolean' };
const SUBSCRIBE: Record<string, Field> = { events: 'strings', intercept: 'strings' };
const ONLY_TYPE: Record<string, Field> = {};
const PROGRESS: Record<string, Field> = { id: 'string', message: 'message', progress: 'number', total: 'number' };

/** `hello` keeps unknown keys (z.looseObject); its output has the schema's keys first, as zod builds it. */
function plainHello(frame: Json): HelloFrame | undefined {
  const { name, version, capabilities } = frame;
  if (typeof name !== 'string') return undefined;
  if (version !== undefined && typeof version !== 'string') return undefined;
  if (capabilities !== undefined && !isStringArray(capabilities)) return undefined;
  if (Object.prototype.hasOwnProperty.call(frame, '__proto__')) return undefined;
  const hello: Json = { type: 'hello', name };
  if (version !== undefined) hello.version = version;
  if (capabilities !== undefined) hello.capabilities = capabilities;
  for (const key in frame) if (!Object.prototype.hasOwnProperty.call(hello, key)) hello[key] = frame[key];
  return hello as HelloFrame;
}

/**
 * `frame` (a parsed JSON object whose `type` is already known) as one of the frames above, when it
 * is in the plain valid shape; `undefined` when the schema must decide.
 */
export function plainFrame(frame: Json, type: string): PlainFrame | undefined {
  switch (type) {
    case 'register_command':
      return hasShape(frame, REGISTER_COMMAND, ['name']) ? (frame as RegisterCommandFrame) : undefined;
    case 'register_tool':
      return hasShape(frame, REGISTER_TOOL, ['name']) ? (frame as RegisterToolFrame) : undefined;
    case 'hello':
      return plainHello(frame);
    case 'subscribe':
      return hasShape(frame, SUBSCRIBE, []) ? (frame as SubscribeFrame) : undefined;
    case 'notify':
      return hasShape(frame, NOTIFY, ['message']) ? (frame as NotifyFrame) : undefined;
    case 'submit':
      return hasShape(frame, SUBMIT, ['text']) ? (frame as SubmitFrame) : undefined;
    case 'panel_render':
      return hasShape(frame, PANEL_RENDER, ['panel_id']) ? (frame as PanelRenderFrame) : undefined;
    case 'panel_close':
      return hasShape(frame, PANEL_CLOSE, ['panel_id']) ? (frame as PanelCloseFrame) : undefined;
    case 'ready':
    case 'clear_notes':
    case 'shutdown_ack':
      return hasShape(frame, ONLY_TYPE, []) ? (frame as ReadyFrame | ClearNotesFrame | ShutdownAckFrame) : undefined;
    default:
      return undefined;
  }
}

/** A `progress` frame in its plain valid shape (as the schema gives it), or `undefined` for the schema. */
export function plainProgress(frame: Json): ProgressFrame | undefined {
  return frame.type === 'progress' && hasShape(frame, PROGRESS, ['id']) ? (frame as ProgressFrame) : undefined;
}
