/** Result rows, target checks, the printed table and the --json document. */
import { formatRatio, formatSummary, pairedRatios, summarize, type Summary } from './stats.js';

/** raw: one write() per request; coalesced: the raw loop writing each tick's lines in one write(). */
export const IMPLS = ['raw', 'coalesced', 'host', 'mcp'] as const;
export type Impl = (typeof IMPLS)[number];

/** Medians across runs, and the median paired ratios host/raw, host/coalesced and host/mcp. */
export interface Medians {
  raw?: number | undefined;
  coalesced?: number | undefined;
  host?: number | undefined;
  mcp?: number | undefined;
  ratio?: number | undefined;
  ratioCoalesced?: number | undefined;
  ratioMcp?: number | undefined;
}

export interface Target {
  text: string;
  /** undefined when an input is missing (e.g. the host column is n/a). */
  check: (m: Medians) => boolean | undefined;
}

export interface Row {
  scenario: string;
  metric: string;
  unit: string;
  /** One value per run and implementation; an empty list means "not measured". */
  values: Record<Impl, number[]>;
  target?: Target | undefined;
  /** Further per-run values behind the target (in the --json output only), by name. */
  detail?: Record<string, number[]> | undefined;
}

export function emptyValues(): Record<Impl, number[]> {
  return { raw: [], coalesced: [], host: [], mcp: [] };
}

/** Checks that all hold; undefined if any cannot be decided. */
export function all(...checks: Array<boolean | undefined>): boolean | undefined {
  if (checks.some((c) => c === false)) return false;
  return checks.every((c) => c === true) ? true : undefined;
}

/** `a op b`, or undefined when either side is missing. */
export function cmp(a: number | undefined, op: '<' | '<=' | '>=', b: number | undefined): boolean | undefined {
  if (a === undefined || b === undefined) return undefined;
  return op === '<' ? a < b : op === '<=' ? a <= b : a >= b;
}

export interface EvaluatedRow {
  scenario: string;
  metric: string;
  unit: string;
  raw: (Summary & { values: number[] }) | null;
  coalesced: (Summary & { values: number[] }) | null;
  host: (Summary & { values: number[] }) | null;
  mcp: (Summary & { values: number[] }) | null;
  /** host/raw, host/coalesced and host/mcp: medians of the per-run ratios. */
  ratio: Summary | null;
  ratioCoalesced: Summary | null;
  ratioMcp: Summary | null;
  target: string | null;
  pass: boolean | null;
  detail: Record<string, number[]> | null;
}

export function evaluate(row: Row): EvaluatedRow {
  const s = (impl: Impl) => {
    const summary = summarize(row.values[impl]);
    return summary === undefined ? null : { ...summary, values: row.values[impl] };
  };
  const raw = s('raw');
  const coalesced = s('coalesced');
  const host = s('host');
  const mcp = s('mcp');
  const ratio = summarize(pairedRatios(row.values.host, row.values.raw)) ?? null;
  const ratioCoalesced = summarize(pairedRatios(row.values.host, row.values.coalesced)) ?? null;
  const ratioMcp = summarize(pairedRatios(row.values.host, row.values.mcp)) ?? null;
  const medians: Medians = {
    raw: raw?.median,
    coalesced: coalesced?.median,
    host: host?.median,
    mcp: mcp?.median,
    ratio: ratio?.median,
    ratioCoalesced: ratioCoalesced?.median,
    ratioMcp: ratioMcp?.median,
  };
  const pass = row.target?.check(medians);
  return {
    scenario: row.scenario,
    metric: `${row.metric} (${row.unit})`,
    unit: row.unit,
    raw,
    coalesced,
    host,
    mcp,
    ratio,
    ratioCoalesced,
    ratioMcp,
    target: row.target?.text ?? null,
    pass: pass ?? null,
    detail: row.detail ?? null,
  };
}

/** A plain-text table: scenario, metric, the columns, the ratios, target, pass. */
export function renderTable(rows: readonly EvaluatedRow[]): string {
  const header = ['scenario', 'metric', 'raw', 'coalesced', 'host', 'mcp', 'host/raw', 'host/coalesced', 'host/mcp', 'target', 'pass'];
  const body = rows.map((r) => [
    r.scenario,
    r.metric,
    r.raw === null ? '-' : formatSummary(r.raw),
    r.coalesced === null ? '-' : formatSummary(r.coalesced),
    formatSummary(r.host ?? undefined),
    r.mcp === null ? '-' : formatSummary(r.mcp),
    formatRatio(r.ratio ?? undefined),
    formatRatio(r.ratioCoalesced ?? undefined),
    formatRatio(r.ratioMcp ?? undefined),
    r.target ?? '(info)',
    r.target === null ? '' : r.pass === null ? 'n/a' : r.pass ? 'pass' : 'FAIL',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => (cells[i] as string).length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
