/**
 * The wire without zod, both ways: `encodeFrame()` makes a frame one line, and `decodeLine()` makes
 * one line from an extension a frame, or a `LineProblem` saying why it is not one (end of file).
 * Between them sits the host's one frame checker, table-driven: one shape per frame type named in
 * names.ts (`EXTENSION_FRAMES`, typed by `ExtensionFrameTypeName`, so a new name needs a shape), the
 * `progress` frame, and the fields of each known event (`EVENT_FIELDS`, by `EventName`).
 *
 * Why not zod: importing zod costs ~100 ms and ~11 MB of RSS (docs/performance.md), which a program
 * that only imports the package, or starts extensions that send the usual frames, should not pay.
 * The zod schemas of frames.ts stay the only public definition of the wire types; this checker takes
 * the plain valid shape of a frame, in which the schema's output is the input itself, and returns the
 * parsed object as it is. Anything else (a `null`, an unknown key, a wrong type) is `undefined`: the
 * schema decides and words the problem (codec.ts, loaded on first use). test/protocol/frame-check.test.ts
 * holds the two in agreement, frame type by frame type.
 */
import type { ExtensionFrame, HelloFrame, ProgressFrame } from './frames.js';
import { MAX_PROGRESS_MESSAGE } from './limits.js';
import { type EventName, type ExtensionFrameTypeName, KNOWN_ACTIONS, KNOWN_EVENTS } from './names.js';

type Json = Record<string, unknown>;

/**
 * What a field may hold: `name` a non-empty string, `message` a string of at most
 * MAX_PROGRESS_MESSAGE characters, `number` a finite one, `record` a JSON object, `any` anything
 * (kept as sent), `json` anything but `null` (which the schema reads as absent), `action` a command action, `panel` a panel spec, `content` result blocks.
 */
type Field = 'string' | 'name' | 'message' | 'number' | 'boolean' | 'strings' | 'record' | 'json' | 'any' | 'action' | 'panel' | 'content';

/** A frame's fields besides `type` (each optional unless `required`; no other key). */
interface Shape {
  readonly fields: Readonly<Record<string, Field>>;
  readonly required: readonly string[];
}

/** The fields have no prototype: a parsed frame's own `__proto__` key is unknown here like any other. */
const shape = (fields: Record<string, Field>, ...required: string[]): Shape => ({ fields: Object.assign(Object.create(null) as Record<string, Field>, fields), required });

/**
 * Every extension -> host frame by type (`hello` also keeps unknown keys: see checkHello), without a
 * prototype (see `shape`): looking a type up is the check that it is known.
 */
const EXTENSION_FRAMES: Readonly<Record<string, Shape | undefined>> = Object.assign(Object.create(null) as Record<string, Shape>, {
  hello: shape({ name: 'string', version: 'string', capabilities: 'strings' }, 'name'),
  register_command: shape({ name: 'name', description: 'string' }, 'name'),
  register_tool: shape(
    {
      name: 'name',
      description: 'string',
      schema: 'json',
      deferred: 'boolean',
      interactive: 'boolean',
      output_schema: 'json',
      namespace: 'string',
      namespace_description: 'string',
      namespace_instructions: 'string',
      exposure: 'string',
      replay: 'string',
      annotations: 'json',
    },
    'name',
  ),
  ready: shape({}),
  tool_result: shape({ id: 'string', content: 'content', is_error: 'boolean', activate_tools: 'strings', structured_content: 'json' }, 'id'),
  subscribe: shape({ events: 'strings', intercept: 'strings' }),
  // modified_args, replace_text, system_prompt: validated per event by the intercept chain.
  event_intercept_response: shape({ id: 'string', block: 'boolean', reason: 'string', modified_args: 'any', replace_text: 'any', system_prompt: 'any' }, 'id'),
  command_response: shape({ id: 'string', action: 'action', prompt: 'string', insert: 'string', display: 'string', open_panel: 'panel', error: 'string', tool_name: 'string', tool_args: 'record' }, 'id'),
  submit: shape({ text: 'string' }, 'text'),
  panel_render: shape({ panel_id: 'name', title: 'string', lines: 'strings', footer: 'string' }, 'panel_id'),
  panel_close: shape({ panel_id: 'name' }, 'panel_id'),
  notify: shape({ level: 'string', message: 'string' }, 'message'),
  clear_notes: shape({}),
  shutdown_ack: shape({}),
  open_panel: shape({ panel: 'panel' }, 'panel'),
  submit_slash: shape({ text: 'string' }, 'text'),
  // Loose as zot reads them: the host answers a missing name or bad args (host/call-tool.ts).
  call_tool: shape({ id: 'string', name: 'string', args: 'any', parent_id: 'string' }),
  call_tool_cancel: shape({ id: 'string' }),
} satisfies Record<ExtensionFrameTypeName, Shape>);

/** Capability "progress". */
const PROGRESS = shape({ id: 'string', message: 'message', progress: 'number', total: 'number' }, 'id');
const PANEL = shape({ id: 'name', title: 'string', lines: 'strings', footer: 'string' }, 'id');
const TEXT_BLOCK = shape({ text: 'string', format: 'string' }, 'text');
const IMAGE_BLOCK = shape({ mime_type: 'string', data: 'string' }, 'mime_type', 'data');

/**
 * What an event field may hold (`emit()`): `count` a non-negative safe integer, `result` zot's observed
 * tool result (`{content: JSON objects, is_error, truncated?}`); a trailing `?` makes it optional.
 */
type EventField = 'string' | 'number' | 'count' | 'boolean' | 'record' | 'result';
type EventFields = Readonly<Record<string, EventField | `${EventField}?`>>;

/** zot's fields on every event (session_id, cwd, sequence) and on tool events (origin_extension). */
const LIFECYCLE: EventFields = { session_id: 'string?', cwd: 'string?', sequence: 'count?' };
const TOOL: EventFields = { ...LIFECYCLE, tool_id: 'string', tool_name: 'string', origin_extension: 'string?' };
const COMPACTION: EventFields = { ...LIFECYCLE, compaction_id: 'string', message_count: 'number', token_estimate: 'number' };
const SUBAGENT: EventFields = { ...LIFECYCLE, agent_id: 'string', agent_run_id: 'string', name: 'string' };
const OUTCOME: EventFields = { status: 'string', error: 'string?' };

/** The fields of each known event (`emit()`); extra fields are sent along, other names are custom events. */
const EVENT_FIELDS: Readonly<Record<EventName, EventFields>> = {
  session_start: LIFECYCLE,
  turn_start: { ...LIFECYCLE, step: 'number' },
  turn_end: { ...LIFECYCLE, stop: 'string' },
  tool_call: { ...TOOL, tool_args: 'record' },
  tool_confirmation_requested: { ...TOOL, tool_preview: 'string' },
  assistant_message: { ...LIFECYCLE, text: 'string' },
  session_end: { ...LIFECYCLE, reason: 'string' },
  user_prompt_submit: { ...LIFECYCLE, text: 'string?', queued: 'boolean?', image_count: 'count?' },
  tool_result: { ...TOOL, tool_args: 'record?', tool_args_raw: 'string?', status: 'string', executed: 'boolean', result: 'result' },
  permission_decision: { ...TOOL, decision: 'string', source: 'string', stage: 'string', reason: 'string?' },
  pre_compact: COMPACTION,
  post_compact: { ...COMPACTION, ...OUTCOME },
  subagent_start: SUBAGENT,
  subagent_stop: { ...SUBAGENT, ...OUTCOME },
};

const hasOwn = (value: object, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key);

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStrings(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (typeof item !== 'string') return false;
  return true;
}

/**
 * A JSON object as zod's `z.record(z.string(), …)` takes one: a plain object (or one without a
 * prototype) without enumerable symbol keys. `exact`: also one zod copies unchanged (no own
 * `__proto__` key, which JSON.parse makes and a copy turns into a prototype).
 */
function isRecord(value: unknown, exact: boolean): boolean {
  if (!isObject(value)) return false;
  if (exact && hasOwn(value, '__proto__')) return false;
  const ctor: unknown = (value as { constructor?: unknown }).constructor;
  if (typeof ctor === 'function') {
    const proto: unknown = (ctor as { prototype?: unknown }).prototype;
    if (!isObject(proto) || !hasOwn(proto, 'isPrototypeOf')) return false;
  }
  return !Object.getOwnPropertySymbols(value).some((key) => Object.prototype.propertyIsEnumerable.call(value, key));
}

/** A result block in its plain valid shape: text, image, or a block of another type with only its type. */
function isBlock(value: unknown): boolean {
  if (!isObject(value)) return false;
  const { type } = value;
  if (type === 'text') return fits(value, TEXT_BLOCK, true);
  if (type === 'image') return fits(value, IMAGE_BLOCK, true);
  // Another type is kept as `{ type }` only (frames.ts ResultBlock): unchanged when that is all it has.
  if (typeof type !== 'string') return false;
  for (const key in value) if (key !== 'type') return false;
  return true;
}

function fitsField(value: unknown, field: Field): boolean {
  switch (field) {
    case 'string':
      return typeof value === 'string';
    case 'name':
      return typeof value === 'string' && value.length > 0;
    case 'message':
      return typeof value === 'string' && value.length <= MAX_PROGRESS_MESSAGE;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'strings':
      return isStrings(value);
    case 'record':
      return isRecord(value, true);
    case 'json':
      return value !== null;
    case 'any':
      return true;
    case 'action':
      return KNOWN_ACTIONS.has(value);
    case 'panel':
      return isObject(value) && fits(value, PANEL, false);
    case 'content':
      if (!Array.isArray(value)) return false;
      for (let i = 0; i < value.length; i++) if (!isBlock(value[i])) return false;
      return true;
  }
}

/** Every key of `value` is a field of `shape` that fits (`type` skipped when `typed`), and every required one is there. */
function fits(value: Json, { fields, required }: Shape, typed: boolean): boolean {
  for (const key in value) {
    if (typed && key === 'type') continue;
    const field = fields[key];
    if (field === undefined || !fitsField(value[key], field)) return false;
  }
  for (let i = 0; i < required.length; i++) if (value[required[i]!] === undefined) return false;
  return true;
}

/** `hello` keeps unknown keys (z.looseObject): rebuilt with the schema's keys first, as zod builds it. */
function checkHello(frame: Json): HelloFrame | undefined {
  const { fields } = EXTENSION_FRAMES.hello!;
  if (hasOwn(frame, '__proto__') || typeof frame.name !== 'string') return undefined;
  const hello: Json = { type: 'hello' };
  for (const key in fields) {
    const value = frame[key];
    if (value === undefined) continue;
    if (!fitsField(value, fields[key]!)) return undefined;
    hello[key] = value;
  }
  for (const key in frame) if (!hasOwn(hello, key)) hello[key] = frame[key];
  return hello as HelloFrame;
}

/**
 * `frame` (a parsed JSON object whose `type` is a known extension frame type) as that frame, when
 * it is in its plain valid shape; `undefined` when the schema must decide.
 */
export function checkFrame(frame: Json, type: ExtensionFrameTypeName): ExtensionFrame | undefined {
  const known = EXTENSION_FRAMES[type];
  return known === undefined ? undefined : checkKnown(frame, type, known);
}

/** checkFrame() with the type's shape already looked up (decodeLine). */
function checkKnown(frame: Json, type: string, known: Shape): ExtensionFrame | undefined {
  if (type === 'hello') return checkHello(frame);
  return fits(frame, known, true) ? (frame as ExtensionFrame) : undefined;
}

/** A `progress` frame in its plain valid shape, or `undefined` for the schema. */
export function checkProgress(frame: Json): ProgressFrame | undefined {
  return frame.type === 'progress' && fits(frame, PROGRESS, true) ? (frame as ProgressFrame) : undefined;
}

const EXPECTED: Readonly<Record<EventField, string>> = {
  string: 'a string',
  number: 'a finite number',
  count: 'a non-negative integer',
  boolean: 'a boolean',
  record: 'a JSON object',
  result: 'an object with content (JSON objects) and is_error (boolean)',
};

function fitsEventField(value: unknown, kind: EventField): boolean {
  switch (kind) {
    case 'count':
      return Number.isSafeInteger(value) && (value as number) >= 0;
    case 'record':
      return isRecord(value, false);
    case 'result': {
      if (!isObject(value)) return false;
      const { content, is_error, truncated } = value;
      return Array.isArray(content) && content.every((block) => isRecord(block, false)) && typeof is_error === 'boolean' && (truncated === undefined || typeof truncated === 'boolean');
    }
    default:
      return fitsField(value, kind);
  }
}

function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) : `a ${typeof value}`;
}

/**
 * Why `event` (an `emit()` argument) is not a valid event, or `undefined` when it is: accepts
 * exactly what the `EventFrame` schema accepts.
 */
export function eventProblem(event: Record<string, unknown>): string | undefined {
  const name = event.event;
  if (typeof name !== 'string') return `event must be a string naming the event, got ${shown(name)}`;
  if (!KNOWN_EVENTS.has(name)) return undefined;
  const fields = EVENT_FIELDS[name as EventName];
  for (const field in fields) {
    const spec = fields[field]!;
    const optional = spec.endsWith('?');
    const kind = (optional ? spec.slice(0, -1) : spec) as EventField;
    const value = event[field];
    if (optional && value === undefined) continue;
    if (!fitsEventField(value, kind)) return `${name} ${optional ? 'takes' : 'needs'} ${field}: ${EXPECTED[kind]}, got ${shown(value)}`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Decoding: one line from an extension, once
// ---------------------------------------------------------------------------------------------
//
// Every line goes through decodeLine() once:
//
// 1. `JSON.parse` (a failure is `not_json`), an object check (`not_object`) and a known `type`
//    (`unknown_type`, from names.ts);
// 2. the frame checker above: a frame in its plain valid shape is returned as parsed, without zod,
//    so that a usual start and usual calls need no schema at all;
// 3. the zod path (codec.ts): everything else is checked by the frame schemas of frames.ts, the only
//    definition of the wire types, which also word the `invalid` problems.
//
// The zod path is loaded on first use, by `loadCodec()` (why: the top of this file). Until it is
// loaded, a frame that needs it is an `invalid` problem that `needsCodec()` recognises (never a
// throw): the process layer then holds that line and the ones after it, loads the codec and decodes
// them in order.

export type FrameProblem =
  | { kind: 'not_json'; message: string }
  | { kind: 'not_object'; message: string }
  | { kind: 'unknown_type'; message: string; type: string }
  | { kind: 'invalid'; message: string; type: string; id?: string | undefined };

export type DecodedFrame = { ok: true; frame: ExtensionFrame } | { ok: false; problem: FrameProblem };

/**
 * A line that is not a valid frame, shaped as the failed `DecodedFrame`. It has no `type`, which
 * every frame has (a string): `isLineProblem()` tells the two apart by that one field, several
 * times cheaper per frame than `instanceof` on the many shapes of parsed frames.
 */
export class LineProblem {
  readonly type: undefined = undefined;
  readonly ok = false as const;
  /**
   * `unchecked`: only a problem because there was no codec (see needsCodec). `value`: the parsed
   * object of an `unknown_type` line, so that a `progress` line is not parsed again.
   */
  constructor(
    readonly problem: FrameProblem,
    readonly unchecked = false,
    readonly value: Record<string, unknown> | undefined = undefined,
  ) {}
}

/** What `decodeLine()` returns: the frame, or why the line is not one. */
export type DecodedLine = ExtensionFrame | LineProblem;

/** True when `decoded` is a problem, not a frame. */
export function isLineProblem(decoded: { readonly type: unknown } | LineProblem): decoded is LineProblem {
  return decoded.type === undefined;
}

/** The zod path, as `loadCodec()` resolves it (codec.ts). */
export interface CodecModule {
  /** The schema's verdict on a parsed object whose `type` is a known extension frame type. */
  schemaFrame(value: Record<string, unknown>, type: string): DecodedLine;
  /** The `progress` schema's verdict (capability "progress"). */
  progressFrame(value: Record<string, unknown>): ProgressFrame | LineProblem;
}

let loading: Promise<CodecModule> | undefined;

/** Loads the zod path (codec.ts, and with it zod) once, on first use (why: the top of this file); every call returns the same promise. */
export function loadCodec(): Promise<CodecModule> {
  return (loading ??= import('./codec.js'));
}

const PREVIEW = 120;

const NOT_LOADED = (type: string) => `${type} frame not checked: the frame schemas are not loaded`;

/** True when `decoded` is only a problem because `decodeLine()` had no codec: decode the line again with it. */
export function needsCodec(decoded: LineProblem): boolean {
  return decoded.unchecked;
}

/** A short, printable excerpt of a line for diagnostics. */
export function preview(text: string): string {
  const oneLine = text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text;
  return JSON.stringify(oneLine);
}

/**
 * One line from an extension as a frame, or a `LineProblem`. Never throws. `codec` is the loaded
 * zod path (see above); `fastPath: false` sends every frame through it (for tests).
 */
export function decodeLine(line: string, codec: CodecModule | undefined, fastPath = true): DecodedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return new LineProblem({ kind: 'not_json', message: `not JSON (${(err as Error).message}): ${preview(line)}` });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return new LineProblem({ kind: 'not_object', message: `not a JSON object: ${preview(line)}` });
  }
  const { type } = value as { type?: unknown };
  const known = typeof type === 'string' ? EXTENSION_FRAMES[type] : undefined;
  if (known === undefined) {
    const shown = typeof type === 'string' ? type : String(type);
    return new LineProblem({ kind: 'unknown_type', type: shown, message: `unknown frame type ${JSON.stringify(type ?? null)}: ${preview(line)}` }, false, value as Record<string, unknown>);
  }
  if (fastPath) {
    const frame = checkKnown(value as Record<string, unknown>, type as string, known);
    if (frame !== undefined) return frame;
  }
  if (codec === undefined) {
    const id = (value as { id?: unknown }).id;
    return new LineProblem({ kind: 'invalid', type: type as string, message: NOT_LOADED(type as string), id: typeof id === 'string' ? id : undefined }, true);
  }
  return codec.schemaFrame(value as Record<string, unknown>, type as string);
}

/**
 * A `progress` line (decodeLine() calls it an unknown type: it is one for a plain zot extension),
 * from an extension that negotiated "progress", as the parsed object decodeLine() kept in its
 * problem (`LineProblem.value`): the frame, or why it is not a valid one.
 */
export function decodeProgress(value: Record<string, unknown>, codec: CodecModule | undefined): ProgressFrame | LineProblem {
  const plain = checkProgress(value);
  if (plain !== undefined) return plain;
  if (codec === undefined) return new LineProblem({ kind: 'invalid', type: 'progress', message: NOT_LOADED('progress') }, true);
  return codec.progressFrame(value);
}

/** `decodeLine()`'s result as a `DecodedFrame` (a plain object either way). */
export function toDecodedFrame(decoded: DecodedLine): DecodedFrame {
  return isLineProblem(decoded) ? { ok: false, problem: decoded.problem } : { ok: true, frame: decoded };
}

// ---------------------------------------------------------------------------------------------
// Encoding: host -> extension
// ---------------------------------------------------------------------------------------------

const LINE_SEPARATORS = /[\u2028\u2029]/g;

/**
 * One JSON object + LF. U+2028/U+2029 are escaped so that readers which treat them as line breaks
 * (readline, some editors' tooling) still see one frame per line; the JSON value is unchanged.
 */
export function encodeFrame(frame: object): string {
  return line(JSON.stringify(frame));
}

function line(json: string): string {
  // indexOf, not the regexp alone: a regexp costs ~100 ns per line even when it cannot match.
  if (json.indexOf('\u2028') === -1 && json.indexOf('\u2029') === -1) return `${json}\n`;
  return `${json.replace(LINE_SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'))}\n`;
}

/**
 * A request frame given its `id` (set on the frame, last), as one line: the bytes of encodeFrame().
 * A `tool_call` of a name and args only, nearly every request, is put together from its parts. Why:
 * Node 20's JSON.stringify spends ~2,000 instructions more on the whole frame than on its args
 * alone, a quarter of the host's own work per pipelined call (docs/performance.md, "Core v3, the
 * pipelined limit"). test/protocol/frame-check.test.ts holds both ways to the same bytes.
 */
export function encodeRequest(frame: { type: string; id?: string; [field: string]: unknown }, id: string): string {
  frame.id = id;
  const { type, name, args } = frame as Record<string, unknown>;
  if (type === 'tool_call' && typeof name === 'string' && typeof args === 'object' && args !== null && typeof (args as { toJSON?: unknown }).toJSON !== 'function' && onlyKeys(frame, TOOL_CALL_KEYS)) {
    return line(`{"type":"tool_call","name":${JSON.stringify(name)},"args":${JSON.stringify(args)},"id":${JSON.stringify(id)}}`);
  }
  return line(JSON.stringify(frame));
}

const TOOL_CALL_KEYS: ReadonlySet<string> = new Set(['type', 'name', 'args', 'id']);

/** `value` has no enumerable key outside `keys`. */
function onlyKeys(value: object, keys: ReadonlySet<string>): boolean {
  for (const key in value) if (!keys.has(key)) return false;
  return true;
}
