// Deadlines.move(): a request whose deadline a progress frame restarted leaves its old group's
// timer (which may still time out the others of that group) and is timed out by its new one only.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadlines, type Timed } from '../../src/connection/deadlines.js';

interface Entry extends Timed {
  name: string;
}
const entry = (name: string): Entry => ({ name, settled: false, deadline: undefined });

describe('Deadlines.move', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('skips a moved entry at its old group timer, keeps timing out the rest of that group', () => {
    const fired: string[] = [];
    const deadlines = new Deadlines<Entry>((e) => fired.push(e.name));
    const a = entry('a');
    const b = entry('b');
    a.deadline = deadlines.join(a, 300);
    b.deadline = deadlines.join(b, 300);
    deadlines.endTick();
    vi.advanceTimersByTime(200);
    deadlines.move(a, 300);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['b']);
    vi.advanceTimersByTime(199);
    expect(fired).toEqual(['b']);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['b', 'a']);
  });

  it('moves the only entry of a kept group again and again (the timer is reused)', () => {
    const fired: string[] = [];
    const deadlines = new Deadlines<Entry>((e) => fired.push(e.name));
    const a = entry('a');
    a.deadline = deadlines.join(a, 300);
    deadlines.endTick();
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(250);
      deadlines.move(a, 300);
    }
    expect(fired).toEqual([]);
    // A request of a later tick with the same timeout is not put into the moved entry's group
    // with a stale start: it times out 300 ms after it joined.
    vi.advanceTimersByTime(100);
    const c = entry('c');
    c.deadline = deadlines.join(c, 300);
    deadlines.endTick();
    vi.advanceTimersByTime(200);
    expect(fired).toEqual(['a']);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['a', 'c']);
  });

  it('a moved entry that settles is timed out by neither group', () => {
    const fired: string[] = [];
    const deadlines = new Deadlines<Entry>((e) => fired.push(e.name));
    const a = entry('a');
    a.deadline = deadlines.join(a, 100);
    deadlines.endTick();
    deadlines.move(a, 200);
    deadlines.release(a);
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual([]);
  });
});

describe('Deadlines of one tick with different timeouts', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('groups the requests of each timeout, each timed out at its own deadline; the next tick starts new groups', () => {
    const fired: string[] = [];
    const deadlines = new Deadlines<Entry>((e, ms) => fired.push(`${e.name}@${ms}`));
    const tick1 = ['a', 'b', 'c', 'd'].map(entry);
    const timeouts = [100, 200, 100, 300];
    tick1.forEach((e, i) => (e.deadline = deadlines.join(e, timeouts[i]!)));
    // Same timeout, same group.
    expect(tick1[0]!.deadline).toBe(tick1[2]!.deadline);
    expect(new Set(tick1.map((e) => e.deadline)).size).toBe(3);
    deadlines.endTick();
    vi.advanceTimersByTime(50);
    const later = entry('e');
    later.deadline = deadlines.join(later, 200);
    expect(later.deadline).not.toBe(tick1[1]!.deadline);
    deadlines.endTick();
    vi.advanceTimersByTime(50);
    expect(fired).toEqual(['a@100', 'c@100']);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['a@100', 'c@100', 'b@200']);
    vi.advanceTimersByTime(50);
    expect(fired).toEqual(['a@100', 'c@100', 'b@200', 'e@200']);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['a@100', 'c@100', 'b@200', 'e@200', 'd@300']);
  });

  it('a request moved to a timeout no group of the tick has does not open one for the later requests of the tick', () => {
    const fired: string[] = [];
    const deadlines = new Deadlines<Entry>((e) => fired.push(e.name));
    const a = entry('a');
    const b = entry('b');
    a.deadline = deadlines.join(a, 100);
    deadlines.move(a, 300);
    vi.advanceTimersByTime(100);
    b.deadline = deadlines.join(b, 300);
    deadlines.endTick();
    vi.advanceTimersByTime(200);
    expect(fired).toEqual(['a']);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['a', 'b']);
  });
});
