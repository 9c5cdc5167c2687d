// A busy but healthy extension is not killed by one caller's deadline: a request not yet written
// at its deadline is taken back, one already begun is completed, and the call it was working on
// succeeds.
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/host/host.js';
import { fixture, tempDir } from '../helpers/fixtures.js';
import { isAlive } from '../helpers/processes.js';
import { Recorder } from '../helpers/host.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const text = (r: { content: { type: string; text?: string }[] }) => r.content.map((c) => c.text).join('');

it('times out calls it cannot take yet without stopping it; the call it works on succeeds', { timeout: 20_000 }, async () => {
  const recorder = new Recorder();
  const host = new ExtensionHost({
    discover: false,
    explicit: [fixture('faults/busy'), fixture('extensions/kitchen')],
    logDir: path.join(tmp.dir, 'logs'),
    callbacks: recorder.callbacks,
    timeouts: { shutdown: 500 },
  });
  try {
    expect((await host.start()).failed).toEqual([]);
    const pid = host.extensions().find((e) => e.name === 'busy')!.pid!;
    const work = host.callTool('work', { ms: 1500 }, { timeoutMs: 10_000 });
    await recorder.waitFor('notify', (n) => n.extension === 'busy' && n.message.startsWith('working'));
    // More than its stdin pipe holds: begun, but not written by the deadline.
    const began = Date.now();
    const big = host.callTool('size', { tag: 'big', big: 'x'.repeat(1024 * 1024) }, { timeoutMs: 500 });
    // Queued behind it, never begun: taken back unsent.
    const small = host.callTool('size', { tag: 'small' }, { timeoutMs: 500 });
    const [bigResult, smallResult] = await Promise.all([big, small]);
    expect(Date.now() - began).toBeLessThan(1400);
    expect(bigResult.failure?.code).toBe('TIMEOUT');
    expect(smallResult.failure?.code).toBe('TIMEOUT');
    expect(smallResult.failure?.message).toContain('dropped unsent');
    expect(smallResult.failure?.message).toContain(host.extensions().find((e) => e.name === 'busy')!.logPath);
    // The other extension answers meanwhile.
    expect(text(await host.callTool('echo', { a: 1 }))).toBe('{"a":1}');

    const done = await work;
    expect(done.failure).toBeUndefined();
    expect(text(done)).toBe('worked 1500 ms');
    expect(host.extensions().find((e) => e.name === 'busy')!.state).toBe('ready');
    // The begun request was completed (the framing held); the one taken back never arrived.
    expect(JSON.parse(text(await host.callTool('seen', { tag: 'seen' })))).toEqual(['work', 'big', 'seen']);

    await host.stop();
    expect(await isAlive(pid)).toBe(false);
  } finally {
    await host.stop();
  }
});
