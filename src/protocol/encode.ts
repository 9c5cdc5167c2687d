// Host -> extension encoding. No zod here: the process layer imports this at load time.

const LINE_SEPARATORS = /[\u2028\u2029]/g;

/**
 * One JSON object + LF. U+2028/U+2029 are escaped so that readers which treat them as line breaks
 * (readline, some editors' tooling) still see one frame per line; the JSON value is unchanged.
 */
export function encodeFrame(frame: object): string {
  const json = JSON.stringify(frame);
  // indexOf, not the regexp alone: a regexp costs ~100 ns per line even when it cannot match.
  if (json.indexOf('\u2028') === -1 && json.indexOf('\u2029') === -1) return `${json}\n`;
  return `${json.replace(LINE_SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'))}\n`;
}
