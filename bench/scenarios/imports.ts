/**
 * Cold import cost: a fresh `node` process times `await import(...)` of the built package (and of
 * the MCP SDK's client modules) and reports the RSS it added, i.e. the cost on top of bare node.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { BenchContext } from '../context.js';
import { DIST, distIsFresh, REPO } from '../host.js';
import { cmp, emptyValues, type Impl, type Row } from '../report.js';


function probe(urls: readonly string[]): Promise<{ ms: number; rss: number }> {
  const code = [
    'const r0 = process.memoryUsage().rss;',
    'const t = process.hrtime.bigint();',
    ...urls.map((u) => `await import(${JSON.stringify(u)});`),
    'const ms = Number(process.hrtime.bigint() - t) / 1e6;',
    'process.stdout.write(JSON.stringify({ ms, rss: process.memoryUsage().rss - r0 }));',
  ].join('\n');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', code], { cwd: REPO, timeout: 30_000 }, (error, stdout) => {
      if (error) reject(error);
      else resolve(JSON.parse(stdout) as { ms: number; rss: number });
    });
  });
}

export async function runImports(ctx: BenchContext): Promise<Row[]> {
  const ms = emptyValues();
  const mb = emptyValues();
  const targets: Partial<Record<Impl, string[]>> = {
    mcp: [
      import.meta.resolve('@modelcontextprotocol/sdk/client/index.js'),
      import.meta.resolve('@modelcontextprotocol/sdk/client/stdio.js'),
    ],
  };
  if (!ctx.host.ok && ctx.host.skipped === true) {
    // --host none: baseline and peer only.
  } else if (existsSync(DIST)) {
    targets.host = [pathToFileURL(DIST).href];
    if (!distIsFresh()) {
      ctx.problems.push('import: dist/ is older than src/, run `npm run build` first');
    }
  } else {
    ctx.problems.push('import: dist/index.js not found, run `npm run build` first');
  }
  const impls = (['host', 'mcp'] as const).filter((impl) => targets[impl] !== undefined);
  // First probes only warm the file cache.
  for (const impl of impls) await probe(targets[impl] ?? []);
  for (let run = 0; run < ctx.runs; run++) {
    for (const impl of run % 2 === 0 ? impls : [...impls].reverse()) {
      const result = await probe(targets[impl] ?? []);
      ms[impl].push(result.ms);
      mb[impl].push(result.rss / (1024 * 1024));
    }
    ctx.progress(`import: run ${run + 1}/${ctx.runs}`);
  }
  return [
    { scenario: 'cold import', metric: 'time over bare node', unit: 'ms', values: ms, target: { text: '< 50 ms', check: (m) => cmp(m.host, '<', 50) } },
    { scenario: 'cold import', metric: 'RSS over bare node', unit: 'MB', values: mb, target: { text: '< 8 MB', check: (m) => cmp(m.host, '<', 8) } },
  ];
}
