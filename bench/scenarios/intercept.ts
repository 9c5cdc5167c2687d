/**
 * One tool_call intercept through a chain of N extension interceptors. The raw column sends the
 * same event_intercept to the same N children one after the other: N bare round trips.
 */
import { collect, guarded, nowNs, order, type BenchContext } from '../context.js';
import { startHost, type HostLike } from '../host.js';
import { RawPeer } from '../raw.js';
import { cmp, emptyValues, type Impl, type Row } from '../report.js';
import { percentile } from '../stats.js';

const ARGS = { command: 'ls -la' };

async function timeChains(count: number, once: (i: number) => Promise<void>): Promise<number> {
  for (let i = 0; i < 50; i++) await once(i);
  collect();
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
    for (let run = 0; run < ctx.runs; run++) {
      for (const impl of order(run, ['raw', 'host'])) {
        await guarded(ctx, `intercept ${n}`, impl, disabled, async () => {
          if (impl === 'raw') {
            const peers = await Promise.all(
              extensions.map((e) => RawPeer.spawn({ command: e.command, args: e.args, cwd: e.dir })),
            );
            try {
              await Promise.all(peers.map((p) => p.handshake()));
              values.raw.push(
                await timeChains(ctx.sizes.interceptCalls, async (i) => {
                  for (const peer of peers) {
                    await peer.request({ type: 'event_intercept', event: 'tool_call', tool_id: `t${i}`, tool_name: 'bash', tool_args: ARGS });
                  }
                }),
              );
            } finally {
              await Promise.all(peers.map((p) => p.close()));
            }
          } else {
            if (!ctx.host.ok) return;
            const host: HostLike = await startHost(ctx.host.ExtensionHost, ctx.workspace, extensions);
            try {
              values.host.push(
                await timeChains(ctx.sizes.interceptCalls, async (i) => {
                  await host.intercepts.toolCall({ toolId: `t${i}`, toolName: 'bash', args: ARGS });
                }),
              );
            } finally {
              await host.stop();
            }
          }
        });
      }
      ctx.progress(`intercept ${n}: run ${run + 1}/${ctx.runs}`);
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
