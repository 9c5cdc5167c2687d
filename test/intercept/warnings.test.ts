// Interceptor timeouts and malformed answers reach the `warning` callback, bounded under a flood.
import { describe, expect, it } from 'vitest';
import { InterceptWarnings } from '../../src/host/interceptors.js';
import { fixture } from '../helpers/fixtures.js';
import { hostKit } from '../helpers/host.js';

const kit = hostKit();
const LS = { toolId: 't1', toolName: 'bash', args: { command: 'ls' } };

describe('interceptor failures as warnings', () => {
  it('a timeout warns with the extension and its log; 25 more make one more warning (the 10th), not 25', async () => {
    const { host, rec } = await kit.start({ explicit: [fixture('intercept/slow-guard')], timeouts: { intercept: 100 } });
    const logPath = host.extensions()[0]!.logPath;
    await host.intercepts.toolCall(LS);
    const first = await rec.waitFor('warning', (w) => w.code === 'INTERCEPT_TIMEOUT');
    expect(first).toMatchObject({ extension: 'slow-guard', logPath });
    expect(first.message).toContain('slow-guard did not answer within 100 ms');
    expect(first.message).toContain(logPath);
    await Promise.all(Array.from({ length: 25 }, (_, i) => host.intercepts.toolCall({ ...LS, toolId: `t${i}` })));
    const timeouts = rec.of('warning').filter((w) => w.code === 'INTERCEPT_TIMEOUT');
    expect(timeouts.map((w) => w.message.match(/^interceptor slow-guard: (\d+) timeout failures so far/)?.[1] ?? 'first')).toEqual(['first', '10']);
    // Diagnostics about one extension are limited too: the first 5 in full, then (at most) one summary a second.
    const recorded = host.diagnostics().filter((d) => d.code === 'INTERCEPT_TIMEOUT').length;
    expect(recorded).toBeGreaterThanOrEqual(5);
    expect(recorded).toBeLessThanOrEqual(6);
  });

  it('a malformed answer warns', async () => {
    const { host, rec } = await kit.start({ explicit: [fixture('intercept/abyss-rewriter')] });
    await host.intercepts.toolCall(LS);
    const warning = await rec.waitFor('warning', (w) => w.code === 'INTERCEPT_MALFORMED');
    expect(warning).toMatchObject({ extension: 'abyss-rewriter', logPath: host.extensions()[0]!.logPath });
  });
});

describe('InterceptWarnings', () => {
  it('warns at the 1st, 10th, 100th, ... failure per interceptor and kind, with a bounded number of counters', () => {
    const limiter = new InterceptWarnings();
    const d = { interceptor: 'g', event: 'tool_call' as const, kind: 'timeout' as const, message: 'late' };
    const warned: number[] = [];
    for (let i = 1; i <= 100_000; i++) if (limiter.warningFor(d, '/log') !== undefined) warned.push(i);
    expect(warned).toEqual([1, 10, 100, 1000, 10_000, 100_000]);
    expect(limiter.warningFor({ ...d, kind: 'malformed' }, '/log')).toBeDefined();
    expect(limiter.warningFor({ ...d, kind: 'ignored_field' }, '/log')).toBeUndefined();
    expect(limiter.warningFor({ ...d, kind: 'crash' }, '/log')).toBeUndefined();
    // Invented names: the counters start over past their bound instead of growing.
    for (let i = 0; i < 5000; i++) limiter.warningFor({ ...d, interceptor: `n${i}` }, undefined);
    expect(limiter.warningFor({ ...d, interceptor: 'n4999' }, undefined)).toBeUndefined();
  });
});
