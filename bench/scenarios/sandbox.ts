/**
 * The sandbox's start cost (issue 32): start-to-ready of 20 echo extensions through the host,
 * unsandboxed (the `raw` column) and with `sandbox: 'required'` (the `host` column: bubblewrap on
 * Linux), runs interleaved; host/raw is what the sandbox adds. No target. Skipped (n/a) where this
 * machine has no sandbox backend.
 */
import { elapsedMs, guarded, nowNs, order, spawnRuns, type BenchContext } from '../context.js';
import { REPO, startHost } from '../host.js';
import { emptyValues, type Impl, type Row } from '../report.js';

const COUNT = 20;
/** raw: the host without a sandbox; host: the host with one. */
const SIDES: readonly Impl[] = ['raw', 'host'];

export async function runSandbox(ctx: BenchContext): Promise<Row[]> {
  const values = emptyValues();
  const row: Row = { scenario: `sandbox: start ${COUNT} extensions (raw column: no sandbox)`, metric: 'to ready', unit: 'ms', values };
  if (!ctx.host.ok) return [row];
  const { ExtensionHost } = ctx.host;
  const { detectSandbox } = await import('../../src/transport/sandbox.js');
  const backend = await detectSandbox();
  if (backend.kind === 'none') {
    ctx.progress(`sandbox: skipped, no backend here (${backend.reason})`);
    return [row];
  }
  const extensions = ctx.workspace.extensions(COUNT);
  // The echo child lives in the repository: readable inside the sandbox.
  const sandbox = { mode: 'required', network: 'none', readable: [REPO] };
  const disabled = new Set<Impl>();
  const runs = spawnRuns(ctx);
  for (let run = 0; run < runs; run++) {
    for (const side of order(run, SIDES)) {
      await guarded(ctx, `sandbox start ${COUNT}`, side, disabled, async () => {
        const t0 = nowNs();
        const host = await startHost(ExtensionHost, ctx.workspace, extensions, side === 'host' ? { sandbox } : {});
        values[side].push(elapsedMs(t0));
        await host.stop();
      });
    }
    ctx.progress(`sandbox start ${COUNT}: run ${run + 1}/${runs}`);
  }
  return [row];
}
