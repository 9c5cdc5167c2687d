// The host's extension steps (host/interceptors.ts), handed to the chain by its
// `extensionSteps` option: each one request per step, with the args as rewritten so far.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { InterceptChain } from '../../src/intercept/chain.js';
import type { ChainStep } from '../../src/intercept/types.js';
import { extensionStep } from '../../src/host/interceptors.js';
import type { ExtensionProcess } from '../../src/process/extension-process.js';
import { tempDir } from '../helpers/fixtures.js';
import { type Frame, memoryExtension, startMemoryProcess } from '../helpers/memory-extension.js';

const logs = tempDir();
afterAll(() => logs.cleanup());

const running: ExtensionProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop()));
});

const EVENTS = new Set(['tool_call', 'turn_start', 'assistant_message', 'before_agent_start']);

async function extension(answer: (frame: Frame) => Frame) {
  const ext = memoryExtension((frame) => (frame.type === 'event_intercept' ? { type: 'event_intercept_response', id: frame.id, ...answer(frame) } : undefined));
  const proc = await startMemoryProcess(ext, logs.dir);
  running.push(proc);
  return { ext, proc, seen: () => ext.requests('event_intercept').map((f) => f.tool_args) };
}

function chainOf(steps: () => readonly ChainStep[]): InterceptChain {
  return new InterceptChain({ timeoutMs: 1000, extensionSteps: steps });
}

describe('extension steps', () => {
  it('send each extension the args as rewritten so far, with its own ids, and show in list()', async () => {
    const a = await extension(() => ({}));
    const b = await extension(() => ({ modified_args: { command: 'ls -la' } }));
    const c = await extension(() => ({}));
    const steps = [a, b, c].map(({ proc }, i) => extensionStep(`ext-${i}`, proc, EVENTS, 1000));
    const chain = chainOf(() => steps);
    expect(chain.list().map((i) => i.name)).toEqual(['ext-0', 'ext-1', 'ext-2']);
    for (const toolId of ['t1', 't2']) {
      const result = await chain.toolCall({ toolId, toolName: 'bash', args: { command: 'ls' } });
      expect(result).toMatchObject({ block: false, modified: true, args: { command: 'ls -la' } });
    }
    expect([a.seen(), b.seen(), c.seen()]).toEqual([
      [{ command: 'ls' }, { command: 'ls' }],
      [{ command: 'ls' }, { command: 'ls' }],
      [{ command: 'ls -la' }, { command: 'ls -la' }],
    ]);
    expect(c.ext.requests('event_intercept').map((f) => [f.id, f.tool_id])).toEqual([['mem:request-1', 't1'], ['mem:request-2', 't2']]);
  });
});
