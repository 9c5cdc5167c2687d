/**
 * Tool calls through one extension: small round trip (one at a time, and its parent CPU per call),
 * pipelined (64 and 256 in flight), 64 KiB / 1 MiB results, and the payload variant (arguments
 * with JSON escapes, non-ASCII text, and large ones). Each implementation keeps one session open
 * for the whole scenario; measurement blocks alternate between them run after run (A/B/A/B), so
 * drift on a shared machine lands on every column alike. Two raw baselines: `raw` writes once per
 * request, `coalesced` once per tick (as the host does).
 */
import { collect, elapsedMs, guarded, nowNs, order, type BenchContext } from '../context.js';
import { cpuTimeNs } from '../cpu.js';
import { hostCall, startHost } from '../host.js';
import { McpEcho } from '../mcp/client.js';
import { jsonBytes, mixedArgs } from '../payloads.js';
import { RawPeer } from '../raw.js';
import { cmp, emptyValues, IMPLS, type Impl, type Row } from '../report.js';
import { formatNumber, percentile } from '../stats.js';

type Args = Record<string, unknown>;
interface Session {
  call(args: Args): Promise<string>;
  close(): Promise<void>;
}

const SMALL: Args = { x: 1 };
const SMALL_TEXT = JSON.stringify(SMALL);
const KIB64 = 64 * 1024;
const MIB1 = 1024 * 1024;
/** The payload variant: ~8 KiB of mixed arguments for round trips and pipelining, ~256 KiB large. */
const MIXED = mixedArgs(8 * 1024);
const MIXED_LENGTH = JSON.stringify(MIXED).length;
const MIXED_LARGE = mixedArgs(256 * 1024);
const MIXED_LARGE_LENGTH = JSON.stringify(MIXED_LARGE).length;
const kib = (args: Args) => `${formatNumber(jsonBytes(args) / 1024)} KiB`;

export type CallScenario = 'rtt' | 'pipelined' | 'large' | 'payload';

/** Small round trips per turn of a session (see the rtt block). */
const RTT_CHUNK = 50;
/** One call at a time gains nothing from coalescing: the large rows compare raw, host and mcp. */
const ONE_WRITER: readonly Impl[] = ['raw', 'host', 'mcp'];

async function open(impl: Impl, ctx: BenchContext): Promise<Session | undefined> {
  if (impl === 'mcp') {
    const mcp = await McpEcho.connect();
    return { call: (args) => mcp.call(args), close: () => mcp.close() };
  }
  const ext = ctx.workspace.extension();
  if (impl === 'raw' || impl === 'coalesced') {
    const peer = await RawPeer.spawn({ command: ext.command, args: ext.args, cwd: ext.dir, coalesce: impl === 'coalesced' });
    await peer.handshake();
    return { call: (args) => peer.call('echo', args), close: () => peer.close() };
  }
  if (!ctx.host.ok) return undefined;
  const host = await startHost(ctx.host.ExtensionHost, ctx.workspace, [ext]);
  return { call: (args) => hostCall(host, 'echo', args), close: () => host.stop() };
}

/** `count` calls one after the other; returns each one's round trip in ns. */
async function sequential(session: Session, count: number, args: Args, expectLength: number): Promise<number[]> {
  const samples = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const t = nowNs();
    const text = await session.call(args);
    samples[i] = Number(nowNs() - t);
    if (text.length !== expectLength) throw new Error(`result of ${text.length} bytes, expected ${expectLength}`);
  }
  return samples;
}

/** Keeps `inFlight` calls outstanding until `total` have been answered. */
function pipeline(session: Session, total: number, inFlight: number, args: Args = SMALL): Promise<void> {
  return new Promise((resolve, reject) => {
    let issued = 0;
    let done = 0;
    const next = (): void => {
      if (issued >= total) return;
      issued++;
      session.call(args).then(() => {
        if (++done === total) resolve();
        else next();
      }, reject);
    };
    for (let i = 0; i < inFlight; i++) next();
  });
}

export async function runCalls(ctx: BenchContext, selected: ReadonlySet<CallScenario>): Promise<Row[]> {
  const { sizes } = ctx;
  const sessions = new Map<Impl, Session>();
  const disabled = new Set<Impl>();
  try {
    for (const impl of IMPLS) {
      await guarded(ctx, 'calls', impl, disabled, async () => {
        const session = await open(impl, ctx);
        if (session === undefined) return;
        sessions.set(impl, session);
        // Warm-up: JIT on both sides (Node's stream internals included), buffers grown. Small round
        // trips keep getting faster for ~2,000 calls here (fewer leave the first timed blocks ramping).
        await sequential(session, 2000, SMALL, SMALL_TEXT.length);
        for (const inFlight of sizes.inFlight) await pipeline(session, 3000, inFlight);
        await sequential(session, 3, { size: MIB1 }, MIB1);
        if (selected.has('payload')) {
          await sequential(session, 200, MIXED, MIXED_LENGTH);
          await pipeline(session, Math.min(1000, sizes.payloadPipelinedCalls), 64, MIXED);
          await sequential(session, 3, MIXED_LARGE, MIXED_LARGE_LENGTH);
        }
      });
    }

    /**
     * One block per run and session, alternating the order. `rewarm` runs untimed before each block,
     * after the GC when `gc` is set (see collect(): a forced GC deoptimizes, so re-warm after it).
     */
    const rounds = async (
      label: string,
      options: { gc: boolean; rewarm: (session: Session) => Promise<unknown> },
      measure: (session: Session, impl: Impl) => Promise<void>,
    ) => {
      for (let run = 0; run < ctx.runs; run++) {
        for (const impl of order(run)) {
          const session = sessions.get(impl);
          if (session === undefined) continue;
          await guarded(ctx, label, impl, disabled, async () => {
            if (options.gc) collect();
            await options.rewarm(session);
            await measure(session, impl);
          });
        }
        ctx.progress(`${label}: run ${run + 1}/${ctx.runs}`);
      }
    };

    /**
     * Sequential calls with the sessions taking turns every `chunk` calls within each run (the
     * order rotating per turn); returns each run's samples per session. Whether a child wakes up
     * on the parent's CPU or another one, and where the garbage collector strikes, changes from one
     * stretch of calls to the next, and whole-block alternation left that on one side. No forced GC:
     * garbage left by the previous run does not move a p50, but a forced GC's deoptimizations do
     * (see collect()).
     */
    const turns = async (
      label: string,
      calls: number,
      chunk: number,
      args: Args,
      expectLength: number,
      perRun: (samples: ReadonlyMap<Impl, number[]>) => void,
      impls: readonly Impl[] = IMPLS,
    ) => {
      for (let run = 0; run < ctx.runs; run++) {
        const samples = new Map<Impl, number[]>();
        const turnsPerRun = Math.ceil(calls / chunk);
        for (let turn = 0; turn < turnsPerRun; turn++) {
          for (const impl of order(run + turn, impls)) {
            const session = sessions.get(impl);
            if (session === undefined) continue;
            await guarded(ctx, label, impl, disabled, async () => {
              const got = await sequential(session, chunk, args, expectLength);
              samples.set(impl, [...(samples.get(impl) ?? []), ...got]);
            });
          }
        }
        for (const impl of disabled) samples.delete(impl);
        perRun(samples);
        ctx.progress(`${label}: run ${run + 1}/${ctx.runs}`);
      }
    };

    /** p50 and p99 in us of each run's samples. */
    const latency = () => {
      const p50 = emptyValues();
      const p99 = emptyValues();
      const perRun = (samples: ReadonlyMap<Impl, number[]>) => {
        for (const [impl, values] of samples) {
          p50[impl].push(percentile(values, 50) / 1e3);
          p99[impl].push(percentile(values, 99) / 1e3);
        }
      };
      return { p50, p99, perRun };
    };

    /**
     * Parent CPU per call of `calls` calls, one block per run and session. The CPU time is read
     * around the block, not per call (a reading costs tens of microseconds).
     */
    const cpuPerCall = async (
      label: string,
      calls: number,
      run: (session: Session) => Promise<unknown>,
      rewarm: (session: Session) => Promise<unknown>,
      gc = true,
    ) => {
      const cpu = emptyValues();
      const rate = emptyValues();
      // Throughput blocks must not pay for the previous block's garbage: GC, then re-warm.
      await rounds(label, { gc, rewarm }, async (session, impl) => {
        const cpu0 = cpuTimeNs();
        const t0 = nowNs();
        await run(session);
        const ms = elapsedMs(t0);
        cpu[impl].push(Number(cpuTimeNs() - cpu0) / 1e3 / calls);
        rate[impl].push(calls / (ms / 1e3));
      });
      return { cpu, rate };
    };

    const rows: Row[] = [];
    if (selected.has('rtt')) {
      const { p50, p99, perRun } = latency();
      // The sessions take turns every RTT_CHUNK calls within a run (see turns()).
      await turns('small round trip', sizes.rttCalls, RTT_CHUNK, SMALL, SMALL_TEXT.length, perRun);
      const { cpu } = await cpuPerCall(
        'small round trip CPU',
        sizes.rttCalls,
        (session) => sequential(session, sizes.rttCalls, SMALL, SMALL_TEXT.length),
        (session) => sequential(session, 500, SMALL, SMALL_TEXT.length),
        // As for the p50: no forced GC (its deoptimizations would be what a short block measures).
        false,
      );
      rows.push({
        scenario: 'small round trip',
        metric: 'p50',
        unit: 'us',
        values: p50,
        // Core v3's limit (issue 29): within 3 us of the raw loop; host/mcp is reported as a plain number.
        target: { text: '<= raw + 3 us', check: (m) => cmp(m.host, '<=', m.raw === undefined ? undefined : m.raw + 3) },
      });
      rows.push({ scenario: 'small round trip', metric: 'p99', unit: 'us', values: p99 });
      rows.push({ scenario: 'small round trip', metric: 'parent CPU', unit: 'us/call', values: cpu });
    }
    if (selected.has('pipelined')) {
      for (const inFlight of sizes.inFlight) {
        const { cpu, rate } = await cpuPerCall(
          `pipelined ${inFlight}`,
          sizes.pipelinedCalls,
          (session) => pipeline(session, sizes.pipelinedCalls, inFlight),
          (session) => pipeline(session, sizes.pipelinedRewarm, inFlight),
        );
        const scenario = `pipelined, ${inFlight} in flight`;
        rows.push({
          scenario,
          metric: 'throughput',
          unit: 'replies/s',
          values: rate,
          // Core v3's limit (issue 29): at least 0.90x the loop that coalesces its writes per tick, as the host does.
          target: { text: '>= 0.90x coalesced', check: (m) => cmp(m.ratioCoalesced, '>=', 0.9) },
        });
        rows.push({
          scenario,
          metric: 'parent CPU',
          unit: 'us/call',
          values: cpu,
        });
      }
    }
    if (selected.has('large')) {
      const big64 = emptyValues();
      const big1m = emptyValues();
      // Call by call: with 30 calls per block, a block's p50 moved with the GC and CPU state it
      // happened to meet (4.4-6.8 ms for the same side across runs, pinned).
      const p50ms = (into: Record<Impl, number[]>) => (samples: ReadonlyMap<Impl, number[]>) => {
        for (const [impl, values] of samples) into[impl].push(percentile(values, 50) / 1e6);
      };
      await turns('64 KiB result', sizes.calls64k, 1, { size: KIB64 }, KIB64, p50ms(big64), ONE_WRITER);
      await turns('1 MiB result', sizes.calls1m, 1, { size: MIB1 }, MIB1, p50ms(big1m), ONE_WRITER);
      rows.push({ scenario: '64 KiB result', metric: 'round trip p50', unit: 'ms', values: big64 });
      rows.push({
        scenario: '1 MiB result',
        metric: 'round trip p50',
        unit: 'ms',
        values: big1m,
        target: { text: '<= 1.10x raw', check: (m) => cmp(m.ratio, '<=', 1.1) },
      });
    }
    if (selected.has('payload')) {
      const { p50, p99, perRun } = latency();
      await turns('mixed args round trip', sizes.payloadCalls, RTT_CHUNK, MIXED, MIXED_LENGTH, perRun);
      const { cpu, rate } = await cpuPerCall(
        'mixed args pipelined',
        sizes.payloadPipelinedCalls,
        (session) => pipeline(session, sizes.payloadPipelinedCalls, 64, MIXED),
        (session) => pipeline(session, Math.min(1000, sizes.payloadPipelinedCalls), 64, MIXED),
      );
      const large = emptyValues();
      await turns('large mixed args', sizes.largeArgsCalls, 1, MIXED_LARGE, MIXED_LARGE_LENGTH, (samples) => {
        for (const [impl, values] of samples) large[impl].push(percentile(values, 50) / 1e6);
      }, ONE_WRITER);
      const small = `round trip, ${kib(MIXED)} mixed args`;
      rows.push({ scenario: small, metric: 'p50', unit: 'us', values: p50 });
      rows.push({ scenario: small, metric: 'p99', unit: 'us', values: p99 });
      const piped = `pipelined, 64 in flight, ${kib(MIXED)} mixed args`;
      rows.push({ scenario: piped, metric: 'throughput', unit: 'replies/s', values: rate });
      rows.push({ scenario: piped, metric: 'parent CPU', unit: 'us/call', values: cpu });
      rows.push({ scenario: `round trip, ${kib(MIXED_LARGE)} mixed args`, metric: 'p50', unit: 'ms', values: large });
    }
    return rows;
  } finally {
    await Promise.all([...sessions.values()].map((s) => s.close()));
  }
}
