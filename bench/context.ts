/** What every scenario gets from the runner: sizes, run count, the host module, a workspace. */
import type { BenchWorkspace } from './extensions.js';
import type { HostModule } from './host.js';
import { IMPLS, type Impl } from './report.js';

export interface Sizes {
  /** Sequential small calls measured per run (round trip percentiles). */
  rttCalls: number;
  /** Calls per pipelined run, and how many are kept in flight (one row pair per count). */
  pipelinedCalls: number;
  inFlight: number[];
  /** Untimed pipelined calls after each forced GC, before a timed block (see collect()). */
  pipelinedRewarm: number;
  /** The payload variant: sequential ~8 KiB mixed-args calls per run, pipelined ones, ~256 KiB ones. */
  payloadCalls: number;
  payloadPipelinedCalls: number;
  largeArgsCalls: number;
  /** Sequential calls per run returning 64 KiB and 1 MiB. */
  calls64k: number;
  calls1m: number;
  /** Extension counts for start-to-ready. */
  startCounts: number[];
  /**
   * Runs for the scenarios that spawn everything anew each run (start-to-ready, memory); spawning
   * dominates the quick run's time. undefined = the run count.
   */
  spawnRuns?: number | undefined;
  /** Largest start count the MCP column is measured for (each MCP server loads the SDK). */
  mcpStartMax: number;
  /** Interceptor counts, and chains measured per run. */
  interceptCounts: number[];
  interceptCalls: number;
  /** Subscribers and emits per run for fan-out. */
  fanoutSubscribers: number;
  fanoutEmits: number;
  /** Extensions for the memory scenario, and the calls each answers before the second reading. */
  memoryExtensions: number;
  memoryCalls: number;
  /** Commands one extension registers after ready. */
  lateCommands: number;
  /** Manifests for the discovery scenario. */
  manifests: number;
  /** Remote scenario: sequential calls per run (round trip p50), and pipelined calls per run. */
  remoteRttCalls: number;
  remotePipelinedCalls: number;
}

export const FULL: Sizes = {
  rttCalls: 3000,
  pipelinedCalls: 30_000,
  inFlight: [64, 256],
  pipelinedRewarm: 3000,
  payloadCalls: 1000,
  payloadPipelinedCalls: 5000,
  largeArgsCalls: 30,
  calls64k: 200,
  calls1m: 30,
  startCounts: [1, 20, 50],
  mcpStartMax: 20,
  interceptCounts: [1, 5, 10],
  interceptCalls: 1000,
  fanoutSubscribers: 20,
  fanoutEmits: 1000,
  memoryExtensions: 50,
  memoryCalls: 100,
  lateCommands: 5000,
  manifests: 1000,
  remoteRttCalls: 2000,
  remotePipelinedCalls: 20_000,
};

export const QUICK: Sizes = {
  ...FULL,
  rttCalls: 600,
  pipelinedCalls: 5000,
  pipelinedRewarm: 1500,
  payloadCalls: 200,
  payloadPipelinedCalls: 600,
  largeArgsCalls: 8,
  calls64k: 40,
  calls1m: 8,
  spawnRuns: 2,
  mcpStartMax: 1,
  interceptCalls: 150,
  fanoutEmits: 200,
  memoryExtensions: 20,
  remoteRttCalls: 500,
  remotePipelinedCalls: 5000,
};

export interface BenchContext {
  quick: boolean;
  runs: number;
  sizes: Sizes;
  host: HostModule;
  workspace: BenchWorkspace;
  /** A progress line on stderr. */
  progress(message: string): void;
  /** Failures worth printing under the table. */
  problems: string[];
}

/**
 * Runs one measurement of `impl`; if it throws, the problem is recorded and `impl` is skipped for
 * the rest of the scenario (so the per-run pairing of the remaining values stays aligned).
 */
export async function guarded(
  ctx: BenchContext,
  scenario: string,
  impl: Impl,
  disabled: Set<Impl>,
  measure: () => Promise<void>,
): Promise<void> {
  if (disabled.has(impl)) return;
  try {
    await measure();
  } catch (error) {
    disabled.add(impl);
    ctx.problems.push(`${scenario}: ${impl} failed: ${(error as Error).message}`);
  }
}

/** How many runs a scenario that spawns anew each run does. */
export function spawnRuns(ctx: BenchContext): number {
  return Math.min(ctx.runs, ctx.sizes.spawnRuns ?? ctx.runs);
}

/** A/B/A/B: run r starts with a different implementation, so no side always goes first. */
export function order(run: number, impls: readonly Impl[] = IMPLS): Impl[] {
  const k = run % impls.length;
  return [...impls.slice(k), ...impls.slice(0, k)];
}

const gc = (globalThis as { gc?: () => void }).gc;

/** True when the runner was started with --expose-gc. */
export const hasGc = typeof gc === 'function';

/**
 * Collects garbage (when exposed) so one measurement does not pay for the previous one's. A forced
 * full GC also throws away optimized code that embedded object shapes which died with the garbage
 * (V8 logs "deoptimization, reason: weak objects"), so warm the code path up again after it and
 * before timing, or the first few hundred calls measure re-optimization instead of the steady state.
 */
export function collect(): void {
  if (gc !== undefined) {
    gc();
    gc();
  }
}

export function nowNs(): bigint {
  return process.hrtime.bigint();
}

export function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Lets pending I/O callbacks run (between fan-out emits, after startup). */
export function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
