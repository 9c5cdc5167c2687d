// A request still whole in the outbound queue is taken back at its deadline even when a later,
// larger request was taken back before it (the write counters alone would call it written).
import { afterAll, expect, it, vi } from 'vitest';
import type { ExtensionHostError } from '../../src/errors.js';
import { tempDir } from '../helpers/fixtures.js';
import { memoryExtension, startMemoryProcess } from '../helpers/memory-extension.js';

const logs = tempDir();
afterAll(() => logs.cleanup());
const outcome = (p: Promise<unknown>) => p.then(() => 'resolved', (e: ExtensionHostError) => `${e.code}: ${e.message}`);

it.each([
  ['a plain request is dropped unsent', false, /^TIMEOUT: .*dropped unsent/],
  ['a request under the write rule fails with WRITE_TIMEOUT', true, /^WRITE_TIMEOUT: /],
])('%s, after a later one was taken back first', async (_title, closeStdinOnWriteTimeout, expected) => {
  vi.useFakeTimers();
  try {
    const ext = memoryExtension();
    const proc = await startMemoryProcess(ext, logs.dir);
    await vi.advanceTimersByTimeAsync(0);
    ext.holdWrites(); // the extension stops reading
    const r0 = outcome(proc.request({ type: 'tool_call', name: 'a', args: {} }, { timeoutMs: 10_000 })); // in progress
    await vi.advanceTimersByTimeAsync(0);
    const r1 = outcome(proc.request({ type: 'tool_call', name: 'side_effect', args: { x: 1 } }, { timeoutMs: 300, closeStdinOnWriteTimeout }));
    await vi.advanceTimersByTimeAsync(0);
    const r2 = outcome(proc.request({ type: 'tool_call', name: 'b', args: { blob: 'x'.repeat(2000) } }, { timeoutMs: 100 }));
    await vi.advanceTimersByTimeAsync(150);
    expect(await r2).toMatch(/^TIMEOUT: .*dropped unsent/);
    await vi.advanceTimersByTimeAsync(200);
    expect(await r1).toMatch(expected);
    // Never delivered later: the caller already saw it fail.
    expect(ext.requests('tool_call').map((r) => r.name)).not.toContain('side_effect');
    void r0;
    const stopped = proc.stop();
    await vi.runAllTimersAsync();
    await stopped;
  } finally {
    vi.useRealTimers();
  }
});

it('a request larger than the frame limit is not sent: INVALID_ARGUMENT, nothing pending', async () => {
  const ext = memoryExtension((f) => (f.type === 'tool_call' ? { type: 'tool_result', id: f.id, content: [] } : undefined));
  const proc = await startMemoryProcess(ext, logs.dir);
  await expect(proc.request({ type: 'tool_call', name: 'big', args: { s: 'é'.repeat(2.5 * 1024 * 1024) } }, { timeoutMs: 1000 })).rejects.toMatchObject({
    code: 'INVALID_ARGUMENT',
    message: expect.stringContaining('frames are limited to 4194304 bytes'),
  });
  await expect(proc.request({ type: 'tool_call', name: 'ok', args: { s: 'x'.repeat(1000) } }, { timeoutMs: 5000 })).resolves.toMatchObject({ type: 'tool_result' });
  expect(ext.requests('tool_call').map((r) => r.name)).toEqual(['ok']);
  await proc.stop();
});
