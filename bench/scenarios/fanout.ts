/**
 * Event fan-out to N subscribed extensions: the synchronous time of one emit(), i.e. what the
 * caller's turn loop pays, and the parent CPU per emit including the writes it defers (the host
 * queues its lines and writes them in a microtask; the CPU is read around a batch of emits, each
 * followed by a setImmediate turn, by which the deferred writes have run). Raw: encode once, write
 * the line to each child. Both sides stay up for all runs; the timed blocks alternate.
 */
import { collect, guarded, nowNs, order, turn, type BenchContext } from '../context.js';
import { cpuTimeNs } from '../cpu.js';
import { startFleet } from '../fleet.js';
import { cmp, emptyValues, type Impl, type Row } from '../report.js';
import { percentile } from '../stats.js';

const IMPLS: readonly Impl[] = ['raw', 'host'];

async function timeEmits(count: number, emit: (step: number) => void): Promise<{ samples: number[]; cpuNs: number }> {
  collect();
  // Warm up after the GC (see collect()).
  for (let i = 0; i < 100; i++) {
    emit(i);
    await turn();
  }
  const samples = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const t = nowNs();
    emit(i);
    samples[i] = Number(nowNs() - t);
    // Let the writes reach the pipes, as they would between turns.
    await turn();
  }
  // The same again untimed per emit, with the CPU read around the batch: emit + flush + one turn each.
  const cpu0 = cpuTimeNs();
  for (let i = 0; i < count; i++) {
    emit(i);
    await turn();
  }
  return { samples, cpuNs: Number(cpuTimeNs() - cpu0) / count };
}

export async function runFanout(ctx: BenchContext): Promise<Row[]> {
  const n = ctx.sizes.fanoutSubscribers;
  const label = 'fan-out';
  const extensions = ctx.workspace.extensions(n, { events: ['turn_start'] });
  const p50 = emptyValues();
  const p99 = emptyValues();
  const cpu = emptyValues();
  const disabled = new Set<Impl>();
  const fleet = await startFleet(ctx, label, extensions, disabled);
  const { peers, host } = fleet;
  try {
    const emitters: Record<Impl, ((step: number) => void) | undefined> = {
      raw: (step) => {
        const line = `${JSON.stringify({ type: 'event', event: 'turn_start', step })}\n`;
        for (const peer of peers) peer.writeLine(line);
      },
      host: host === undefined ? undefined : (step) => host?.emit({ event: 'turn_start', step }),
      coalesced: undefined,
      mcp: undefined,
    };
    for (let run = 0; run < ctx.runs; run++) {
      for (const impl of order(run, IMPLS)) {
        const emit = emitters[impl];
        if (emit === undefined) continue;
        await guarded(ctx, label, impl, disabled, async () => {
          const { samples, cpuNs } = await timeEmits(ctx.sizes.fanoutEmits, emit);
          p50[impl].push(percentile(samples, 50) / 1e3);
          p99[impl].push(percentile(samples, 99) / 1e3);
          cpu[impl].push(cpuNs / 1e3);
        });
      }
      ctx.progress(`${label}: run ${run + 1}/${ctx.runs}`);
    }
  } finally {
    await fleet.close();
  }
  const scenario = `event fan-out, ${n} subscribers`;
  return [
    { scenario, metric: 'emit() p50', unit: 'us', values: p50, target: { text: '< 50 us', check: (m) => cmp(m.host, '<', 50) } },
    { scenario, metric: 'emit() p99', unit: 'us', values: p99 },
    { scenario, metric: 'parent CPU incl. deferred writes', unit: 'us/emit', values: cpu },
  ];
}
