// The pending requests by number: slots of an array, with room made (or a Map beside them) when a
// number's slot is taken by a request that stays pending.
import { describe, expect, it } from 'vitest';
import { PendingTable } from '../../src/connection/pending-table.js';

const entry = (seq: number) => ({ seq, name: `r${seq}` });

describe('PendingTable', () => {
  it('before its first entry (no slots made yet): nothing is found, removed or listed; the first add works', () => {
    const table = new PendingTable<ReturnType<typeof entry>>();
    expect(table.get(0)).toBeUndefined();
    expect(table.has(1)).toBe(false);
    expect(table.delete(0)).toBe(false);
    expect(table.values()).toEqual([]);
    table.clear();
    expect(table.size).toBe(0);
    table.add(entry(16));
    table.add(entry(17));
    expect(table.get(16)?.name).toBe('r16');
    expect(table.has(0)).toBe(false);
    expect(table.size).toBe(2);
    // A second table starts empty too: the shared empty slots were not written.
    expect(new PendingTable<ReturnType<typeof entry>>().has(16)).toBe(false);
  });

  it('finds, counts and removes entries by number; unknown numbers are absent', () => {
    const table = new PendingTable<ReturnType<typeof entry>>();
    for (let seq = 1; seq <= 5; seq++) table.add(entry(seq));
    expect(table.size).toBe(5);
    expect(table.get(3)?.name).toBe('r3');
    expect(table.has(6)).toBe(false);
    expect(table.has(0)).toBe(false);
    expect(table.delete(3)).toBe(true);
    expect(table.delete(3)).toBe(false);
    expect(table.has(3)).toBe(false);
    expect(table.size).toBe(4);
    expect(table.values().map((e) => e.seq).sort((a, b) => a - b)).toEqual([1, 2, 4, 5]);
  });

  it('keeps a request that stays pending while thousands of others come and go, without growing for it', () => {
    const table = new PendingTable<ReturnType<typeof entry>>();
    table.add(entry(1));
    // One call at a time after it: every 16th number lands on its slot.
    for (let seq = 2; seq <= 10_000; seq++) {
      table.add(entry(seq));
      expect(table.get(seq)?.seq).toBe(seq);
      expect(table.delete(seq)).toBe(true);
    }
    expect(table.get(1)?.name).toBe('r1');
    expect(table.size).toBe(1);
    expect((table as unknown as { slots: unknown[] }).slots).toHaveLength(16);
    expect(table.delete(1)).toBe(true);
    expect(table.size).toBe(0);
  });

  it('grows for many in flight, with the entries that waited beside the slots placed anew', () => {
    const table = new PendingTable<ReturnType<typeof entry>>();
    // Long-lived ones first, then 1,000 at once, settling out of order.
    table.add(entry(1));
    table.add(entry(17));
    for (let seq = 100; seq < 1100; seq++) table.add(entry(seq));
    expect(table.size).toBe(1002);
    for (const seq of [1, 17, 100, 555, 1099]) expect(table.get(seq)?.seq).toBe(seq);
    for (let seq = 1099; seq >= 100; seq -= 2) expect(table.delete(seq)).toBe(true);
    expect(table.size).toBe(502);
    expect(table.values().map((e) => e.seq).sort((a, b) => a - b)).toEqual([1, 17, ...Array.from({ length: 500 }, (_, i) => 100 + i * 2)]);
  });

  it('numbers past 2^32 (a host that ran for a long time) still map to their own entries', () => {
    const table = new PendingTable<ReturnType<typeof entry>>();
    const base = 2 ** 40;
    for (let i = 0; i < 40; i++) table.add(entry(base + i));
    table.add(entry(base + 2 ** 32 + 3)); // the same low 32 bits as base + 3
    expect(table.get(base + 3)?.seq).toBe(base + 3);
    expect(table.get(base + 2 ** 32 + 3)?.seq).toBe(base + 2 ** 32 + 3);
    expect(table.delete(base + 2 ** 32 + 3)).toBe(true);
    expect(table.get(base + 3)?.seq).toBe(base + 3);
    expect(table.size).toBe(40);
  });

  it('clear() empties it', () => {
    const table = new PendingTable<ReturnType<typeof entry>>();
    table.add(entry(1));
    table.add(entry(17));
    table.clear();
    expect(table.size).toBe(0);
    expect(table.has(1) || table.has(17)).toBe(false);
    expect(table.values()).toEqual([]);
  });

  it('lists its entries in the order they were added, slots and waiting ones alike (close() rejects in send order)', () => {
    const table = new PendingTable<ReturnType<typeof entry>>();
    for (let seq = 1; seq <= 16; seq++) table.add(entry(seq));
    for (let seq = 1; seq <= 14; seq++) table.delete(seq);
    table.add(entry(17));
    // 16 and 17 sit in the first slots, 15 in the last.
    expect(table.values().map((e) => e.seq)).toEqual([15, 16, 17]);
  });
});
