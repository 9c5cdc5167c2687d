/**
 * ManifestDiscovery over 1,000 manifests against just reading and parsing them. The measuring is
 * done by bench/discovery.ts (benchDiscovery); until it exists the row reads n/a.
 */
import { existsSync } from 'node:fs';
import type { BenchContext } from '../context.js';
import { emptyValues, type Row } from '../report.js';

type BenchDiscovery = (opts: { count: number; runs: number }) => Promise<{ discoverMs: number[]; readMs: number[] }>;

export async function runManifests(ctx: BenchContext): Promise<Row[]> {
  const count = ctx.sizes.manifests;
  const values = emptyValues();
  const url = new URL('../discovery.ts', import.meta.url);
  try {
    if (!existsSync(url)) throw new Error('bench/discovery.ts not found');
    const mod = (await import(url.href)) as { benchDiscovery?: BenchDiscovery };
    if (typeof mod.benchDiscovery !== 'function') throw new Error('bench/discovery.ts does not export benchDiscovery');
    const result = await mod.benchDiscovery({ count, runs: ctx.runs });
    values.raw.push(...result.readMs);
    values.host.push(...result.discoverMs);
    ctx.progress(`discovery: ${ctx.runs} runs`);
  } catch (error) {
    ctx.problems.push(`discovery: ${(error as Error).message}`);
  }
  return [{ scenario: `discovery, ${count} manifests`, metric: 'discover (raw: read+parse)', unit: 'ms', values }];
}
