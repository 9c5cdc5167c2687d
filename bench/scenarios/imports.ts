/**
 * Cold import cost, in a fresh `node` process each: the time of `await import(...)` of the built
 * package (and of the MCP SDK's client modules) and the RSS it added over bare node; then, in the
 * same process, "import + first start": the host's first `start()` of one extension until it is
 * ready (what the host loads on first use lands there), against the MCP client's first connect (spawn + initialize)
 * to its server. Both numbers count from before the import.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { BenchContext } from '../context.js';
import { DIST, distIsFresh, REPO } from '../host.js';
import { MCP_SERVER } from '../mcp/client.js';
import { cmp, emptyValues, type Impl, type Row } from '../report.js';

interface Probe {
  /** import only. */
  ms: number;
  rss: number;
  /** import + first start (host) or connect (mcp). */
  startMs: number;
  startRss: number;
}

/** The code after the imports that starts one extension (host) or connects one server (mcp). */
type Starter = string;

function probe(urls: readonly string[], start: Starter): Promise<Probe> {
  const code = [
    'const r0 = process.memoryUsage().rss;',
    'const t = process.hrtime.bigint();',
    ...urls.map((u, i) => `const m${i} = await import(${JSON.stringify(u)});`),
    'const ms = Number(process.hrtime.bigint() - t) / 1e6;',
    'const rss = process.memoryUsage().rss - r0;',
    start,
    'const startMs = Number(process.hrtime.bigint() - t) / 1e6;',
    'const startRss = process.memoryUsage().rss - r0;',
    'await stop();',
    'process.stdout.write(JSON.stringify({ ms, rss, startMs, startRss }));',
  ].join('\n');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', code], { cwd: REPO, timeout: 30_000 }, (error, stdout) => {
      if (error) reject(error);
      else resolve(JSON.parse(stdout) as Probe);
    });
  });
}

export async function runImports(ctx: BenchContext): Promise<Row[]> {
  const ms = emptyValues();
  const mb = emptyValues();
  const startMs = emptyValues();
  const startMb = emptyValues();
  const ext = ctx.workspace.extension();
  const hostOptions = JSON.stringify({
    cwd: ctx.workspace.root,
    home: ctx.workspace.home,
    logDir: ctx.workspace.logDir,
    explicit: [ext.dir],
    discover: false,
    callbacks: {},
  });
  const mcpServer = JSON.stringify({ command: process.execPath, args: [MCP_SERVER], stderr: 'ignore' });
  const targets: Partial<Record<Impl, { urls: string[]; start: Starter }>> = {
    mcp: {
      urls: [
        import.meta.resolve('@modelcontextprotocol/sdk/client/index.js'),
        import.meta.resolve('@modelcontextprotocol/sdk/client/stdio.js'),
      ],
      start: [
        `const client = new m0.Client({ name: 'zot-bench', version: '1.0.0' });`,
        `await client.connect(new m1.StdioClientTransport({ ...${mcpServer}, env: process.env }));`,
        'const stop = () => client.close();',
      ].join('\n'),
    },
  };
  if (!ctx.host.ok && ctx.host.skipped === true) {
    // --host none: baseline and peer only.
  } else {
    // The --host build when it is one (a build of another commit, to compare), else dist/: src/
    // through tsx is no cold import.
    const other = ctx.host.ok && !ctx.host.url.endsWith('.ts') && ctx.host.url !== pathToFileURL(DIST).href ? ctx.host.url : undefined;
    if (other === undefined && !existsSync(DIST)) ctx.problems.push('import: dist/index.js not found, run `npm run build` first');
    else {
      targets.host = {
        urls: [other ?? pathToFileURL(DIST).href],
        start: [
          `const host = new m0.ExtensionHost(${hostOptions});`,
          'const report = await host.start();',
          `if (report.loaded.length !== 1) throw new Error('the extension did not load: ' + JSON.stringify(report.failed));`,
          'const stop = () => host.stop();',
        ].join('\n'),
      };
      if (other === undefined && !distIsFresh()) ctx.problems.push('import: dist/ is older than src/, run `npm run build` first');
    }
  }
  const impls = (['host', 'mcp'] as const).filter((impl) => targets[impl] !== undefined);
  const run1 = (impl: 'host' | 'mcp') => probe(targets[impl]?.urls ?? [], targets[impl]?.start ?? '');
  // First probes only warm the file cache.
  for (const impl of impls) await run1(impl);
  const MiB = 1024 * 1024;
  for (let run = 0; run < ctx.runs; run++) {
    for (const impl of run % 2 === 0 ? impls : [...impls].reverse()) {
      const result = await run1(impl);
      ms[impl].push(result.ms);
      mb[impl].push(result.rss / MiB);
      startMs[impl].push(result.startMs);
      startMb[impl].push(result.startRss / MiB);
    }
    ctx.progress(`import: run ${run + 1}/${ctx.runs}`);
  }
  const first = 'cold import + first start (mcp: + connect)';
  return [
    { scenario: 'cold import', metric: 'time over bare node', unit: 'ms', values: ms, target: { text: '< 50 ms', check: (m) => cmp(m.host, '<', 50) } },
    { scenario: 'cold import', metric: 'RSS over bare node', unit: 'MB', values: mb, target: { text: '< 8 MB', check: (m) => cmp(m.host, '<', 8) } },
    { scenario: first, metric: 'time to ready over bare node', unit: 'ms', values: startMs, target: { text: '<= 0.5x mcp', check: (m) => cmp(m.ratioMcp, '<=', 0.5) } },
    { scenario: first, metric: 'RSS over bare node', unit: 'MB', values: startMb, target: { text: '<= 0.5x mcp', check: (m) => cmp(m.ratioMcp, '<=', 0.5) } },
  ];
}
