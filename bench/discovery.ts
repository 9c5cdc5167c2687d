// Discovery speed: ManifestDiscovery over `count` extensions versus the floor of just reading their
// `count` manifests with fs.readFile (paths known, all in parallel). Target: within 2x of the floor.
// The floor is the callback fs.readFile: on Node 20 it is several times faster than fs/promises
// readFile, so it is the stricter of the two.
// Run alone: npx tsx bench/discovery.ts [count] [runs]
import { readFile } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ManifestDiscovery } from '../src/manifest/discovery.js';
import type { DiscoveryConstructor } from './host.js';

export interface DiscoveryBenchResult {
  /** Wall time of each `discover()` run, in milliseconds. */
  discoverMs: number[];
  /** Wall time of each "read every manifest with (callback) fs.readFile" run, in milliseconds. */
  readMs: number[];
  /** Process CPU time (user + system, all threads) of each `discover()` run: steadier than wall time on a busy machine. */
  discoverCpuMs: number[];
  /** Process CPU time of each floor run. */
  readCpuMs: number[];
}

/** `discovery`: the ManifestDiscovery to measure (the runner passes the `--host` build's). @default the one of src/ */
export async function benchDiscovery(opts: { count: number; runs: number; discovery?: DiscoveryConstructor | undefined }): Promise<DiscoveryBenchResult> {
  const base = await mkdtemp(path.join(os.tmpdir(), 'zot-bench-discovery-'));
  try {
    const root = path.join(base, 'home', 'extensions');
    const manifests: string[] = [];
    for (let i = 0; i < opts.count; i++) {
      const name = `ext-${String(i).padStart(5, '0')}`;
      const dir = path.join(root, name);
      await mkdir(dir, { recursive: true });
      const manifest = path.join(dir, 'extension.json');
      const body = {
        name,
        version: '1.0.0',
        exec: './run.sh',
        args: ['--mode', 'daemon'],
        language: 'sh',
        description: `benchmark extension number ${i}`,
        enabled: i % 10 !== 0,
      };
      await writeFile(manifest, JSON.stringify(body, null, 2));
      await writeFile(path.join(dir, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
      manifests.push(manifest);
    }
    const Discovery: DiscoveryConstructor = opts.discovery ?? ManifestDiscovery;
    const discovery = new Discovery({ cwd: base, home: path.join(base, 'home') });
    const timed = async (fn: () => Promise<void>): Promise<[wall: number, cpu: number]> => {
      const cpu = process.cpuUsage();
      const start = performance.now();
      await fn();
      const wall = performance.now() - start;
      const used = process.cpuUsage(cpu);
      return [wall, (used.user + used.system) / 1000];
    };
    const discover = () =>
      timed(async () => {
        const { extensions } = await discovery.discover();
        if (extensions.length !== opts.count) throw new Error(`found ${extensions.length} of ${opts.count}`);
      });
    const read = () =>
      timed(async () => {
        await Promise.all(
          manifests.map((m) => new Promise((resolve, reject) => readFile(m, 'utf8', (e, d) => (e ? reject(e) : resolve(d))))),
        );
      });

    // Warm the page cache, the JIT and the thread pool for both before measuring.
    await discover();
    await read();
    const result: DiscoveryBenchResult = { discoverMs: [], readMs: [], discoverCpuMs: [], readCpuMs: [] };
    const record = (into: 'discover' | 'read', [wall, cpu]: [number, number]): void => {
      result[`${into}Ms`].push(wall);
      result[`${into}CpuMs`].push(cpu);
    };
    for (let run = 0; run < opts.runs; run++) {
      // Alternate which goes first so neither always runs on a colder cache.
      if (run % 2 === 0) {
        record('discover', await discover());
        record('read', await read());
      } else {
        record('read', await read());
        record('discover', await discover());
      }
    }
    return result;
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isMain) {
  const count = Number(process.argv[2] ?? 1000);
  const runs = Number(process.argv[3] ?? 15);
  const result = await benchDiscovery({ count, runs });
  const d = median(result.discoverMs);
  const r = median(result.readMs);
  const dc = median(result.discoverCpuMs);
  const rc = median(result.readCpuMs);
  console.log(`discovery of ${count} manifests, median of ${runs} runs (wall / process CPU)`);
  console.log(`  ManifestDiscovery.discover(): ${d.toFixed(2)} ms / ${dc.toFixed(2)} ms`);
  console.log(`  fs.readFile x ${count} (floor): ${r.toFixed(2)} ms / ${rc.toFixed(2)} ms`);
  console.log(
    `  ratio: ${(d / r).toFixed(2)}x / ${(dc / rc).toFixed(2)}x (target <= 2x) ${d / r <= 2 ? 'OK' : 'OVER TARGET'}`,
  );
}
