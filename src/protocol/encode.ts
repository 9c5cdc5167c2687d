// Host -> extension encoding. No zod here: the process layer imports this at load time.

const LINE_SEPARATORS = /[\u2028\u2029]/g;

/**
 * True when `text` holds U+2028 or U+2029. `indexOf` of a character above U+00FF returns at once
 * for a one-byte string (what JSON.stringify makes of ASCII and Latin-1 text), and scans a
 * two-byte one several times faster than a regexp; a regexp's `test()` costs ~100 ns even when
 * it cannot match.
 */
function hasLineSeparator(text: string): boolean {
  return text.indexOf('\u2028') !== -1 || text.indexOf('\u2029') !== -1;
}

function escapeLineSeparators(json: string): string {
  return hasLineSeparator(json) ? json.replace(LINE_SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029')) : json;
}

/** The JSON of `args` when it is what JSON.stringify would write for it as a nested value; else undefined. */
function nestedArgsJson(args: unknown): string | undefined {
  // Top-level and nested stringify differ only by the key a toJSON() sees.
  if (typeof args !== 'object' || args === null || typeof (args as { toJSON?: unknown }).toJSON === 'function') return undefined;
  let json: string;
  try {
    json = JSON.stringify(args);
  } catch {
    return undefined; // the generic path throws the same error, with the same message
  }
  return typeof json === 'string' ? json : undefined;
}

/**
 * One JSON object + LF. U+2028/U+2029 are escaped so that readers which treat them as line breaks
 * (readline, some editors' tooling) still see one frame per line; the JSON value is unchanged.
 */
export function encodeFrame(frame: object): string {
  return `${escapeLineSeparators(JSON.stringify(frame))}\n`;
}

/**
 * Template encoding of the `event_intercept` tool_call request, which an intercept chain sends to
 * each of its extensions in turn (see intercept/extension-step.ts): the frame
 * `{"type":"event_intercept","event":"tool_call","tool_id":…,"tool_name":…,"tool_args":…}` is
 * encoded once, up to its id, and each request's line is `requestLine(head, idJson)`: the same bytes
 * as `encodeRequest(frame, idJson)`, without stringifying the args again. `undefined` when a field
 * would make the template differ from JSON.stringify (encodeRequest then encodes, or throws, as usual).
 */
export function toolCallInterceptHead(toolId: unknown, toolName: unknown, args: unknown): string | undefined {
  if (typeof toolId !== 'string' || typeof toolName !== 'string') return undefined;
  const argsJson = nestedArgsJson(args);
  if (argsJson === undefined) return undefined;
  const head = `{"type":"event_intercept","event":"tool_call","tool_id":${JSON.stringify(toolId)},"tool_name":${JSON.stringify(toolName)},"tool_args":${argsJson},"id":`;
  // JSON.stringify leaves U+2028/U+2029 as they are: only these parts can hold one. Testing them
  // (flat strings) spares flattening the concatenated head here.
  return hasLineSeparator(argsJson) || hasLineSeparator(toolId) || hasLineSeparator(toolName) ? escapeLineSeparators(head) : head;
}

/** The last tool name toolCallHead() saw, and its frame's start: callers mostly call one tool after another. */
let lastToolName: string | undefined;
let lastToolStart = '';

/**
 * Template encoding of a `tool_call` request `{"type":"tool_call","name":…,"args":…}` up to its id,
 * for `requestLine(head, idJson)`: the same bytes as `encodeRequest({ type: 'tool_call', name, args }, idJson)`,
 * without stringifying the frame around the args, slicing it open and concatenating it again.
 * `undefined` when the template would differ from JSON.stringify (encodeRequest then encodes, or throws).
 */
export function toolCallHead(name: unknown, args: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const argsJson = nestedArgsJson(args);
  if (argsJson === undefined) return undefined;
  if (name !== lastToolName) {
    lastToolStart = escapeLineSeparators(`{"type":"tool_call","name":${JSON.stringify(name)},"args":`);
    lastToolName = name;
  }
  return `${lastToolStart}${hasLineSeparator(argsJson) ? escapeLineSeparators(argsJson) : argsJson},"id":`;
}

/** A request's line from its head (toolCallInterceptHead) and its id, already encoded as a JSON string. */
export function requestLine(head: string, idJson: string): string {
  return `${head}${hasLineSeparator(idJson) ? escapeLineSeparators(idJson) : idJson}}\n`;
}

/**
 * `encodeFrame({ ...frame, id })` without the copy: the id goes last, after the frame's own fields.
 * Spreading a caller's object into a fresh one makes JSON.stringify several times slower.
 * `idJson` is the id already encoded as a JSON string.
 */
export function encodeRequest(frame: object, idJson: string): string {
  const json = JSON.stringify(frame);
  if ('id' in frame || json.length <= 2) return encodeFrame({ ...frame, id: JSON.parse(idJson) as unknown });
  if (hasLineSeparator(json) || hasLineSeparator(idJson)) {
    return `${escapeLineSeparators(`${json.slice(0, -1)},"id":${idJson}}`)}\n`;
  }
  return `${json.slice(0, -1)},"id":${idJson}}\n`;
}
