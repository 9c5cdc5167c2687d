// A rewriter cannot get past a guard by making the guard's re-ask fail, and the host's per-extension
// failure policy holds across reload and restart. Real fixture processes throughout.
import { afterAll, describe, expect, it } from 'vitest';
import type { ExtensionHost, HostDiagnostic } from '../../src/index.js';
import { fixture } from '../helpers/fixtures.js';
import { hostKit } from '../helpers/host.js';

const kit = hostKit();
const LS = { toolId: 't1', toolName: 'bash', args: { command: 'ls' } };

async function started(dirs: string[], options: Parameters<typeof kit.start>[0] = {}): Promise<ExtensionHost> {
  const { host, report } = await kit.start({ explicit: dirs.map(fixture), ...options });
  expect(report.failed).toEqual([]);
  return host;
}

describe('revalidateIntercepts: a re-ask that fails blocks', () => {
  it('a rewrite nested too deep for the python guard crashes its re-ask: blocked, not allowed', async () => {
    const host = await started(['extensions/guard', 'intercept/deep-rewriter'], { revalidateIntercepts: true });
    const d = await host.intercepts.toolCall(LS);
    expect(d).toMatchObject({ block: true, blockedBy: 'guard', reason: 'guard failed (crash) when asked again with the rewritten args: blocked' });
    expect(d.args.command).toBe('rm -rf /');
    expect(d.trace.map((s) => [s.interceptor, s.decision, s.failure, s.revalidation])).toEqual([
      ['guard', 'rewrite', undefined, undefined],
      ['deep-rewriter', 'rewrite', undefined, undefined],
      ['guard', 'failure', 'crash', true],
    ]);
    expect(d.trace.at(-1)?.failurePolicy).toBe('block');
    await host.stop();
  });

  it('a rewrite too big for the guard makes its re-ask time out: blocked', async () => {
    const host = await started(['intercept/lazy-guard', 'intercept/big-rewriter'], { revalidateIntercepts: true, timeouts: { intercept: 300 } });
    const d = await host.intercepts.toolCall(LS);
    expect(d).toMatchObject({ block: true, blockedBy: 'lazy-guard' });
    expect(d.trace.at(-1)).toMatchObject({ interceptor: 'lazy-guard', revalidation: true, decision: 'failure', failure: 'timeout', failurePolicy: 'block' });
    // The guard itself is healthy: a small dangerous call is still refused by its answer.
    expect(await host.intercepts.toolCall({ ...LS, args: { command: 'rm -rf /x' } })).toMatchObject({ block: true, reason: 'lazy-guard: rm -rf' });
    await host.stop();
  });
});

describe('modified_args deeper than the host can send on', () => {
  it('is a malformed step (diagnostic naming the extension and its log), never a RangeError', async () => {
    const host = await started(['intercept/abyss-rewriter', 'intercept/rewriter-a']);
    const diagnostics: HostDiagnostic[] = [];
    host.on('diagnostic', (d) => diagnostics.push(d));
    const d = await host.intercepts.toolCall(LS);
    expect(d).toMatchObject({ block: false, modified: true, args: { command: 'ls', rewritten_by: ['rewriter-a'] } });
    expect(d.trace[0]).toMatchObject({ interceptor: 'abyss-rewriter', decision: 'failure', failure: 'malformed', failurePolicy: 'allow' });
    expect(d.trace[0]?.message).toContain('nests deeper than 1000 levels');
    const logPath = host.extensions().find((e) => e.name === 'abyss-rewriter')!.logPath;
    expect(diagnostics).toContainEqual(expect.objectContaining({ code: 'INTERCEPT_MALFORMED', extension: 'abyss-rewriter', logPath }));
    await host.stop();
  });

  it("is blocked under the extension's onFailure 'block' policy", async () => {
    const host = await started(['intercept/abyss-rewriter'], { interceptPolicy: { 'abyss-rewriter': { onFailure: 'block' } } });
    expect(await host.intercepts.toolCall(LS)).toMatchObject({ block: true, blockedBy: 'abyss-rewriter', reason: 'abyss-rewriter failed (malformed): blocked by policy' });
    await host.stop();
  });
});

describe('embedder args that cannot be sent', () => {
  it('reject intercepts.toolCall with a typed INVALID_ARGUMENT, and the guard keeps answering', async () => {
    const host = await started(['extensions/guard']);
    const cyclic: Record<string, unknown> = { command: 'ls' };
    cyclic.self = cyclic;
    await expect(host.intercepts.toolCall({ ...LS, args: cyclic })).rejects.toMatchObject({ name: 'ExtensionHostError', code: 'INVALID_ARGUMENT' });
    await expect(host.intercepts.toolCall({ ...LS, args: { n: 1n } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await host.intercepts.toolCall({ ...LS, args: { command: 'rm -rf /' } })).toMatchObject({ block: true, blockedBy: 'guard' });
    await host.stop();
  });
});

describe('interceptPolicy', () => {
  let host: ExtensionHost;
  afterAll(() => host?.stop());

  it('makes a timed-out guard block, at start, after reload() and after stop() + start()', async () => {
    host = await started(['intercept/slow-guard', 'intercept/rewriter-a'], { timeouts: { intercept: 150 }, interceptPolicy: { 'slow-guard': { onFailure: 'block' } } });
    const expectBlocked = async () =>
      expect(await host.intercepts.toolCall(LS)).toMatchObject({ block: true, blockedBy: 'slow-guard', trace: [{ failure: 'timeout', failurePolicy: 'block' }] });
    await expectBlocked();
    await host.reload();
    await expectBlocked();
    await host.stop();
    await host.start();
    await expectBlocked();
  });

  it('applies to the named extension only', async () => {
    const other = await started(['intercept/slow-guard'], { timeouts: { intercept: 150 }, interceptPolicy: { guard: { onFailure: 'block' } } });
    expect(await other.intercepts.toolCall(LS)).toMatchObject({ block: false, trace: [{ failure: 'timeout', failurePolicy: 'allow' }] });
    await other.stop();
  });
});
