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
 * @internal Brands an `event_intercept` tool_call frame whose own keys are exactly, in this order,
 * `type`, `event`, `tool_id`, `tool_name`, `tool_args`: encodeRequest() then writes it from a
 * template (same bytes as JSON.stringify) instead of stringifying the whole frame and splicing the id.
 * A branded frame is encoded once: its fields must not change after its first request. The intercept
 * chain sends one such frame to every extension of a chain call until a rewrite changes the args.
 */
export const TOOL_CALL_INTERCEPT = Symbol('zot-extension-host.toolCallIntercept');

/** Where a branded frame keeps its encoding up to the id: `{...,"id":`, or null for the generic path. */
const HEAD = Symbol('zot-extension-host.encodedHead');

interface ToolCallInterceptFrame {
  tool_id: unknown;
  tool_name: unknown;
  tool_args: unknown;
  [HEAD]?: string | null;
}

/** The branded frame's line up to the id, or null when a field would make the template differ from JSON.stringify. */
function toolCallInterceptHead(frame: ToolCallInterceptFrame): string | null {
  const { tool_id: toolId, tool_name: toolName, tool_args: args } = frame;
  if (typeof toolId !== 'string' || typeof toolName !== 'string') return null;
  // Top-level and nested stringify differ only by the key a toJSON() sees.
  if (typeof args !== 'object' || args === null || typeof (args as { toJSON?: unknown }).toJSON === 'function') return null;
  let argsJson: string;
  try {
    argsJson = JSON.stringify(args);
  } catch {
    return null; // the generic path throws the same error, with the same message
  }
  if (typeof argsJson !== 'string') return null;
  const head = `{"type":"event_intercept","event":"tool_call","tool_id":${JSON.stringify(toolId)},"tool_name":${JSON.stringify(toolName)},"tool_args":${argsJson},"id":`;
  // JSON.stringify leaves U+2028/U+2029 as they are: only these parts can hold one. Testing them
  // (flat strings) spares flattening the concatenated head here.
  return HAS_LINE_SEPARATOR.test(argsJson) || HAS_LINE_SEPARATOR.test(toolId) || HAS_LINE_SEPARATOR.test(toolName)
    ? escapeLineSeparators(head)
    : head;
}

/**
 * `encodeFrame({ ...frame, id })` without the copy: the id goes last, after the frame's own fields.
 * Spreading a caller's object into a fresh one makes JSON.stringify several times slower.
 * `idJson` is the id already encoded as a JSON string.
 */
export function encodeRequest(frame: object, idJson: string): string {
  if ((frame as { [TOOL_CALL_INTERCEPT]?: true })[TOOL_CALL_INTERCEPT] === true) {
    const branded = frame as ToolCallInterceptFrame;
    let head = branded[HEAD];
    if (head === undefined) {
      head = toolCallInterceptHead(branded);
      branded[HEAD] = head;
    }
    if (head !== null) return `${head}${HAS_LINE_SEPARATOR.test(idJson) ? escapeLineSeparators(idJson) : idJson}}\n`;
  }
  const json = JSON.stringify(frame);
  if ('id' in frame || json.length <= 2) return encodeFrame({ ...frame, id: JSON.parse(idJson) as unknown });
  if (HAS_LINE_SEPARATOR.test(json) || HAS_LINE_SEPARATOR.test(idJson)) {
    return `${escapeLineSeparators(`${json.slice(0, -1)},"id":${idJson}}`)}\n`;
  }
  return `${json.slice(0, -1)},"id":${idJson}}\n`;
}
