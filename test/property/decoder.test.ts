// Arbitrary byte streams into the decoder (and each line into the frame codec) never throw, never
// hold more than the frame cap, and never produce a line with an LF in it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeExtensionFrame } from '../../src/protocol/codec.js';
import { LineDecoder } from '../../src/protocol/decoder.js';

const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  // Mostly-JSON noise: frames, fragments, LFs, CRs, invalid UTF-8.
  fc
    .array(fc.constantFrom('{"type":"notify","message":"x"}', '{"type":', '\n', '\r', '\r\n', '"\u2028"', '{}', '[', '1e400', '{"__proto__":{}}', '\u00ff', '🎉'), { maxLength: 30 })
    .map((parts) => new Uint8Array(Buffer.concat([...parts.map((p) => Buffer.from(p, 'utf8')), Buffer.from([0xff, 0xc3])]))),
);

describe('LineDecoder and decodeExtensionFrame under arbitrary bytes', () => {
  it('never throw, respect the cap, and never produce more lines than LFs (+1)', () => {
    fc.assert(
      fc.property(bytes, fc.array(fc.nat({ max: 300 }), { maxLength: 8 }), fc.integer({ min: 8, max: 200 }), (data, cuts, cap) => {
        const lines: string[] = [];
        let overflowed = false;
        const decoder = new LineDecoder(
          (line) => {
            lines.push(line);
            const decoded = decodeExtensionFrame(line);
            expect(typeof decoded.ok).toBe('boolean');
          },
          () => {
            overflowed = true;
          },
          { maxFrameBytes: cap },
        );
        const buffer = Buffer.from(data);
        let from = 0;
        for (const cut of [...cuts].sort((a, b) => a - b)) {
          const to = Math.min(cut, buffer.length);
          decoder.push(buffer.subarray(from, to));
          from = Math.max(from, to);
          expect(decoder.buffered).toBeLessThanOrEqual(cap + 1);
        }
        decoder.push(buffer.subarray(from));
        decoder.end();
        // At most one line per LF, plus an unterminated last one at end(); none contains an LF.
        const lfs = buffer.toString('latin1').split('\n').length - 1;
        expect(lines.length).toBeLessThanOrEqual(lfs + 1);
        for (const line of lines) expect(line.includes('\n')).toBe(false);
        if (overflowed) expect(decoder.closed).toBe(true);
      }),
      { seed: 1212, numRuns: 500 },
    );
  });
});
