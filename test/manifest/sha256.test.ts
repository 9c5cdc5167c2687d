import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/manifest/sha256.js';

const nodeSha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256Hex (log file names without loading node:crypto)', () => {
  it('matches node:crypto on block boundaries, multi-byte text and long input', () => {
    const inputs = ['', 'a', 'abc', 'a b', 'a?b', '.x', 'ünïcødé 名前 😀', '\u2028', 'x'.repeat(10_000)];
    // 55/56 bytes: the length no longer fits the first block; 63/64/65: around one block.
    for (const n of [54, 55, 56, 57, 63, 64, 65, 119, 120, 128]) inputs.push('n'.repeat(n));
    for (const text of inputs) expect(sha256Hex(text), JSON.stringify(text.slice(0, 20))).toBe(nodeSha256(text));
  });

  it('matches the FIPS 180-4 test vector', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
