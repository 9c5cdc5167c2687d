/**
 * Parent memory per idle extension: heapUsed + external after a full GC, with N extensions started
 * and idle, minus the same before; divided by N. The children's own memory is not counted.
 */
import { collect, guarded, hasGc, order, spawnRuns, turn, type BenchContext } from '../context.js';
import { startHost } from '../host.js';
import { RawPeer } from '../raw.js';
import { cmp, emptyValues, type Impl, type Row } from '../report.js';

function used(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

async function settle(): Promise<number> {
  for (let i = 0; i < 3; i++) await turn();
  collect();
  return used();
}

export async function runMemory(ctx: BenchContext): Promise<Row[]> {
  const n = ctx.sizes.memoryExtensions;
  const values = emptyValues();
  if (!hasGc) {
    ctx.problems.push('memory: skipped, run with `node --expose-gc --import tsx bench/run.ts` (npm run bench does)');
  } else {
    const extensions = ctx.workspace.extensions(n);
    const disabled = new Set<Impl>();
    const runs = spawnRuns(ctx);
    for (let run = 0; run < runs; run++) {
      for (const impl of order(run, ['raw', 'host'])) {
        await guarded(ctx, 'memory', impl, disabled, async () => {
          if (impl === 'raw') {
            const before = await settle();
            const peers = await RawPeer.spawnAll(extensions.map((e) => ({ command: e.command, args: e.args, cwd: e.dir })));
            try {
              await Promise.all(peers.map((p) => p.handshake()));
              values.raw.push(((await settle()) - before) / n / 1024);
            } finally {
              await Promise.all(peers.map((p) => p.close()));
            }
          } else {
            if (!ctx.host.ok) return;
            const before = await settle();
            const host = await startHost(ctx.host.ExtensionHost, ctx.workspace, extensions);
            try {
              values.host.push(((await settle()) - before) / n / 1024);
            } finally {
              await host.stop();
            }
          }
        });
      }
      ctx.progress(`memory: run ${run + 1}/${runs}`);
    }
  }
  return [
    {
      scenario: `memory, ${n} idle extensions`,
      metric: 'heap+external per extension',
      unit: 'KB',
      values,
      target: { text: '< 150 KB', check: (m) => cmp(m.host, '<', 150) },
    },
  ];
}
