// An extension's one registration of a kind is held without a Map: it reads like a Map of it.
import { describe, expect, it } from 'vitest';
import { OneEntryMap } from '../../src/host/one-entry-map.js';

describe('OneEntryMap', () => {
  it('answers like a Map of its one entry', () => {
    const one = new OneEntryMap('echo', { n: 1 });
    const map = new Map([['echo', { n: 1 }]]);
    expect(one.size).toBe(map.size);
    expect(one.has('echo')).toBe(true);
    expect(one.has('other')).toBe(false);
    expect(one.get('echo')).toEqual({ n: 1 });
    expect(one.get('other')).toBeUndefined();
    expect([...one]).toEqual([...map]);
    expect([...one.entries()]).toEqual([...map.entries()]);
    expect([...one.keys()]).toEqual(['echo']);
    expect([...one.values()]).toEqual([{ n: 1 }]);
    expect(new Map(one)).toEqual(map);
    const seen: unknown[] = [];
    const context = {};
    one.forEach(function (this: unknown, value, key, m) {
      seen.push(value, key, m === one, this === context);
    }, context);
    expect(seen).toEqual([{ n: 1 }, 'echo', true, true]);
  });

  it('compares keys like a Map (SameValueZero)', () => {
    expect(new OneEntryMap(Number.NaN, 'x').has(Number.NaN)).toBe(true);
    expect(new OneEntryMap(0, 'x').get(-0)).toBe('x');
    expect(new OneEntryMap<unknown, string>('1', 'x').has(1)).toBe(false);
  });
});
