// Each request's deadline timer goes when it settles: a caller passing a remaining budget (a new
// timeout every call) must not leave one live timer per call behind.
import { afterAll, expect, it } from 'vitest';
import { tempDir } from '../helpers/fixtures.js';
import { memoryExtension, startMemoryProcess } from '../helpers/memory-extension.js';

const logs = tempDir();
afterAll(() => logs.cleanup());
const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

it('distinct per-call timeouts keep a bounded number of timers', async () => {
  const ext = memoryExtension((f) => (f.type === 'tool_call' ? { type: 'tool_result', id: f.id, content: [] } : undefined));
  const proc = await startMemoryProcess(ext, logs.dir);
  const before = timers();
  for (let i = 0; i < 2000; i++) await proc.request({ type: 'tool_call', name: 'x', args: {} }, { timeoutMs: 600_000 - i });
  expect(timers() - before).toBeLessThanOrEqual(10);
  await proc.stop();
});
