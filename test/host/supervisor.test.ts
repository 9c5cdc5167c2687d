// The restart policy with an injectable clock: backoff steps and jitter, the sliding window, the
// limit, manual restarts and the one timer it owns. No real time passes.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RESTART_POLICY, Supervisor, resolveRestartPolicy, type Clock, type ResolvedRestartPolicy } from '../../src/host/lifecycle.js';

/** A clock whose time moves only by `advance`; timers fire in due order. */
function fakeClock() {
  let now = 0;
  let nextId = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const clock: Clock = {
    now: () => now,
    setTimeout: (fn, ms) => {
      timers.set(++nextId, { at: now + ms, fn });
      return nextId;
    },
    clearTimeout: (id) => void timers.delete(id as number),
  };
  return {
    clock,
    timers,
    advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (due === undefined) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = until;
    },
  };
}

const policy = (p: Partial<ResolvedRestartPolicy> = {}): ResolvedRestartPolicy => ({ ...DEFAULT_RESTART_POLICY, jitter: 0, ...p });

describe('resolveRestartPolicy', () => {
  it('is off by default and for false; true means the defaults', () => {
    expect(resolveRestartPolicy(undefined)).toBeUndefined();
    expect(resolveRestartPolicy(false)).toBeUndefined();
    expect(resolveRestartPolicy(true)).toEqual({ maxRestarts: 3, windowMs: 180_000, backoffMs: [250, 1000, 4000], jitter: 0.2 });
  });

  it('fills the fields not given from the defaults and copies the backoff table', () => {
    const backoffMs = [5, 10];
    const resolved = resolveRestartPolicy({ maxRestarts: 1, backoffMs });
    expect(resolved).toEqual({ maxRestarts: 1, windowMs: 180_000, backoffMs: [5, 10], jitter: 0.2 });
    backoffMs.push(99);
    expect(resolved?.backoffMs).toEqual([5, 10]);
  });
});

describe('Supervisor', () => {
  it('off: never restarts', () => {
    const s = new Supervisor(undefined, fakeClock().clock);
    expect(s.crashed()).toEqual({ restart: false, why: 'off', recent: 0 });
    expect(s.crashed()).toEqual({ restart: false, why: 'off', recent: 0 });
  });

  it('steps through the backoff table, then stops at maxRestarts within the window', () => {
    const { clock, advance } = fakeClock();
    const s = new Supervisor(policy(), clock);
    expect(s.crashed()).toEqual({ restart: true, delayMs: 250, attempt: 1 });
    advance(1000);
    expect(s.crashed()).toEqual({ restart: true, delayMs: 1000, attempt: 2 });
    advance(1000);
    expect(s.crashed()).toEqual({ restart: true, delayMs: 4000, attempt: 3 });
    advance(1000);
    // One crash more within the window: it stays down, and keeps saying so.
    expect(s.crashed()).toEqual({ restart: false, why: 'limit', recent: 3 });
    expect(s.crashed()).toEqual({ restart: false, why: 'limit', recent: 3 });
  });

  it('repeats the last backoff step when maxRestarts is longer than the table', () => {
    const s = new Supervisor(policy({ maxRestarts: 5, backoffMs: [10, 20] }), fakeClock().clock);
    expect([1, 2, 3, 4, 5].map(() => s.crashed())).toEqual([
      { restart: true, delayMs: 10, attempt: 1 },
      { restart: true, delayMs: 20, attempt: 2 },
      { restart: true, delayMs: 20, attempt: 3 },
      { restart: true, delayMs: 20, attempt: 4 },
      { restart: true, delayMs: 20, attempt: 5 },
    ]);
    expect(s.crashed()).toMatchObject({ restart: false, why: 'limit' });
  });

  it('forgets restarts older than the window (sliding), and the backoff falls back with them', () => {
    const { clock, advance } = fakeClock();
    const s = new Supervisor(policy({ windowMs: 10_000 }), clock);
    s.crashed(); // t=0
    advance(4000);
    s.crashed(); // t=4000
    advance(4000);
    s.crashed(); // t=8000
    advance(1999); // t=9999: all three still in the window
    expect(s.crashed()).toMatchObject({ restart: false, why: 'limit' });
    advance(1); // t=10000: the first one leaves the window
    expect(s.crashed()).toEqual({ restart: true, delayMs: 4000, attempt: 3 });
    advance(8000); // t=18000: those of 4000 and 8000 have left; 10000 is still in
    expect(s.crashed()).toEqual({ restart: true, delayMs: 1000, attempt: 2 });
    advance(60_000);
    expect(s.crashed()).toEqual({ restart: true, delayMs: 250, attempt: 1 });
  });

  it('maxRestarts 0 gives up at the first crash; an infinite window never forgets', () => {
    expect(new Supervisor(policy({ maxRestarts: 0 }), fakeClock().clock).crashed()).toEqual({ restart: false, why: 'limit', recent: 0 });
    const { clock, advance } = fakeClock();
    const s = new Supervisor(policy({ maxRestarts: 1, windowMs: Infinity }), clock);
    expect(s.crashed()).toMatchObject({ restart: true });
    advance(1e12);
    expect(s.crashed()).toMatchObject({ restart: false, why: 'limit' });
  });

  it('adds jitter: delay = step * (1 + jitter * random), rounded', () => {
    const randoms = [0, 0.5, 0.999];
    const s = new Supervisor(policy({ jitter: 0.2 }), fakeClock().clock, () => randoms.shift()!);
    expect(s.crashed()).toMatchObject({ delayMs: 250 });
    expect(s.crashed()).toMatchObject({ delayMs: 1100 });
    expect(s.crashed()).toMatchObject({ delayMs: 4799 }); // 4000 * 1.1998 = 4799.2
  });

  it('schedules one respawn after the delay and counts it when it runs', () => {
    const { clock, advance, timers } = fakeClock();
    const s = new Supervisor(policy(), clock);
    let respawns = 0;
    s.schedule(() => respawns++, 250);
    expect(s.waiting).toBe(true);
    advance(249);
    expect([respawns, s.restarts]).toEqual([0, 0]);
    advance(1);
    expect([respawns, s.restarts, s.waiting]).toEqual([1, 1, false]);
    expect(timers.size).toBe(0);
  });

  it('a second schedule replaces the first; cancel drops it', () => {
    const { clock, advance, timers } = fakeClock();
    const s = new Supervisor(policy(), clock);
    const ran: string[] = [];
    s.schedule(() => ran.push('a'), 100);
    s.schedule(() => ran.push('b'), 100);
    expect(timers.size).toBe(1);
    advance(100);
    expect(ran).toEqual(['b']);
    s.schedule(() => ran.push('c'), 100);
    expect(s.cancel()).toBe(true);
    expect(s.cancel()).toBe(false);
    advance(1000);
    expect(ran).toEqual(['b']);
    expect([timers.size, s.restarts, s.waiting]).toEqual([0, 1, false]);
  });

  it('a manual restart counts in restarts, not in the window, starts a fresh window and drops a waiting one', () => {
    const { clock, advance, timers } = fakeClock();
    const s = new Supervisor(policy({ maxRestarts: 2 }), clock);
    s.crashed();
    s.crashed();
    expect(s.crashed()).toMatchObject({ restart: false, why: 'limit' });
    s.manual();
    expect(s.restarts).toBe(1);
    expect(s.crashed()).toEqual({ restart: true, delayMs: 250, attempt: 1 });
    let ran = false;
    s.schedule(() => (ran = true), 250);
    s.manual();
    advance(1000);
    expect([ran, timers.size, s.restarts]).toEqual([false, 0, 2]);
    expect(s.crashed()).toEqual({ restart: true, delayMs: 250, attempt: 1 });
  });

  it('keeps its restart history bounded by maxRestarts under a crash flood', () => {
    const { clock, advance } = fakeClock();
    const s = new Supervisor(policy({ maxRestarts: 3, windowMs: Infinity }), clock);
    let restarted = 0;
    for (let i = 0; i < 100_000; i++) {
      if (s.crashed().restart) restarted++;
      advance(1);
    }
    expect(restarted).toBe(3);
    expect((s as unknown as { recent: number[] }).recent).toHaveLength(3);
  });
});
