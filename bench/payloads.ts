/**
 * Tool arguments that are not `{"x":1}`: strings full of JSON escapes (quotes, backslashes, control
 * characters, U+2028/U+2029, which the host escapes on the wire), non-ASCII text (Latin-1, CJK,
 * astral emoji) and enough of them to be large. The echo children answer with their JSON.
 */

/** One segment of mixed text: every kind of escape and non-ASCII the encoders treat specially. */
const SEGMENT = 'Grüße "quoted" C:\\path\\to\\zoë\ttab\nline — 世界 ☃ 🚀 \u2028\u2029 <a href="x">&amp;</a> \u0001\u001f ';

function build(count: number): Record<string, unknown> {
  return {
    payload: {
      text: SEGMENT.repeat(count),
      path: '/home/zoë/projects/"weird" name/\\escaped\\',
      lines: Array.from({ length: count }, (_, i) => `${i}: ${SEGMENT.slice(0, 24 + (i % 16))}`),
      nested: { ok: true, n: 3.14, unicode: '日本語テキスト', empty: '', list: [1, 'two', null, { k: 'v' }] },
    },
  };
}

/** `{ payload: {...} }` whose JSON is about `bytes` bytes of UTF-8 (whole segments, no split pairs). */
export function mixedArgs(bytes: number): Record<string, unknown> {
  // The size is linear in the segment count.
  const one = jsonBytes(build(1));
  const per = jsonBytes(build(2)) - one;
  return build(Math.max(1, Math.round((bytes - one) / per) + 1));
}

/** UTF-8 bytes of an args object's JSON (what the rows are labelled with). */
export function jsonBytes(args: unknown): number {
  return Buffer.byteLength(JSON.stringify(args));
}
