// The host's monotonic clock, in milliseconds: process.hrtime() is the clock performance.now() reads,
// without perf_hooks, which the first performance.now() of a process loads (~0.8 MB and ~1.6 ms of
// every embedder's first start: docs/performance.md, "Performance v2, part 5"). Fake timers fake it
// as they fake `performance` (`hrtime` in Vitest's and Jest's defaults).

/** Milliseconds since an arbitrary point, never going back (except under fake timers installed later). */
export function monotonicMs(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1e3 + nanoseconds / 1e6;
}
