// An extension whose stdin closes while it keeps running can answer nothing more: it is stopped
// (pending calls settle at once), instead of leaving deadline-less requests hanging.
import { afterAll, expect, it } from 'vitest';
import { tempDir } from '../helpers/fixtures.js';
import { memoryExtension, startMemoryProcess } from '../helpers/memory-extension.js';

const logs = tempDir();
afterAll(() => logs.cleanup());

it('stdin closed, process alive: stopped with stdin_blocked, a pending call settles', async () => {
  const ext = memoryExtension();
  const proc = await startMemoryProcess(ext, logs.dir);
  const pending = proc.request({ type: 'tool_call', name: 'x', args: {} }, { timeoutMs: Infinity });
  ext.stdin.destroy(); // the read end went away; stdout stays open
  await expect(pending).rejects.toMatchObject({ code: 'PROCESS_EXITED', message: expect.stringContaining('stdin closed while it kept running') });
  expect((await proc.exited).reason).toBe('stdin_blocked');
  expect(proc.running).toBe(false);
  await proc.stop();
});
