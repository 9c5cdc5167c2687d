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
