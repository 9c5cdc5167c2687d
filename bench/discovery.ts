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

export interface DiscoveryBenchResult {
  /** Wall time of each `discover()` run, in milliseconds. */
  discoverMs: number[];
  /** Wall time of each "read every manifest with (callback) fs.readFile" run, in milliseconds. */
  readMs: number[];
}

export async function benchDiscovery(opts: { count: number; runs: number }): Promise<DiscoveryBenchResult> {
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
    const discovery = new ManifestDiscovery({ cwd: base, home: path.join(base, 'home') });
    const discover = async (): Promise<number> => {
      const start = performance.now();
      const { extensions } = await discovery.discover();
      const ms = performance.now() - start;
      if (extensions.length !== opts.count) throw new Error(`found ${extensions.length} of ${opts.count}`);
      return ms;
    };
    const read = async (): Promise<number> => {
      const start = performance.now();
      await Promise.all(
        manifests.map((m) => new Promise((resolve, reject) => readFile(m, 'utf8', (e, d) => (e ? reject(e) : resolve(d))))),
      );
      return performance.now() - start;
    };

    // Warm the page cache, the JIT and the thread pool for both before measuring.
    await discover();
    await read();
    const discoverMs: number[] = [];
    const readMs: number[] = [];
    for (let run = 0; run < opts.runs; run++) {
      // Alternate which goes first so neither always runs on a colder cache.
      if (run % 2 === 0) {
        discoverMs.push(await discover());
        readMs.push(await read());
      } else {
        readMs.push(await read());
        discoverMs.push(await discover());
      }
    }
    return { discoverMs, readMs };
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
  const { discoverMs, readMs } = await benchDiscovery({ count, runs });
  const d = median(discoverMs);
  const r = median(readMs);
  const dMin = Math.min(...discoverMs);
  const rMin = Math.min(...readMs);
  console.log(`discovery of ${count} manifests, ${runs} runs (median / best)`);
  console.log(`  ManifestDiscovery.discover(): ${d.toFixed(2)} / ${dMin.toFixed(2)} ms`);
  console.log(`  fs.readFile x ${count} (floor): ${r.toFixed(2)} / ${rMin.toFixed(2)} ms`);
  console.log(
    `  ratio: ${(d / r).toFixed(2)}x / ${(dMin / rMin).toFixed(2)}x (target <= 2x) ${d / r <= 2 ? 'OK' : 'OVER TARGET'}`,
  );
}
