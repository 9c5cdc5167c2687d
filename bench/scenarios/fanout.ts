/**
 * Event fan-out: the synchronous time of one emit() to N subscribed extensions, i.e. what the
 * caller's turn loop pays. Raw: encode once, write the line to each child.
 */
import { collect, guarded, nowNs, order, turn, type BenchContext } from '../context.js';
import { startHost } from '../host.js';
import { RawPeer } from '../raw.js';
import { cmp, emptyValues, type Impl, type Row } from '../report.js';
import { percentile } from '../stats.js';

async function timeEmits(count: number, emit: (step: number) => void): Promise<number[]> {
  for (let i = 0; i < 50; i++) {
    emit(i);
    await turn();
  }
  collect();
  const samples = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const t = nowNs();
    emit(i);
    samples[i] = Number(nowNs() - t);
    // Let the writes reach the pipes, as they would between turns.
    await turn();
  }
  return samples;
}

export async function runFanout(ctx: BenchContext): Promise<Row[]> {
  const n = ctx.sizes.fanoutSubscribers;
  const extensions = ctx.workspace.extensions(n, { events: ['turn_start'] });
  const p50 = emptyValues();
  const p99 = emptyValues();
  const disabled = new Set<Impl>();
  const record = (impl: Impl, samples: number[]) => {
    p50[impl].push(percentile(samples, 50) / 1e3);
    p99[impl].push(percentile(samples, 99) / 1e3);
  };
  for (let run = 0; run < ctx.runs; run++) {
    for (const impl of order(run, ['raw', 'host'])) {
      await guarded(ctx, 'fan-out', impl, disabled, async () => {
        if (impl === 'raw') {
          const peers = await Promise.all(
            extensions.map((e) => RawPeer.spawn({ command: e.command, args: e.args, cwd: e.dir })),
          );
          try {
            await Promise.all(peers.map((p) => p.handshake()));
            const samples = await timeEmits(ctx.sizes.fanoutEmits, (step) => {
              const line = `${JSON.stringify({ type: 'event', event: 'turn_start', step })}\n`;
              for (const peer of peers) peer.writeLine(line);
            });
            record('raw', samples);
          } finally {
            await Promise.all(peers.map((p) => p.close()));
          }
        } else {
          if (!ctx.host.ok) return;
          const host = await startHost(ctx.host.ExtensionHost, ctx.workspace, extensions);
          try {
            record('host', await timeEmits(ctx.sizes.fanoutEmits, (step) => host.emit({ event: 'turn_start', step })));
          } finally {
            await host.stop();
          }
        }
      });
    }
    ctx.progress(`fan-out: run ${run + 1}/${ctx.runs}`);
  }
  const scenario = `event fan-out, ${n} subscribers`;
  return [
    { scenario, metric: 'emit() p50', unit: 'us', values: p50, target: { text: '< 50 us', check: (m) => cmp(m.host, '<', 50) } },
    { scenario, metric: 'emit() p99', unit: 'us', values: p99 },
  ];
}
