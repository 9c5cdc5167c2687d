// Soak: many tool calls at mixed concurrency across extensions with random (seeded) crashes,
// reloads and stop/start cycles; then fds, child processes and heap must be back near their start
// and no rejection may have gone unhandled. `npm run soak` runs the full form; test/soak.test.ts a
// short one. Run with --expose-gc for the heap check (without it, gc is enabled through v8 flags).
import { readdir, readFile } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ExtensionHost } from '../src/index.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

export interface SoakOptions {
  calls: number;
  reloads: number;
  cycles: number;
  /** Probability that a call is one that crashes its extension. @default 0.002 */
  crashRate?: number;
  seed?: number;
  log?: (line: string) => void;
}

export interface SoakResult {
  calls: number;
  errors: Record<string, number>;
  fds: { before: number; after: number };
  /** Child processes of this process (tsx's esbuild service, for one, is there from the start). */
  children: { before: number; after: number };
  heapMiB: { before: number; after: number } | undefined;
  unhandledRejections: number;
  ms: number;
}

/** Failures a soak call may legitimately end with: its extension crashed, or is gone until the next reload. */
export const EXPECTED_FAILURES: ReadonlySet<string> = new Set(['PROCESS_EXITED', 'UNKNOWN_TOOL', 'NOT_STARTED']);

/** mulberry32: a small seeded PRNG. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gcFunction(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}

async function fdCount(): Promise<number> {
  return (await readdir('/proc/self/fd')).length;
}

/** Live (non-zombie) child processes of this process. */
async function childCount(): Promise<number> {
  let n = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === process.pid && fields[0] !== 'Z') n++;
    } catch {
      // gone
    }
  }
  return n;
}

async function settle(check: () => Promise<boolean>, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const { calls, reloads, cycles, crashRate = 0.002, seed = 12, log = () => undefined } = options;
  const rand = random(seed);
  let unhandled = 0;
  const onUnhandled = () => unhandled++;
  process.on('unhandledRejection', onUnhandled);
  const dir = mkdtempSync(path.join(tmpdir(), 'zot-soak-'));
  const gc = gcFunction();
  const heap = () => {
    gc?.();
    gc?.();
    return process.memoryUsage().heapUsed / 1024 / 1024;
  };
  const began = performance.now();
  const host = new ExtensionHost({
    cwd: dir,
    home: dir,
    discover: false,
    explicit: ['extensions/kitchen', 'faults/saboteur', 'extensions/hello-sh'].map((d) => path.join(FIXTURES, d)),
    timeouts: { tool: 5000, shutdown: 500 },
  });
  const errors: Record<string, number> = {};
  try {
    // A warm-up cycle: modules, codec and caches are loaded before the baseline is taken.
    await host.start();
    await host.callTool('echo', { warm: true });
    await host.stop();
    await settle(async () => (await childCount()) === 0, 1000);
    const childrenBefore = await childCount();
    const fdsBefore = await fdCount();
    const heapBefore = gc === undefined ? undefined : heap();
    await host.start();

    const reloadEvery = Math.max(1, Math.floor(calls / (reloads + 1)));
    const cycleEvery = Math.max(1, Math.floor(calls / (cycles + 1)));
    let done = 0;
    let nextReload = reloadEvery;
    let nextCycle = cycleEvery;
    let reloaded = 0;
    let cycled = 0;
    while (done < calls) {
      const batch = Math.min(calls - done, 1 + Math.floor(rand() * 32));
      const pending = [];
      for (let i = 0; i < batch; i++) {
        const r = rand();
        const kitchen = r < 0.5;
        const crash = rand() < crashRate;
        const name = kitchen ? (crash ? 'crash' : 'echo') : crash ? 'sab_crash' : 'sab_ok';
        pending.push(host.callTool(name, { i: done + i }));
      }
      for (const result of await Promise.all(pending)) {
        if (!result.isError) continue;
        const code = result.failure?.code ?? 'IS_ERROR';
        errors[code] = (errors[code] ?? 0) + 1;
      }
      done += batch;
      if (reloaded < reloads && done >= nextReload) {
        await host.reload();
        reloaded++;
        nextReload += reloadEvery;
      }
      if (cycled < cycles && done >= nextCycle) {
        await host.stop();
        await host.start();
        cycled++;
        nextCycle += cycleEvery;
      }
      if (done % 1000 < batch) log(`${done} calls, ${reloaded} reloads, ${cycled} cycles, ${Math.round(performance.now() - began)} ms`);
    }
    while (reloaded < reloads) {
      await host.reload();
      reloaded++;
    }
    while (cycled < cycles) {
      await host.stop();
      await host.start();
      cycled++;
    }
    await host.stop();
    await settle(async () => (await childCount()) <= childrenBefore);
    await settle(async () => (await fdCount()) <= fdsBefore + 4);
    // Let rejections scheduled by the last settlements surface.
    await new Promise((r) => setTimeout(r, 50));
    return {
      calls: done,
      errors,
      fds: { before: fdsBefore, after: await fdCount() },
      children: { before: childrenBefore, after: await childCount() },
      heapMiB: heapBefore === undefined ? undefined : { before: heapBefore, after: heap() },
      unhandledRejections: unhandled,
      ms: Math.round(performance.now() - began),
    };
  } finally {
    await host.stop();
    process.off('unhandledRejection', onUnhandled);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Throws when the result is outside the soak's bounds. */
export function checkSoak(result: SoakResult, heapSlackMiB = 32): void {
  const problems: string[] = [];
  for (const code of Object.keys(result.errors)) if (!EXPECTED_FAILURES.has(code)) problems.push(`unexpected failure ${code} x${result.errors[code]}`);
  if (result.fds.after > result.fds.before + 4) problems.push(`fds ${result.fds.before} -> ${result.fds.after}`);
  if (result.children.after > result.children.before) problems.push(`child processes ${result.children.before} -> ${result.children.after}`);
  if (result.heapMiB !== undefined && result.heapMiB.after > result.heapMiB.before + heapSlackMiB) problems.push(`heap ${result.heapMiB.before.toFixed(1)} -> ${result.heapMiB.after.toFixed(1)} MiB`);
  if (result.unhandledRejections !== 0) problems.push(`${result.unhandledRejections} unhandled rejections`);
  if (problems.length > 0) throw new Error(`soak failed: ${problems.join('; ')}`);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await runSoak({ calls: 10_000, reloads: 100, cycles: 20, log: (line) => console.log(line) });
  console.log(JSON.stringify(result, null, 2));
  checkSoak(result);
  console.log('soak ok');
}
