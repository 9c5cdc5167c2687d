import { describe, expect, it } from 'vitest';
import { CLOSED_PANELS_LIMIT, ClosedPanels } from '../../src/host/panels.js';

describe('ClosedPanels', () => {
  it('knows who owned a closed panel, counts its late frames per close, and forgets on reopen', () => {
    const closed = new ClosedPanels<string>();
    closed.closed('p', 'a');
    expect(closed.late('p', 'b')).toBeUndefined();
    expect([closed.late('p', 'a'), closed.late('p', 'a')]).toEqual([1, 2]);
    closed.closed('p', 'a');
    expect(closed.late('p', 'a')).toBe(1);
    closed.opened('p');
    expect(closed.late('p', 'a')).toBeUndefined();
  });

  it('keeps one entry per (owner, id): two owners of "main" close and reopen independently', () => {
    const closed = new ClosedPanels<string>();
    closed.closed('main', 'a');
    closed.closed('main', 'b');
    expect(closed.size).toBe(2);
    expect([closed.late('main', 'a'), closed.late('main', 'b'), closed.late('main', 'c')]).toEqual([1, 1, undefined]);
    closed.opened('main', 'a');
    expect([closed.late('main', 'a'), closed.late('main', 'b')]).toEqual([undefined, 2]);
    expect(closed.size).toBe(1);
  });

  it('stays bounded when many owners close the same id, forgetting the oldest', () => {
    const closed = new ClosedPanels<number>();
    for (let owner = 0; owner < 10_000; owner++) closed.closed('main', owner);
    expect(closed.size).toBe(CLOSED_PANELS_LIMIT);
    expect(closed.late('main', 0)).toBeUndefined();
    expect(closed.late('main', 9_999)).toBe(1);
  });

  it('stays bounded under a flood of closed panel ids, forgetting the oldest', () => {
    const closed = new ClosedPanels<string>();
    for (let i = 0; i < 100_000; i++) closed.closed(`p${i}`, 'a');
    expect(closed.size).toBe(CLOSED_PANELS_LIMIT);
    expect(closed.late('p0', 'a')).toBeUndefined();
    expect(closed.late('p99999', 'a')).toBe(1);
  });
});
