/**
 * Parent memory per extension: heapUsed + external after a full GC, with N extensions started and
 * idle, minus the same before, divided by N; then again after each extension answered `memoryCalls`
 * small tool calls (what a session that has been used keeps, not only what an idle one does). The
 * children's own memory is not counted. One untimed start first loads what loads on first use.
 */
import { collect, guarded, hasGc, order, spawnRuns, turn, type BenchContext } from '../context.js';
import { hostCall, startHost } from '../host.js';
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

/** Every extension answers `calls` calls, one at a time each, all extensions at once. */
async function exercise(count: number, calls: number, call: (index: number, i: number) => Promise<unknown>): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      for (let i = 0; i < calls; i++) await call(index, i);
    }),
  );
}

export async function runMemory(ctx: BenchContext): Promise<Row[]> {
  const n = ctx.sizes.memoryExtensions;
  const calls = ctx.sizes.memoryCalls;
  const idle = emptyValues();
  const afterCalls = emptyValues();
  if (!hasGc) {
    ctx.problems.push('memory: skipped, run with `node --expose-gc --import tsx bench/run.ts` (npm run bench does)');
  } else {
    const extensions = ctx.workspace.extensions(n);
    const disabled = new Set<Impl>();
    const runs = spawnRuns(ctx);
    const perExtension = (bytes: number) => bytes / n / 1024;
    // Untimed: whatever loads on first use (modules, compiled code) is the import rows' cost, not
    // a cost per extension; without this the first run's reading carried it (~100 KB per extension
    // at N = 20 while zod loaded at the first start).
    if (ctx.host.ok) {
      const warm = await startHost(ctx.host.ExtensionHost, ctx.workspace, extensions.slice(0, 1));
      await hostCall(warm, extensions[0]!.tool, { x: 0 }).finally(() => warm.stop());
    }
    for (let run = 0; run < runs; run++) {
      for (const impl of order(run, ['raw', 'host'])) {
        await guarded(ctx, 'memory', impl, disabled, async () => {
          if (impl === 'raw') {
            const before = await settle();
            const peers = await RawPeer.spawnAll(extensions.map((e) => ({ command: e.command, args: e.args, cwd: e.dir })));
            try {
              await Promise.all(peers.map((p) => p.handshake()));
              idle.raw.push(perExtension((await settle()) - before));
              await exercise(n, calls, (index, i) => peers[index]!.call(extensions[index]!.tool, { x: i }));
              afterCalls.raw.push(perExtension((await settle()) - before));
            } finally {
              await Promise.all(peers.map((p) => p.close()));
            }
          } else {
            if (!ctx.host.ok) return;
            const before = await settle();
            const host = await startHost(ctx.host.ExtensionHost, ctx.workspace, extensions);
            try {
              idle.host.push(perExtension((await settle()) - before));
              await exercise(n, calls, (index, i) => hostCall(host, extensions[index]!.tool, { x: i }));
              afterCalls.host.push(perExtension((await settle()) - before));
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
      values: idle,
      target: { text: '< 150 KB', check: (m) => cmp(m.host, '<', 150) },
    },
    {
      scenario: `memory, ${n} extensions after ${calls} calls each`,
      metric: 'heap+external per extension',
      unit: 'KB',
      values: afterCalls,
    },
  ];
}
