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
