/**
 * Remote vs local: the same echo extension (bench/children/echo.mjs) through the host over stdio,
 * and over a loopback WebSocket (bench/children/ws-bridge.mjs, a separate process that spawns the
 * same child per connection and carries one message per line). Small round trip p50 (one call at a
 * time) and pipelined throughput (64 in flight). In the table the `raw` column is the host over
 * stdio and `host` the host over the WebSocket, so host/raw is what the remote path costs. Both
 * hosts stay up for all runs; the timed blocks alternate. No target.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { guarded, nowNs, order, type BenchContext } from '../context.js';
import { ECHO } from '../extensions.js';
import { hostCall, startHost, type HostLike } from '../host.js';
import { emptyValues, type Impl, type Row } from '../report.js';
import { percentile } from '../stats.js';

const BRIDGE = fileURLToPath(new URL('../children/ws-bridge.mjs', import.meta.url));
/** raw: the host over stdio; host: the host over the WebSocket. */
const SIDES: readonly Impl[] = ['raw', 'host'];
const IN_FLIGHT = 64;

async function roundTrips(host: HostLike, count: number): Promise<number> {
  const samples = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const t = nowNs();
    await hostCall(host, 'echo', { x: 1 });
    samples[i] = Number(nowNs() - t) / 1e3;
  }
  return percentile(samples, 50);
}

async function pipelined(host: HostLike, count: number): Promise<number> {
  const began = nowNs();
  let issued = 0;
  const worker = async (): Promise<void> => {
    while (issued < count) {
      issued++;
      await hostCall(host, 'echo', { x: 1 });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return count / (Number(nowNs() - began) / 1e9);
}

/** Starts the bridge; resolves its ws:// URL. */
function startBridge(): { url: Promise<string>; stop(): void } {
  const bridge = spawn(process.execPath, [BRIDGE, ECHO, '--name', 'remote-echo', '--tool', 'echo'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = new Promise<string>((resolve, reject) => {
    bridge.stdout.once('data', (chunk: Buffer) => resolve(/listening (\S+)/.exec(chunk.toString())?.[1] ?? ''));
    bridge.once('exit', () => reject(new Error('the WebSocket bridge exited before it listened')));
    bridge.once('error', reject);
  });
  return { url, stop: () => bridge.kill('SIGTERM') };
}

export async function runRemote(ctx: BenchContext): Promise<Row[]> {
  const scenario = 'remote: host over loopback WebSocket (raw column: host over stdio)';
  const rtt = emptyValues();
  const rps = emptyValues();
  const { host: loaded } = ctx;
  if (!loaded.ok) {
    ctx.problems.push(`remote: not measured (${loaded.reason})`);
  } else {
    const bridge = startBridge();
    const hosts: Partial<Record<Impl, HostLike>> = {};
    const disabled = new Set<Impl>();
    try {
      const url = await bridge.url;
      const dir = join(ctx.workspace.root, 'extensions', 'remote-echo');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'extension.json'), JSON.stringify({ name: 'remote-echo', url }));
      hosts.raw = await startHost(loaded.ExtensionHost, ctx.workspace, [ctx.workspace.extension()]);
      hosts.host = await startHost(loaded.ExtensionHost, ctx.workspace, [{ dir }]);
      // Warm-up, as for the stdio rows.
      for (const side of SIDES) {
        await roundTrips(hosts[side]!, 2000);
        await pipelined(hosts[side]!, 2000);
      }
      for (let run = 0; run < ctx.runs; run++) {
        for (const side of order(run, SIDES)) {
          await guarded(ctx, 'remote', side, disabled, async () => {
            rtt[side].push(await roundTrips(hosts[side]!, ctx.sizes.remoteRttCalls));
            rps[side].push(await pipelined(hosts[side]!, ctx.sizes.remotePipelinedCalls));
          });
        }
        ctx.progress(`remote: run ${run + 1}/${ctx.runs}`);
      }
    } catch (error) {
      ctx.problems.push(`remote: ${(error as Error).message}`);
    } finally {
      await Promise.all(Object.values(hosts).map((h) => h.stop()));
      bridge.stop();
    }
  }
  return [
    { scenario, metric: 'small round trip p50', unit: 'us', values: rtt },
    { scenario, metric: `pipelined, ${IN_FLIGHT} in flight, throughput`, unit: 'replies/s', values: rps },
  ];
}
