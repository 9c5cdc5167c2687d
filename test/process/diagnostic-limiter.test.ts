// The per-extension diagnostic limiter: the first few of each code in full, then one summary per
// code per interval and one at flush. Fake timers.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DiagnosticLimiter } from '../../src/process/diagnostic-limiter.js';

let emitted: [string, string, number][];
let limiter: DiagnosticLimiter<number>;

beforeEach(() => {
  vi.useFakeTimers();
  emitted = [];
  limiter = new DiagnosticLimiter<number>({ emit: (code, message, detail) => emitted.push([code, message, detail]) });
});
afterEach(() => {
  limiter.flush();
  vi.useRealTimers();
});

describe('DiagnosticLimiter', () => {
  it('reports the first 5 of each code in full, then counts and summarises once per second', () => {
    for (let i = 1; i <= 100_000; i++) limiter.report('NOT_JSON', `line ${i} is not JSON`, i);
    limiter.report('UNKNOWN_ID', 'tool_result for unknown id "x"', -1);
    expect(emitted.map(([code, message]) => [code, message])).toEqual([
      ['NOT_JSON', 'line 1 is not JSON'],
      ['NOT_JSON', 'line 2 is not JSON'],
      ['NOT_JSON', 'line 3 is not JSON'],
      ['NOT_JSON', 'line 4 is not JSON'],
      ['NOT_JSON', 'line 5 is not JSON (further NOT_JSON diagnostics are summarised)'],
      ['UNKNOWN_ID', 'tool_result for unknown id "x"'],
    ]);
    vi.advanceTimersByTime(999);
    expect(emitted).toHaveLength(6);
    vi.advanceTimersByTime(1);
    expect(emitted.slice(6)).toEqual([['NOT_JSON', '99,995 more non-JSON lines; the last: line 100000 is not JSON', 100_000]]);
  });

  it('emits at most one summary per code per interval, and nothing when nothing was counted', () => {
    for (let i = 0; i < 5; i++) limiter.report('INVALID_FRAME', 'bad', i);
    for (let second = 0; second < 3; second++) {
      for (let i = 0; i < 1000; i++) limiter.report('INVALID_FRAME', `bad ${second}`, second);
      vi.advanceTimersByTime(1000);
    }
    vi.advanceTimersByTime(10_000);
    expect(emitted.slice(5).map(([, message]) => message)).toEqual([
      '1,000 more invalid frames; the last: bad 0',
      '1,000 more invalid frames; the last: bad 1',
      '1,000 more invalid frames; the last: bad 2',
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('flush() reports what was counted at once (on exit or stop) and clears its timer', () => {
    for (let i = 0; i < 7; i++) limiter.report('UNKNOWN_TYPE', `frame ${i}`, i);
    limiter.flush();
    expect(emitted.at(-1)).toEqual(['UNKNOWN_TYPE', '2 more frames of unknown type; the last: frame 6', 6]);
    expect(vi.getTimerCount()).toBe(0);
    limiter.flush();
    expect(emitted).toHaveLength(6);
  });

  it('quotes at most 200 characters of the last message', () => {
    for (let i = 0; i < 6; i++) limiter.report('NOT_JSON', 'x'.repeat(10_000), i);
    limiter.flush();
    expect(emitted.at(-1)![1]).toBe(`1 more non-JSON lines; the last: ${'x'.repeat(200)}…`);
  });
});
