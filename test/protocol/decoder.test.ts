import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LineDecoder } from '../../src/protocol/decoder.js';
import type { LineDecoderOptions } from '../../src/protocol/decoder.js';
import { DEFAULT_MAX_FRAME_BYTES } from '../../src/protocol/limits.js';

/** A decoder that records what it emits. */
function record(options: LineDecoderOptions = {}) {
  const lines: string[] = [];
  const overflows: [bytesSeen: number, limit: number][] = [];
  const decoder = new LineDecoder(
    (line) => lines.push(line),
    (bytesSeen, limit) => overflows.push([bytesSeen, limit]),
    options,
  );
  const push = (...chunks: (string | Buffer)[]) => {
    for (const chunk of chunks) decoder.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  };
  return { decoder, lines, overflows, push };
}

/** Cuts `bytes` at the given offsets, taken modulo its length (any order, duplicates allowed). */
function splitAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('LineDecoder', () => {
  describe('splitting', () => {
    // Characters of every UTF-8 width, plus the separators readline would wrongly split on.
    const unit = fc.constantFrom('a', 'z', '0', ' ', '"', '\\', 'é', 'ß', '中', '文', '字', '🎉', '𝄞', '\u2028', '\u2029', '\t');
    const frame = fc
      .record({
        type: fc.constantFrom('notify', 'tool_result', 'hello'),
        text: fc.string({ unit, maxLength: 40 }),
        n: fc.integer(),
        tags: fc.array(fc.string({ unit, maxLength: 5 }), { maxLength: 3 }),
      })
      .map((value) => JSON.stringify(value));
    const stream = fc.record({
      frames: fc.array(fc.tuple(frame, fc.constantFrom('\n', '\r\n')), { minLength: 1, maxLength: 12 }),
      unterminatedTail: fc.option(frame, { nil: undefined }),
      cuts: fc.array(fc.nat(), { maxLength: 40 }),
    });

    it('yields exactly the original lines for any split of the byte stream', () => {
      fc.assert(
        fc.property(stream, ({ frames, unterminatedTail, cuts }) => {
          const text = frames.map(([f, eol]) => f + eol).join('') + (unterminatedTail ?? '');
          const bytes = Buffer.from(text, 'utf8');
          const { decoder, lines, overflows, push } = record();
          push(...splitAt(bytes, cuts));
          expect(lines).toEqual(frames.map(([f]) => f));
          decoder.end();
          expect(lines).toEqual([...frames.map(([f]) => f), ...(unterminatedTail === undefined ? [] : [unterminatedTail])]);
          expect(overflows).toEqual([]);
        }),
        { seed: 42, numRuns: 300 },
      );
    });

    it('survives one byte per chunk (every multi-byte character cut)', () => {
      const text = '{"t":"é🎉中\u2028文\u2029"}\n{"t":"𝄞"}\r\n';
      const { lines, push } = record();
      push(...[...Buffer.from(text, 'utf8')].map((b) => Buffer.from([b])));
      expect(lines).toEqual(['{"t":"é🎉中\u2028文\u2029"}', '{"t":"𝄞"}']);
    });

    it('never splits on U+2028 / U+2029 or a lone CR', () => {
      const { lines, push } = record();
      push('a\u2028b\u2029c\rd\n');
      expect(lines).toEqual(['a\u2028b\u2029c\rd']);
    });

    it('emits several lines of one chunk in order', () => {
      const { lines, push } = record();
      push('one\ntwo\nthr', 'ee\nfour\n');
      expect(lines).toEqual(['one', 'two', 'three', 'four']);
    });
  });

  describe('line endings and blank lines', () => {
    it('strips exactly one CR before LF', () => {
      const { lines, push } = record();
      push('a\r\n', 'b\r\r\n', 'c\r', '\n');
      expect(lines).toEqual(['a', 'b\r', 'c']);
    });

    it('ignores a line that is only CR, empty, or only whitespace', () => {
      const { lines, push } = record();
      push('\r\n', '\n\n', '   \t\n', 'x\n', '\r\n');
      expect(lines).toEqual(['x']);
    });

    it('emits a final unterminated line only on end(), once', () => {
      const { decoder, lines, push } = record();
      push('first\nlast');
      expect(lines).toEqual(['first']);
      expect(decoder.buffered).toBe(4);
      decoder.end();
      decoder.end();
      expect(lines).toEqual(['first', 'last']);
      expect(decoder.buffered).toBe(0);
    });

    it('strips a trailing CR from the final unterminated line too', () => {
      const { decoder, lines, push } = record();
      push('last\r');
      decoder.end();
      expect(lines).toEqual(['last']);
    });
  });

  describe('frame size cap', () => {
    const max = 16;

    it('defaults to 4 MiB', () => {
      expect(new LineDecoder(() => {}, () => {}).maxFrameBytes).toBe(DEFAULT_MAX_FRAME_BYTES);
      expect(DEFAULT_MAX_FRAME_BYTES).toBe(4 * 1024 * 1024);
    });

    it('passes a line of exactly maxFrameBytes, with or without CR', () => {
      const { lines, overflows, push } = record({ maxFrameBytes: max });
      push(`${'a'.repeat(max)}\n`, `${'b'.repeat(max)}\r\n`);
      push('c'.repeat(max - 1), 'c', '\r', '\n');
      expect(lines).toEqual(['a'.repeat(max), 'b'.repeat(max), 'c'.repeat(max)]);
      expect(overflows).toEqual([]);
    });

    it('counts bytes, not characters', () => {
      const { lines, overflows, push } = record({ maxFrameBytes: max });
      push(`${'🎉'.repeat(4)}\n`); // 16 bytes
      expect(lines).toEqual(['🎉'.repeat(4)]);
      push(`${'🎉'.repeat(4)}a\n`); // 17 bytes
      expect(overflows).toEqual([[17, max]]);
    });

    it('reports one byte over the cap once, and emits nothing after it', () => {
      const { decoder, lines, overflows, push } = record({ maxFrameBytes: max });
      push('ok\n', `${'x'.repeat(max + 1)}\nafter\n`, 'more\n');
      decoder.end();
      expect(lines).toEqual(['ok']);
      expect(overflows).toEqual([[max + 1, max]]);
      expect(decoder.closed).toBe(true);
    });

    it('reports a line that grows past the cap across many chunks without any LF, once', () => {
      const { decoder, lines, overflows, push } = record({ maxFrameBytes: max });
      for (let i = 0; i < max; i++) push('y');
      expect(overflows).toEqual([]);
      push('y'); // max + 1 bytes, and the last one is not a CR: it can never fit
      expect(overflows).toEqual([[max + 1, max]]);
      for (let i = 0; i < 100; i++) push('y');
      push('\nlate\n');
      decoder.end();
      expect(overflows).toHaveLength(1);
      expect(lines).toEqual([]);
      expect(decoder.buffered).toBe(0);
    });

    it('waits for the LF when the byte past the cap is a CR', () => {
      const { lines, overflows, push } = record({ maxFrameBytes: max });
      push('z'.repeat(max), '\r');
      expect(overflows).toEqual([]);
      push('\n');
      expect(lines).toEqual(['z'.repeat(max)]);
    });

    it('reports a CR that turns out not to end the line', () => {
      const { overflows, push } = record({ maxFrameBytes: max });
      push('z'.repeat(max), '\r', 'z');
      expect(overflows).toEqual([[max + 2, max]]);
    });

    it('emits a final unterminated line of exactly maxFrameBytes on end()', () => {
      const { decoder, lines, overflows } = record({ maxFrameBytes: max });
      decoder.push(Buffer.from('w'.repeat(max)));
      decoder.end();
      expect(lines).toEqual(['w'.repeat(max)]);
      expect(overflows).toEqual([]);
    });

    it('holds no more than the cap (plus one chunk) while waiting for an LF', () => {
      const { decoder, push } = record({ maxFrameBytes: 1024 });
      for (let i = 0; i < 10; i++) {
        push('q'.repeat(100));
        expect(decoder.buffered).toBeLessThanOrEqual(1025);
      }
      push('q'.repeat(100));
      expect(decoder.closed).toBe(true);
      expect(decoder.buffered).toBe(0);
    });

    it('passes a real 4 MiB line and refuses 4 MiB + 1', () => {
      const ok = record();
      ok.push(Buffer.alloc(DEFAULT_MAX_FRAME_BYTES, 0x61), '\n');
      expect(ok.lines).toHaveLength(1);
      expect(ok.lines[0]).toHaveLength(DEFAULT_MAX_FRAME_BYTES);
      const tooBig = record();
      tooBig.push(Buffer.alloc(DEFAULT_MAX_FRAME_BYTES + 1, 0x61));
      expect(tooBig.overflows).toEqual([[DEFAULT_MAX_FRAME_BYTES + 1, DEFAULT_MAX_FRAME_BYTES]]);
    });
  });

  describe('a throwing sink', () => {
    /** A decoder whose sink records every line and throws on `bad`. */
    const failingOnBad = () => {
      const seen: string[] = [];
      const decoder = new LineDecoder(
        (line) => {
          seen.push(line);
          if (line === 'bad') throw new Error('sink failed');
        },
        () => {},
      );
      return { seen, decoder };
    };

    it('does not make the decoder replay the line', () => {
      const { seen, decoder } = failingOnBad();
      expect(() => decoder.push(Buffer.from('bad\n'))).toThrow('sink failed');
      decoder.push(Buffer.from('good\n'));
      expect(seen).toEqual(['bad', 'good']);
    });

    it('does not replay a line assembled from several chunks', () => {
      const { seen, decoder } = failingOnBad();
      decoder.push(Buffer.from('b'));
      decoder.push(Buffer.from('a'));
      expect(() => decoder.push(Buffer.from('d\n'))).toThrow('sink failed');
      expect(decoder.buffered).toBe(0);
      decoder.push(Buffer.from('next\n'));
      decoder.end();
      expect(seen).toEqual(['bad', 'next']);
    });
  });

  describe('work is linear in the input', () => {
    function countConcat() {
      const calls: number[] = [];
      const real = Buffer.concat.bind(Buffer);
      vi.spyOn(Buffer, 'concat').mockImplementation((list, totalLength) => {
        const result = real(list, totalLength);
        calls.push(result.length);
        return result;
      });
      return calls;
    }

    it('assembles a 4 MiB line from 64 KiB chunks with a single concatenation', () => {
      const calls = countConcat();
      const chunk = Buffer.alloc(64 * 1024, 0x62);
      const { lines, push } = record();
      for (let i = 0; i < 64; i++) push(chunk);
      push('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toHaveLength(4 * 1024 * 1024);
      expect(calls).toEqual([4 * 1024 * 1024]);
    });

    it('handles 1,000 chunks of one line copying each byte once', () => {
      const calls = countConcat();
      const chunk = Buffer.alloc(4096, 0x63);
      const { lines, push } = record();
      for (let i = 0; i < 1000; i++) push(chunk);
      push('\nnext\n');
      expect(lines.map((l) => l.length)).toEqual([4096 * 1000, 4]);
      expect(calls).toEqual([4096 * 1000]);
    });
  });
});
