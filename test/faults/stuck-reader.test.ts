// A subscriber that stops reading its stdin: events beyond the outbound bound are dropped and
// counted (never queued), and once its stdin takes nothing for the stuck deadline it is stopped.
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/host/host.js';
import type { HostDiagnostic } from '../../src/host/types.js';
import { fixture, tempDir } from '../helpers/fixtures.js';
import { heapAfterGc } from '../helpers/heap.js';
import { isAlive } from '../helpers/processes.js';
import { nextEvent } from '../helpers/wait.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const MB = 1024 * 1024;

it('drops events over the bound, stops it once stuck, and settles its calls; the others keep answering', { timeout: 20_000 }, async () => {
  const logDir = path.join(tmp.dir, 'logs');
  const host = new ExtensionHost({
    discover: false,
    explicit: [fixture('faults/deaf-subscriber'), fixture('faults/echo-py')],
    logDir,
    timeouts: { stuck: 1500, shutdown: 500 },
  });
  const diagnostics: HostDiagnostic[] = [];
  host.on('diagnostic', (d) => diagnostics.push(d));
  try {
    expect((await host.start()).failed).toEqual([]);
    const deaf = host.extensions().find((e) => e.name === 'deaf-subscriber')!;
    const exited = nextEvent(host, 'extension:exit', (e) => e.name === 'deaf-subscriber', 10_000);
    const before = heapAfterGc();
    const began = Date.now();
    const pending = host.callTool('never', {}, { timeoutMs: 60_000 });
    // 100 MB of events, 12 x the default 8 MiB bound.
    const data = 'e'.repeat(10_000);
    let sent = 0;
    for (let i = 0; i < 10_000; i++) sent += host.emit({ event: 'flood', i, data });
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(1000);
    const growth = heapAfterGc() - before;
    expect(growth, `heap grew by ${(growth / MB).toFixed(1)} MB`).toBeLessThan(64 * MB);

    // The pending call settles at the stuck deadline, not its own.
    const result = await pending;
    expect(result.failure?.code).toBe('WRITE_TIMEOUT');
    expect(Date.now() - began).toBeLessThan(6000);
    expect((await exited).reason).toBe('stdin_blocked');
    expect(host.extensions().find((e) => e.name === 'deaf-subscriber')!.state).toBe('exited');

    const dropped = diagnostics.filter((d) => d.code === 'OUTBOUND_DROPPED');
    expect(dropped.length).toBeGreaterThan(5);
    expect(dropped.length).toBeLessThan(20);
    for (const d of dropped) expect(d).toMatchObject({ extension: 'deaf-subscriber', logPath: deaf.logPath });
    expect(diagnostics.find((d) => d.code === 'STDIN_STUCK')).toMatchObject({ extension: 'deaf-subscriber', logPath: deaf.logPath, severity: 'error' });

    const echo = await host.callTool('echo', { still: 'here' });
    expect(echo.content).toEqual([{ type: 'text', text: '{"still":"here"}' }]);
    await host.stop();
    expect(await isAlive(deaf.pid!)).toBe(false);
  } finally {
    await host.stop();
  }
});

it('a bound smaller than one frame still lets a frame through when nothing waits (hello_ack included)', { timeout: 15_000 }, async () => {
  const host = new ExtensionHost({ discover: false, explicit: [fixture('faults/echo-py')], logDir: path.join(tmp.dir, 'small'), maxOutboundBytes: 16 });
  try {
    const report = await host.start();
    expect(report.loaded.map((e) => [e.name, e.readyVia])).toEqual([['echo-py', 'ready']]);
    expect((await host.callTool('echo', { a: 1 })).content).toEqual([{ type: 'text', text: '{"a":1}' }]);
  } finally {
    await host.stop();
  }
});
