// Whatever a frame's handling throws (a listener, a callback reached from it) stays inside the line:
// it is a CALLBACK_THREW diagnostic, and the lines after it in the same chunk are still read.
import { afterAll, expect, it } from 'vitest';
import type { ProcessDiagnostic } from '../../src/process/extension-process.js';
import { tempDir } from '../helpers/fixtures.js';
import { memoryExtension, startMemoryProcess } from '../helpers/memory-extension.js';

const logs = tempDir();
afterAll(() => logs.cleanup());

it('a frame listener that throws: a diagnostic, and the answer read in the same chunk is delivered', async () => {
  const ext = memoryExtension();
  const proc = await startMemoryProcess(ext, logs.dir);
  const diagnostics: ProcessDiagnostic[] = [];
  proc.on('diagnostic', (d) => diagnostics.push(d));
  proc.on('frame', () => {
    throw new Error('listener bug');
  });
  const call = proc.request({ type: 'tool_call', name: 'x', args: {} }, { timeoutMs: 5000 });
  await new Promise((resolve) => setImmediate(resolve));
  const id = String(ext.requests('tool_call')[0]!.id);
  // One chunk: a one-way frame (its listener throws), then the answer.
  (ext.child.stdout as unknown as { write(s: string): void }).write(
    `{"type":"notify","message":"hi"}\n{"type":"tool_result","id":${JSON.stringify(id)},"content":[]}\n`,
  );
  await expect(call).resolves.toMatchObject({ type: 'tool_result', id });
  expect(diagnostics.map((d) => [d.code, d.message])).toEqual([['CALLBACK_THREW', 'handling a notify frame threw: listener bug']]);
  await proc.stop();
});
