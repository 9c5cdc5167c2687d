// The window behind rateLimits, on fake timers: the first `max` frames of a window pass, the rest
// are counted and reported once when the window ends (or at flush), never one report per frame.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FrameWindow } from '../../src/host/frames.js';

describe('FrameWindow', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const make = (max: number, windowMs = 100) => {
    const reports: number[] = [];
    const window = new FrameWindow(max, windowMs, (dropped) => reports.push(dropped), () => Date.now());
    return { window, reports, admit: (n: number) => Array.from({ length: n }, () => window.admit()) };
  };

  it('passes the first max of a window, drops the rest, and reports their count once at the window end', () => {
    const { admit, reports } = make(3);
    expect(admit(100_000).filter(Boolean)).toHaveLength(3);
    expect(reports).toEqual([]);
    vi.advanceTimersByTime(99);
    expect(reports).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(reports).toEqual([99_997]);
    vi.advanceTimersByTime(10_000);
    expect(reports).toEqual([99_997]);
  });

  it('starts a new window with the first frame after one ended; a quiet window reports nothing', () => {
    const { admit, reports } = make(2);
    expect(admit(2)).toEqual([true, true]);
    vi.advanceTimersByTime(100);
    expect(admit(3)).toEqual([true, true, false]);
    vi.advanceTimersByTime(100);
    expect(reports).toEqual([1]);
  });

  it('reports the last window first when a frame of the next one comes before its timer', () => {
    const { window, admit, reports } = make(1);
    admit(3);
    vi.setSystemTime(Date.now() + 150); // the clock moves on, the timer has not run yet
    expect(window.admit()).toBe(true);
    expect(reports).toEqual([2]);
    vi.runAllTimers();
    expect(reports).toEqual([2]);
  });

  it('flush() reports what the window dropped so far (exit, stop) and clears its timer', () => {
    const { window, admit, reports } = make(1);
    admit(5);
    window.flush();
    expect(reports).toEqual([4]);
    expect(vi.getTimerCount()).toBe(0);
    window.flush();
    expect(reports).toEqual([4]);
  });

  it('Infinity never drops; 0 drops everything', () => {
    expect(make(Infinity).admit(10_000).every(Boolean)).toBe(true);
    const none = make(0);
    expect(none.admit(3)).toEqual([false, false, false]);
    none.window.flush();
    expect(none.reports).toEqual([3]);
  });
});
