/**
 * One tool_call intercept through a chain of N extension interceptors. The raw column sends the
 * same event_intercept to the same N children one after the other: N bare round trips. Both sides
 * stay up for all runs; the timed blocks alternate.
 */
import { collect, guarded, nowNs, order, type BenchContext } from '../context.js';
import { startHost, type HostLike } from '../host.js';
import { RawPeer } from '../raw.js';
import { cmp, emptyValues, type Impl, type Row } from '../report.js';
import { percentile } from '../stats.js';

const ARGS = { command: 'ls -la' };
const IMPLS: readonly Impl[] = ['raw', 'host'];

/** p50 in us of `count` chains, after a GC and a warm-up (in that order, see collect()). */
async function timeChains(count: number, once: (i: number) => Promise<void>): Promise<number> {
  collect();
  for (let i = 0; i < 100; i++) await once(i);
  const samples = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const t = nowNs();
    await once(i);
    samples[i] = Number(nowNs() - t);
  }
  return percentile(samples, 50) / 1e3;
}

export async function runIntercept(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  for (const n of ctx.sizes.interceptCounts) {
    const extensions = ctx.workspace.extensions(n, { intercept: true });
    const values = emptyValues();
    const disabled = new Set<Impl>();
    const label = `intercept ${n}`;
    let peers: RawPeer[] = [];
    let host: HostLike | undefined;
    try {
      await guarded(ctx, label, 'raw', disabled, async () => {
        peers = await RawPeer.spawnAll(extensions.map((e) => ({ command: e.command, args: e.args, cwd: e.dir })));
        await Promise.all(peers.map((p) => p.handshake()));
      });
      if (ctx.host.ok) {
        const ctor = ctx.host.ExtensionHost;
        await guarded(ctx, label, 'host', disabled, async () => {
          host = await startHost(ctor, ctx.workspace, extensions);
        });
      }
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
        mcp: undefined,
      };
      for (let run = 0; run < ctx.runs; run++) {
        for (const impl of order(run, IMPLS)) {
          const chain = chains[impl];
          if (chain === undefined) continue;
          await guarded(ctx, label, impl, disabled, async () => {
            values[impl].push(await timeChains(ctx.sizes.interceptCalls, chain));
          });
        }
        ctx.progress(`${label}: run ${run + 1}/${ctx.runs}`);
      }
    } finally {
      await Promise.all([...peers.map((p) => p.close()), host?.stop()]);
    }
    rows.push({
      scenario: `intercept, ${n} interceptor${n === 1 ? '' : 's'}`,
      metric: 'p50',
      unit: 'us',
      values,
      target: { text: '<= raw + 20 us', check: (m) => cmp(m.host, '<=', m.raw === undefined ? undefined : m.raw + 20) },
    });
  }
  return rows;
}
