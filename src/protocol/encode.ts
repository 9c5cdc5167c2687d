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
 * `encodeFrame({ ...frame, id })` without the copy: the id goes last, after the frame's own fields.
 * Spreading a caller's object into a fresh one makes JSON.stringify several times slower.
 */
export function encodeRequest(frame: object, id: string): string {
  if ('id' in frame) return encodeFrame({ ...frame, id });
  const json = JSON.stringify(frame);
  const fields = json.length > 2 ? ',' : '';
  return `${escapeLineSeparators(`${json.slice(0, -1)}${fields}"id":${JSON.stringify(id)}}`)}\n`;
}
