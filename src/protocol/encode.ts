// Host -> extension encoding. No zod here: the process layer imports this at load time.

const HAS_LINE_SEPARATOR = /[\u2028\u2029]/;
const LINE_SEPARATORS = /[\u2028\u2029]/g;

function escapeLineSeparators(json: string): string {
  return HAS_LINE_SEPARATOR.test(json) ? json.replace(LINE_SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029')) : json;
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
  // Top-level and nested stringify differ only by the key a toJSON() sees.
  if (typeof args !== 'object' || args === null || typeof (args as { toJSON?: unknown }).toJSON === 'function') return undefined;
  let argsJson: string;
  try {
    argsJson = JSON.stringify(args);
  } catch {
    return undefined; // the generic path throws the same error, with the same message
  }
  if (typeof argsJson !== 'string') return undefined;
  const head = `{"type":"event_intercept","event":"tool_call","tool_id":${JSON.stringify(toolId)},"tool_name":${JSON.stringify(toolName)},"tool_args":${argsJson},"id":`;
  // JSON.stringify leaves U+2028/U+2029 as they are: only these parts can hold one. Testing them
  // (flat strings) spares flattening the concatenated head here.
  return HAS_LINE_SEPARATOR.test(argsJson) || HAS_LINE_SEPARATOR.test(toolId) || HAS_LINE_SEPARATOR.test(toolName)
    ? escapeLineSeparators(head)
    : head;
}

/** A request's line from its head (toolCallInterceptHead) and its id, already encoded as a JSON string. */
export function requestLine(head: string, idJson: string): string {
  return `${head}${HAS_LINE_SEPARATOR.test(idJson) ? escapeLineSeparators(idJson) : idJson}}\n`;
}

/**
 * `encodeFrame({ ...frame, id })` without the copy: the id goes last, after the frame's own fields.
 * Spreading a caller's object into a fresh one makes JSON.stringify several times slower.
 * `idJson` is the id already encoded as a JSON string.
 */
export function encodeRequest(frame: object, idJson: string): string {
  const json = JSON.stringify(frame);
  if ('id' in frame || json.length <= 2) return encodeFrame({ ...frame, id: JSON.parse(idJson) as unknown });
  if (HAS_LINE_SEPARATOR.test(json) || HAS_LINE_SEPARATOR.test(idJson)) {
    return `${escapeLineSeparators(`${json.slice(0, -1)},"id":${idJson}}`)}\n`;
  }
  return `${json.slice(0, -1)},"id":${idJson}}\n`;
}
