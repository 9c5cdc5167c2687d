/** Small statistics for the benchmark: percentiles within a run, median [min-max] across runs. */

/** The p-th percentile (0..100) by linear interpolation between closest ranks. NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (Math.min(100, Math.max(0, p)) / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (rank - lo);
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** median, min and max of one value per run; undefined when there are none. */
export function summarize(values: readonly number[]): Summary | undefined {
  if (values.length === 0) return undefined;
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), n: values.length };
}

/**
 * Per-run ratios a[i]/b[i]. Runs are interleaved, so pairing each host run with the raw run next
 * to it cancels most of the machine's drift; the median of these is the reported ratio.
 */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    // A baseline at or below zero (a memory delta lost in noise) has no meaningful ratio.
    if (y > 0 && Number.isFinite(x) && Number.isFinite(y)) out.push(x / y);
  }
  return out;
}

/** A number with about three significant digits: 0.0123, 1.23, 12.3, 123, 12345. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 100 || abs === 0) return Math.round(value).toString();
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toPrecision(2);
}

/** `median [min-max]`, or just the value for a single run; `n/a` when nothing was measured. */
export function formatSummary(summary: Summary | undefined): string {
  if (summary === undefined) return 'n/a';
  if (summary.n === 1 || summary.min === summary.max) return formatNumber(summary.median);
  return `${formatNumber(summary.median)} [${formatNumber(summary.min)}-${formatNumber(summary.max)}]`;
}

/** `1.03x [0.98-1.07]`. */
export function formatRatio(summary: Summary | undefined): string {
  if (summary === undefined) return '-';
  const f = (r: number) => r.toFixed(2);
  if (summary.n === 1 || summary.min === summary.max) return `${f(summary.median)}x`;
  return `${f(summary.median)}x [${f(summary.min)}-${f(summary.max)}]`;
}
