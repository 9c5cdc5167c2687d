import { describe, expect, it } from 'vitest';
import { CLOSED_PANELS_LIMIT, ClosedPanels } from '../../src/host/closed-panels.js';

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

  it('stays bounded under a flood of closed panel ids, forgetting the oldest', () => {
    const closed = new ClosedPanels<string>();
    for (let i = 0; i < 100_000; i++) closed.closed(`p${i}`, 'a');
    expect(closed.size).toBe(CLOSED_PANELS_LIMIT);
    expect(closed.late('p0', 'a')).toBeUndefined();
    expect(closed.late('p99999', 'a')).toBe(1);
  });
});
