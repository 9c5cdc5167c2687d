// Deadlines.move(): a request whose deadline a progress frame restarted leaves its old group's
// timer (which may still time out the others of that group) and is timed out by its new one only.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadlines, MAX_KEPT_DEADLINES, type Timed } from '../../src/connection/deadlines.js';

interface Entry extends Timed {
  name: string;
}
const entry = (name: string): Entry => ({ name, settled: false, deadline: undefined });
/** An entry that joined `deadlines` with `timeoutMs`, its tick over. */
function started(deadlines: Deadlines<Entry>, name: string, timeoutMs: number): Entry {
  const e = entry(name);
  e.deadline = deadlines.join(e, timeoutMs);
  deadlines.endTick();
  return e;
}

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
    const a = started(deadlines, 'a', 300);
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(250);
      deadlines.move(a, 300);
    }
    expect(fired).toEqual([]);
    // A request of a later tick with the same timeout is not put into the moved entry's group
    // with a stale start: it times out 300 ms after it joined.
    vi.advanceTimersByTime(100);
    started(deadlines, 'c', 300);
    vi.advanceTimersByTime(200);
    expect(fired).toEqual(['a']);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['a', 'c']);
  });

  it('a moved entry that settles is timed out by neither group', () => {
    const fired: string[] = [];
    const deadlines = new Deadlines<Entry>((e) => fired.push(e.name));
    const a = started(deadlines, 'a', 100);
    deadlines.move(a, 200);
    deadlines.release(a);
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual([]);
  });

  it('moves an entry to another timeout while a group of a different timeout is open in the tick', () => {
    const fired: string[] = [];
    const deadlines = new Deadlines<Entry>((e) => fired.push(e.name));
    const a = started(deadlines, 'a', 100);
    // b opens this tick's first group (500 ms); a moves to 300 ms, which opens and closes its own.
    const b = entry('b');
    b.deadline = deadlines.join(b, 500);
    deadlines.move(a, 300);
    // A later join of 300 in the same tick is not put into a's group (its timer started with the move)...
    const c = entry('c');
    c.deadline = deadlines.join(c, 300);
    // ...and one of 500 still finds b's group.
    const d = entry('d');
    d.deadline = deadlines.join(d, 500);
    expect(d.deadline).toBe(b.deadline);
    deadlines.endTick();
    vi.advanceTimersByTime(300);
    expect(fired.sort()).toEqual(['a', 'c']);
    vi.advanceTimersByTime(200);
    expect(fired.sort()).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('Deadlines with many timeouts', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('times out each request at its own deadline when more timeouts are used than are kept, one tick after another', () => {
    const fired: Record<string, number> = {};
    const deadlines = new Deadlines<Entry>((e) => (fired[e.name] = Date.now()));
    const start = Date.now();
    const count = MAX_KEPT_DEADLINES + 3;
    // Each tick one request of a new timeout (the oldest kept ones are evicted), then the first again.
    for (let i = 0; i < count; i++) {
      started(deadlines, `t${i}`, 1000 + i);
      vi.advanceTimersByTime(1);
    }
    started(deadlines, 'again', 1000);
    vi.advanceTimersByTime(3000);
    for (let i = 0; i < count; i++) expect(fired[`t${i}`]! - start).toBe(1000 + 2 * i);
    expect(fired.again! - start).toBe(count + 1000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('evicts the least recently used kept timer: a timeout used between all the others keeps its one timer', () => {
    const deadlines = new Deadlines<Entry>(() => {});
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const call = (timeoutMs: number) => {
      const e = started(deadlines, `t${timeoutMs}`, timeoutMs);
      deadlines.release(e);
    };
    call(1000);
    // Twice as many other timeouts as are kept, one at a time, each followed by the busy one.
    for (let i = 0; i < 2 * MAX_KEPT_DEADLINES; i++) {
      call(2000 + i);
      call(1000);
    }
    expect(setTimeoutSpy.mock.calls.filter(([, ms]) => ms === 1000)).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(MAX_KEPT_DEADLINES);
    deadlines.clear();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a request of the same timeout in a later tick, after the kept group fired, gets a timer of its own', () => {
    const fired: string[] = [];
    const deadlines = new Deadlines<Entry>((e) => fired.push(e.name));
    started(deadlines, 'a', 100);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['a']);
    started(deadlines, 'b', 100);
    vi.advanceTimersByTime(99);
    expect(fired).toEqual(['a']);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['a', 'b']);
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

describe('Deadlines: a group that lost its kept place', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('settled in the tick it was made, it is not joined by a later request of that tick (which would never time out)', () => {
    const fired: string[] = [];
    const deadlines = new Deadlines<Entry>((e) => {
      fired.push(e.name);
      deadlines.release(e);
    });
    const a = entry('a');
    a.deadline = deadlines.join(a, 5);
    // More timeouts than are kept push a's group out of the kept ones while it is still open.
    const others = Array.from({ length: MAX_KEPT_DEADLINES }, (_, i) => entry(`t${i}`));
    others.forEach((e, i) => (e.deadline = deadlines.join(e, 1001 + i)));
    deadlines.release(a);
    started(deadlines, 'b', 5);
    vi.advanceTimersByTime(5000);
    expect(fired).toContain('b');
    expect(fired.filter((name) => name.startsWith('t'))).toHaveLength(MAX_KEPT_DEADLINES);
  });
});

describe('Deadlines: a kept group once its requests settled', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('holds none of them (their calls are garbage), and still times out the requests that reuse its timer', () => {
    const fired: string[] = [];
    const deadlines = new Deadlines<Entry>((e) => fired.push(e.name));
    const a = entry('a');
    const b = entry('b');
    const group = deadlines.join(a, 100);
    a.deadline = group;
    b.deadline = deadlines.join(b, 100);
    deadlines.endTick();
    deadlines.release(a);
    expect(group.first).toBe(a);
    deadlines.release(b);
    expect(group.first).toBeUndefined();
    expect(group.more).toBeUndefined();
    expect(group.timer).toBeDefined();
    // Moved away, the last live one leaves nothing behind either.
    const c = entry('c');
    c.deadline = deadlines.join(c, 100);
    expect(c.deadline).toBe(group);
    deadlines.endTick();
    deadlines.move(c, 50);
    expect(group.first).toBeUndefined();
    vi.advanceTimersByTime(50);
    expect(fired).toEqual(['c']);
    started(deadlines, 'd', 100);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['c', 'd']);
  });
});

/** a (300 ms) from t = 0, settled at 10; b joins its kept group at t = 200 (b's deadline: 500). */
function restartedAt200() {
  const fired: string[] = [];
  const deadlines = new Deadlines<Entry>((e) => fired.push(e.name));
  const a = started(deadlines, 'a', 300);
  vi.advanceTimersByTime(10);
  deadlines.release(a);
  vi.advanceTimersByTime(190);
  const b = started(deadlines, 'b', 300);
  return { fired, deadlines, a, b };
}

describe('a kept group taken again (its timer is not refreshed per request)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('times a later request out at its own deadline, not at the kept timer first set', () => {
    // t = 200: the kept group (timer set at 0) is taken again; b's deadline is 500.
    const { fired, a, b } = restartedAt200();
    expect(b.deadline).toBe(a.deadline);
    vi.advanceTimersByTime(299);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['b']);
  });

  it('one call after the other for many deadlines: none times out, and the last one still does on time', () => {
    const fired: string[] = [];
    const deadlines = new Deadlines<Entry>((e) => fired.push(e.name));
    let last: Entry | undefined;
    // 100 calls of 70 ms each, one at a time: 7,000 ms, 23 times the timeout.
    for (let i = 0; i < 100; i++) {
      const e = started(deadlines, `c${i}`, 300);
      vi.advanceTimersByTime(70);
      if (i < 99) deadlines.release(e);
      last = e;
    }
    expect(fired).toEqual([]);
    // The last call started 70 ms ago: 229 ms more is within its deadline, 230 is past it.
    vi.advanceTimersByTime(229);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([last!.name]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('deadlines under fake timers that leave the clock (hrtime) real', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] }));
  afterEach(() => vi.useRealTimers());

  it('never times a restarted request out early; late by one timeout at most, once, then exact', () => {
    // t = 200: b's deadline is 500; the kept timer (set at 0) fires at 300 and cannot tell when b started.
    const { fired, deadlines } = restartedAt200();
    vi.advanceTimersByTime(399);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['b']);
    // From now on the kept timer is refresh()ed: exact again.
    const c = started(deadlines, 'c', 300);
    vi.advanceTimersByTime(50);
    deadlines.release(c);
    vi.advanceTimersByTime(50);
    const d = started(deadlines, 'd', 300);
    expect(d.deadline).toBe(c.deadline);
    vi.advanceTimersByTime(299);
    expect(fired).toEqual(['b']);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['b', 'd']);
  });
});
