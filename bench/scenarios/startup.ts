/**
 * Start-to-ready of N node extensions through the host, against spawning the same N children raw
 * in parallel and waiting for each one's hello (and N MCP servers connected, for small N).
 */
import { elapsedMs, guarded, nowNs, order, spawnRuns, type BenchContext } from '../context.js';
import { startHost } from '../host.js';
import { McpEcho } from '../mcp/client.js';
import { RawPeer } from '../raw.js';
import { cmp, emptyValues, type Impl, type Row } from '../report.js';

export async function runStartup(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  const runs = spawnRuns(ctx);
  for (const count of ctx.sizes.startCounts) {
    const extensions = ctx.workspace.extensions(count);
    const values = emptyValues();
    const impls: Impl[] = count <= ctx.sizes.mcpStartMax ? ['raw', 'host', 'mcp'] : ['raw', 'host'];
    const disabled = new Set<Impl>();
    for (let run = 0; run < runs; run++) {
      for (const impl of order(run, impls)) {
        await guarded(ctx, `start ${count}`, impl, disabled, async () => {
          if (impl === 'raw') {
            const t0 = nowNs();
            const peers = await RawPeer.spawnAll(extensions.map((e) => ({ command: e.command, args: e.args, cwd: e.dir })));
            values.raw.push(elapsedMs(t0));
            await Promise.all(peers.map((p) => p.close()));
          } else if (impl === 'host') {
            if (!ctx.host.ok) return;
            const t0 = nowNs();
            const host = await startHost(ctx.host.ExtensionHost, ctx.workspace, extensions);
            values.host.push(elapsedMs(t0));
            await host.stop();
          } else {
            const t0 = nowNs();
            const settled = await Promise.allSettled(extensions.map(() => McpEcho.connect()));
            const ms = elapsedMs(t0);
            await Promise.all(settled.map((r) => (r.status === 'fulfilled' ? r.value.close() : undefined)));
            const failure = settled.find((r) => r.status === 'rejected');
            if (failure !== undefined) throw failure.reason;
            values.mcp.push(ms);
          }
        });
      }
      ctx.progress(`start ${count}: run ${run + 1}/${runs}`);
    }
    rows.push({
      scenario: `start ${count} extension${count === 1 ? '' : 's'}`,
      metric: 'to ready (raw: to hello)',
      unit: 'ms',
      values,
      target: count === 20 ? { text: '<= 1.15x raw', check: (m) => cmp(m.ratio, '<=', 1.15) } : undefined,
    });
  }
  return rows;
}
