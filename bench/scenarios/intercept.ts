/**
 * One tool_call intercept through a chain of N extension interceptors. The raw column sends the
 * same event_intercept to the same N children one after the other: N bare round trips. The target
 * is the "N x (single round trip) + 20 us", with the single round trip measured where the
 * chain runs: N host tool calls, one to each of the same N children, timed in the same turns (`rt`).
 * A chain of N children is much slower per step than one child (each step wakes a cache-cold
 * process), so N x an isolated round trip would not be the same work. Both sides stay up for all
 * runs; the timed chains alternate.
 */
import { nowNs, order, type BenchContext } from '../context.js';
import { startFleet } from '../fleet.js';
import { cmp, emptyValues, type Impl, type Row } from '../report.js';
import { formatNumber, median, percentile } from '../stats.js';
import { hostCall } from '../host.js';

const ARGS = { command: 'ls -la' };
const IMPLS: readonly Impl[] = ['raw', 'host'];
/** The chains timed in turn: the two columns, and the host's N single round trips. */
type Chain = Impl | 'rt';

/**
 * p50 in us of `count` chains per implementation, the implementations taking turns chain by chain
 * (A/B/A/B at the finest grain): with N children per side, how fast a child wakes up drifts with
 * the scheduler's state, and block-wise alternation left that drift on one side. `warmup` untimed
 * chains each first. No forced GC: garbage left by the previous run does not move a p50, but a
 * forced GC's deoptimizations do (see collect()).
 */
async function timeChains(
  count: number,
  warmup: number,
  run: number,
  chains: ReadonlyArray<readonly [Chain, (i: number) => Promise<void>]>,
): Promise<Map<Chain, number>> {
  for (let i = 0; i < warmup; i++) for (const [, once] of chains) await once(i);
  const samples = new Map(chains.map(([impl]) => [impl, new Array<number>(count)] as const));
  for (let i = 0; i < count; i++) {
    // Who goes first alternates too.
    for (let k = 0; k < chains.length; k++) {
      const [impl, once] = chains[(i + run + k) % chains.length]!;
      const t = nowNs();
      await once(i);
      samples.get(impl)![i] = Number(nowNs() - t);
    }
  }
  return new Map([...samples].map(([impl, values]) => [impl, percentile(values, 50) / 1e3]));
}

export async function runIntercept(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  for (const n of ctx.sizes.interceptCounts) {
    const extensions = ctx.workspace.extensions(n, { intercept: true });
    const values = emptyValues();
    const disabled = new Set<Impl>();
    const label = `intercept ${n}`;
    // Round trips keep getting faster for ~2,000 of them (JIT, on both sides): warm up that many.
    const warmup = Math.ceil(2000 / n);
    const fleet = await startFleet(ctx, label, extensions, disabled);
    const { peers, host } = fleet;
    // Per run: p50 of the host's chain minus p50 of its N single round trips, timed in turns.
    const overhead: number[] = [];
    try {
      const chains: Record<Impl, ((i: number) => Promise<void>) | undefined> = {
        raw: async (i) => {
          for (const peer of peers) {
            await peer.request({ type: 'event_intercept', event: 'tool_call', tool_id: `t${i}`, tool_name: 'bash', tool_args: ARGS });
          }
        },
        host:
          host === undefined
            ? undefined
            : async (i) => {
                await host?.intercepts.toolCall({ toolId: `t${i}`, toolName: 'bash', args: ARGS });
              },
        coalesced: undefined,
        mcp: undefined,
      };
      // N single round trips through the host: one small tool call to each of the same children.
      const roundTrips =
        host === undefined
          ? undefined
          : async () => {
              for (const extension of extensions) await hostCall(host, extension.tool, ARGS);
            };
      for (let run = 0; run < ctx.runs; run++) {
        const active = order(run, IMPLS).flatMap((impl) => {
          const chain = chains[impl];
          return chain === undefined || disabled.has(impl) ? [] : [[impl, chain] as const];
        });
        try {
          for (const [impl, p50] of await timeChains(ctx.sizes.interceptCalls, warmup, run, active)) values[impl as Impl].push(p50);
        } catch (error) {
          // Which side failed is unknown here: drop both, keep the runs aligned.
          for (const [impl] of active) disabled.add(impl);
          ctx.problems.push(`${label}: ${(error as Error).message}`);
        }
        ctx.progress(`${label}: run ${run + 1}/${ctx.runs}`);
      }
      // The target's own turns: the host's chain against its N single round trips, after all the
      // runs above (a chain that follows another over the same children finds them warmer than one
      // that follows the other side's, so these turns would bias the raw column's).
      for (let run = 0; run < ctx.runs && chains.host !== undefined && roundTrips !== undefined && !disabled.has('host'); run++) {
        try {
          const turns = await timeChains(ctx.sizes.interceptCalls, warmup, run, [
            ['host', chains.host],
            ['rt', roundTrips],
          ]);
          overhead.push(turns.get('host')! - turns.get('rt')!);
        } catch (error) {
          disabled.add('host');
          ctx.problems.push(`${label} (chain vs round trips): ${(error as Error).message}`);
        }
        ctx.progress(`${label}: chain vs round trips ${run + 1}/${ctx.runs}`);
      }
    } finally {
      await fleet.close();
    }
    const chainOverhead = overhead.length > 0 ? median(overhead) : undefined;
    const shown = chainOverhead === undefined ? 'n/a' : `${chainOverhead >= 0 ? '+' : ''}${formatNumber(chainOverhead)}`;
    rows.push({
      scenario: `intercept, ${n} interceptor${n === 1 ? '' : 's'}`,
      metric: 'p50',
      unit: 'us',
      values,
      target: {
        text: `<= ${n} x rt + 20 us (${shown})`,
        check: () => cmp(chainOverhead, '<=', 20),
      },
      detail: { chainMinusRoundTripsUs: overhead },
    });
  }
  return rows;
}
