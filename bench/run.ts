/**
 * The benchmark runner: our host against the raw baseline (bench/raw.ts) and the MCP SDK, in the
 * same run, interleaved, several runs; prints one table and optionally writes JSON.
 *
 *   node --expose-gc --import tsx bench/run.ts [--quick] [--json file] [--only rtt,pipelined,...]
 *                                              [--runs N] [--host auto|src|dist|<module>|none]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { FULL, QUICK, elapsedMs, hasGc, nowNs, type BenchContext } from './context.js';
import { cpuSource, cpuTimeNs } from './cpu.js';
import { BenchWorkspace } from './extensions.js';
import { loadHost } from './host.js';
import { evaluate, renderTable, type Row } from './report.js';
import { runCalls, type CallScenario } from './scenarios/calls.js';
import { runCommands } from './scenarios/commands.js';
import { runFanout } from './scenarios/fanout.js';
import { runImports } from './scenarios/imports.js';
import { runIntercept } from './scenarios/intercept.js';
import { runManifests } from './scenarios/manifests.js';
import { runMemory } from './scenarios/memory.js';
import { runRemote } from './scenarios/remote.js';
import { runSandbox } from './scenarios/sandbox.js';
import { runStartup } from './scenarios/startup.js';

const SCENARIOS = ['rtt', 'pipelined', 'large', 'payload', 'startup', 'intercept', 'fanout', 'memory', 'commands', 'discovery', 'import', 'remote', 'sandbox'] as const;
type Scenario = (typeof SCENARIOS)[number];

const USAGE = `usage: npm run bench -- [--quick] [--json <file>] [--only <scenario,...>] [--runs <n>] [--host <which>]
  --quick        smaller sizes, whole run about a minute
  --json <file>  also write machine-readable results
  --only <list>  any of: ${SCENARIOS.join(', ')}
  --runs <n>     interleaved runs per scenario (default 5, --quick 3)
  --host <which> where ExtensionHost comes from: auto (default: dist when the build is up to
                 date, else src), src (through tsx), dist (the build),
                 a module path (e.g. a build of another commit, to compare before/after),
                 or none (baseline and peer only)`;

function parse() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      only: { type: 'string' },
      runs: { type: 'string' },
      host: { type: 'string', default: 'auto' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const only = values.only === undefined ? [...SCENARIOS] : values.only.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = only.filter((s) => !(SCENARIOS as readonly string[]).includes(s));
  if (unknown.length > 0) throw new Error(`unknown scenario(s) ${unknown.join(', ')}\n${USAGE}`);
  const runs = values.runs === undefined ? (values.quick ? 3 : 5) : Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer\n${USAGE}`);
  return { quick: values.quick, json: values.json, only: new Set(only as Scenario[]), runs, host: values.host };
}

async function main(): Promise<void> {
  const options = parse();
  const started = nowNs();
  const host = await loadHost(options.host);
  const workspace = new BenchWorkspace();
  process.once('SIGINT', () => {
    workspace.dispose();
    process.exit(130);
  });
  cpuTimeNs();
  const ctx: BenchContext = {
    quick: options.quick,
    runs: options.runs,
    sizes: options.quick ? QUICK : FULL,
    host,
    workspace,
    progress: (message) => process.stderr.write(`  ${message}\n`),
    problems: [],
  };

  const meta = {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpu: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
    mode: options.quick ? 'quick' : 'full',
    runs: options.runs,
    host: host.ok ? `ExtensionHost from ${host.from}` : `n/a (${host.reason})`,
    cpuTime: cpuSource() === 'schedstat' ? '/proc/<pid>/task/*/schedstat' : 'process.cpuUsage()',
    gc: hasGc ? 'exposed' : 'not exposed (memory scenario skipped)',
  };
  process.stderr.write(`zot-extension-host bench: ${meta.mode}, ${meta.runs} runs, host: ${meta.host}\n`);

  const rows: Row[] = [];
  const stage = async (name: string, run: () => Promise<Row[]>) => {
    const t0 = nowNs();
    rows.push(...(await run()));
    ctx.progress(`${name} done in ${(elapsedMs(t0) / 1e3).toFixed(1)} s`);
  };
  try {
    const calls = (['rtt', 'pipelined', 'large', 'payload'] as const).filter((s) => options.only.has(s));
    if (calls.length > 0) await stage('calls', () => runCalls(ctx, new Set<CallScenario>(calls)));
    if (options.only.has('startup')) await stage('startup', () => runStartup(ctx));
    if (options.only.has('intercept')) await stage('intercept', () => runIntercept(ctx));
    if (options.only.has('fanout')) await stage('fan-out', () => runFanout(ctx));
    if (options.only.has('memory')) await stage('memory', () => runMemory(ctx));
    if (options.only.has('commands')) await stage('commands', () => runCommands(ctx));
    if (options.only.has('discovery')) await stage('discovery', () => runManifests(ctx));
    if (options.only.has('import')) await stage('import', () => runImports(ctx));
    if (options.only.has('remote')) await stage('remote', () => runRemote(ctx));
    if (options.only.has('sandbox')) await stage('sandbox', () => runSandbox(ctx));
  } finally {
    workspace.dispose();
  }

  const evaluated = rows.map(evaluate);
  const lines = [
    '',
    `node ${meta.node}, ${meta.platform}, ${meta.cpu}`,
    `${meta.mode} mode, ${meta.runs} interleaved runs; values are median [min-max] across runs; host/raw, host/coalesced, host/mcp are medians of per-run ratios`,
    `host: ${meta.host}; CPU time: ${meta.cpuTime}`,
    '',
    renderTable(evaluated),
  ];
  if (ctx.problems.length > 0) lines.push('', ...ctx.problems.map((p) => `note: ${p}`));
  const seconds = elapsedMs(started) / 1e3;
  lines.push('', `finished in ${seconds.toFixed(1)} s`);
  console.log(lines.join('\n'));

  if (options.json !== undefined) {
    mkdirSync(dirname(options.json), { recursive: true });
    writeFileSync(options.json, `${JSON.stringify({ meta: { ...meta, seconds }, rows: evaluated, problems: ctx.problems }, null, 2)}\n`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  // Exit even if a child is still attached; children see EOF on stdin and exit too.
  process.exit(1);
});
