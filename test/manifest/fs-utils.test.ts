import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareCodePoints, isInside, mapLimit, sortByBytes } from '../../src/manifest/fs-utils.js';

describe('byte order', () => {
  it('sorts like the UTF-8 bytes', () => {
    expect(sortByBytes(['z', '\u{1F600}', 'a', '\uFF5E', 'ä', 'B', 'ab', ''], (s) => s)).toEqual([
      '', 'B', 'a', 'ab', 'z', 'ä', '\uFF5E', '\u{1F600}',
    ]);
  });

  it('agrees with Buffer.compare on any two strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(Buffer.compare(Buffer.from(a), Buffer.from(b)));
      }),
      { seed: 7, numRuns: 2000 },
    );
  });
});

describe('mapLimit', () => {
  it('keeps order and never exceeds the limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const items = Array.from({ length: 50 }, (_, i) => i);
    const out = await mapLimit(items, 4, async (i) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      // Finish in a scrambled order.
      for (let k = 0; k < (i * 7) % 5; k++) await Promise.resolve();
      inFlight--;
      return i * 2;
    });
    expect(out).toEqual(items.map((i) => i * 2));
    expect(peak).toBe(4);
  });
});

describe('isInside', () => {
  it('accepts the directory and what is below it, nothing else', () => {
    expect(isInside('/a/b', '/a/b')).toBe(true);
    expect(isInside('/a/b', '/a/b/c/d')).toBe(true);
    expect(isInside('/a/b', '/a/b..c')).toBe(false);
    expect(isInside('/a/b', '/a/bc')).toBe(false);
    expect(isInside('/a/b', '/a')).toBe(false);
    expect(isInside('/a/b', '/x/y')).toBe(false);
  });
});
