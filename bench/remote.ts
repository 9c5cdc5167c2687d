/**
 * Remote vs local: the same echo extension (bench/children/echo.mjs) through the host over stdio,
 * and over a loopback WebSocket (bench/children/ws-bridge.mjs, a separate process that spawns the
 * same child per connection). Small round trip (p50, one call at a time) and pipelined throughput
 * (64 in flight), runs alternating stdio / WebSocket. No target: honest numbers.
 *
 *   node --import tsx bench/remote.ts [--runs N] [--host src|dist]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BenchWorkspace, ECHO } from './extensions.js';
import { hostCall, loadHost, type HostLike } from './host.js';
import { percentile } from './stats.js';

const BRIDGE = fileURLToPath(new URL('./children/ws-bridge.mjs', import.meta.url));
const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, host: { type: 'string', default: 'dist' } } });
const RUNS = Number(values.runs);
const RTT_CALLS = 2000;
const PIPELINED_CALLS = 20_000;
const IN_FLIGHT = 64;

async function main(): Promise<void> {
  const loaded = await loadHost(values.host!);
  if (!loaded.ok) throw new Error(loaded.reason);
  const workspace = new BenchWorkspace();
  const bridge = spawn(process.execPath, [BRIDGE, ECHO, '--name', 'remote-echo', '--tool', 'echo'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      bridge.stdout.once('data', (chunk: Buffer) => resolve(/listening (\S+)/.exec(chunk.toString())?.[1] ?? ''));
      bridge.once('exit', () => reject(new Error('the bridge exited')));
    });
    const dir = join(workspace.root, 'extensions', 'remote-echo');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'extension.json'), JSON.stringify({ name: 'remote-echo', url }));
    const local = workspace.extension();
    const results: Record<'stdio' | 'websocket', { rtt: number[]; rps: number[] }> = { stdio: { rtt: [], rps: [] }, websocket: { rtt: [], rps: [] } };
    for (let run = 0; run < RUNS; run++) {
      for (const [label, extDir] of [['stdio', local.dir], ['websocket', dir]] as const) {
        const host = new loaded.ExtensionHost({ cwd: workspace.root, home: workspace.home, logDir: workspace.logDir, explicit: [extDir], discover: false, callbacks: {} });
        const report = await host.start();
        if (report.loaded.length !== 1) throw new Error(`${label}: ${JSON.stringify(report.failed)}`);
        results[label].rtt.push(await roundTrip(host));
        results[label].rps.push(await pipelined(host));
        await host.stop();
      }
    }
    const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
    console.log(`node ${process.version}, ${RUNS} alternating runs, medians; host from ${values.host}`);
    console.log('transport   small round trip p50 (us)   pipelined x64 (replies/s)');
    for (const label of ['stdio', 'websocket'] as const) {
      const r = results[label];
      console.log(`${label.padEnd(10)}  ${median(r.rtt).toFixed(0).padStart(24)}   ${median(r.rps).toFixed(0).padStart(25)}`);
    }
  } finally {
    bridge.kill('SIGTERM');
    workspace.dispose();
  }
}

async function roundTrip(host: HostLike): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < RTT_CALLS; i++) {
    const t = process.hrtime.bigint();
    await hostCall(host, 'echo', { x: 1 });
    samples.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  return percentile(samples.sort((a, b) => a - b), 50);
}

async function pipelined(host: HostLike): Promise<number> {
  const began = process.hrtime.bigint();
  let issued = 0;
  const worker = async () => {
    while (issued < PIPELINED_CALLS) {
      issued++;
      await hostCall(host, 'echo', { x: 1 });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return PIPELINED_CALLS / (Number(process.hrtime.bigint() - began) / 1e9);
}

await main();
