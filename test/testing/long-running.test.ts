// The example of docs/writing-extensions.md "Long-running handlers: cancellation and progress".
import { afterEach, expect, it } from 'vitest';
import { defineExtension, text } from '../../src/sdk/index.js';
import { createTestHost, type ProgressRecord, type TestHost } from '../../src/testing/index.js';

const seen: string[] = [];

export function createIndexer() {
  const ext = defineExtension({ name: 'indexer' });
  ext.tool('index_files', { description: 'Index the project files' }, async (_args, ctx) => {
    const files = ['a.ts', 'b.ts', 'c.ts', 'd.ts'];
    for (const [done, file] of files.entries()) {
      // Stops at the next file once the host cancels the call (or the extension stops).
      ctx.signal.throwIfAborted();
      ctx.progress({ message: `indexing ${file}`, progress: done, total: files.length });
      await indexFile(file, ctx.signal);
    }
    return text(`indexed ${files.length} files`);
  });
  return ext;
}

/** Stands in for real work: a.ts is quick, the others take until the signal fires. */
function indexFile(file: string, signal: AbortSignal): Promise<void> {
  seen.push(file);
  if (file === 'a.ts') return Promise.resolve();
  return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
}

let t: TestHost;
afterEach(() => t.close());

it('reports progress, then stops when the call is aborted', async () => {
  t = await createTestHost({ extensions: [createIndexer()], capabilities: ['cancel', 'progress'] });
  const controller = new AbortController();
  const progress: ProgressRecord[] = [];
  const call = t.callTool('index_files', {}, {
    signal: controller.signal,
    onProgress: (p) => {
      progress.push(p);
      if (p.progress === 1) controller.abort(); // give up during the second file
    },
  });
  const result = await call;
  expect(result.failure?.code).toBe('ABORTED');
  expect(progress.map((p) => p.message)).toEqual(['indexing a.ts', 'indexing b.ts']);
  expect(seen).toEqual(['a.ts', 'b.ts']);
});
