/**
 * ManifestDiscovery over 1,000 manifests against just reading and parsing them. The measuring is
 * done by bench/discovery.ts (benchDiscovery), with the ManifestDiscovery of the `--host` build.
 */
import { existsSync } from 'node:fs';
import type { BenchContext } from '../context.js';
import type { DiscoveryConstructor } from '../host.js';
import { emptyValues, type Row } from '../report.js';

type BenchDiscovery = (opts: { count: number; runs: number; discovery?: DiscoveryConstructor | undefined }) => Promise<{ discoverMs: number[]; readMs: number[] }>;

export async function runManifests(ctx: BenchContext): Promise<Row[]> {
  const count = ctx.sizes.manifests;
  const values = emptyValues();
  const url = new URL('../discovery.ts', import.meta.url);
  try {
    if (!ctx.host.ok) throw new Error(`not measured: host ${ctx.host.reason}`);
    if (ctx.host.ManifestDiscovery === undefined) throw new Error(`ManifestDiscovery is not exported from ${ctx.host.from}`);
    if (!existsSync(url)) throw new Error('bench/discovery.ts not found');
    const mod = (await import(url.href)) as { benchDiscovery?: BenchDiscovery };
    if (typeof mod.benchDiscovery !== 'function') throw new Error('bench/discovery.ts does not export benchDiscovery');
    const result = await mod.benchDiscovery({ count, runs: ctx.runs, discovery: ctx.host.ManifestDiscovery });
    values.raw.push(...result.readMs);
    values.host.push(...result.discoverMs);
    ctx.progress(`discovery: ${ctx.runs} runs`);
  } catch (error) {
    ctx.problems.push(`discovery: ${(error as Error).message}`);
  }
  return [{ scenario: `discovery, ${count} manifests`, metric: 'discover (raw: read+parse)', unit: 'ms', values }];
}
