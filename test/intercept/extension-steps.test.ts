// The host's extension steps (intercept/extension-step.ts): run by their own runner, sharing one
// tool_call encoding per chain call and args version, never a stale one.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { InterceptChain, useExtensionSteps } from '../../src/intercept/chain.js';
import type { ExtensionStep } from '../../src/intercept/extension-step.js';
import { extensionStep } from '../../src/host/intercept-adapter.js';
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

function chainOf(steps: () => readonly ExtensionStep[]): InterceptChain {
  const chain = new InterceptChain({ timeoutMs: 1000 });
  useExtensionSteps(chain, steps);
  return chain;
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
    expect(c.ext.requests('event_intercept').map((f) => [f.id, f.tool_id])).toEqual([['mem:1', 't1'], ['mem:2', 't2']]);
  });

  it('encode anew after a step that ran as a plain interceptor changed the args in place', async () => {
    const [a, x, b] = [await extension(() => ({})), await extension(() => ({})), await extension(() => ({}))];
    const steps = [extensionStep('a', a.proc, EVENTS, 1000), extensionStep('x', x.proc, EVENTS, 1000), extensionStep('b', b.proc, EVENTS, 1000)];
    // A replaced method runs as a plain interceptor's; a function in the args makes structuredClone
    // fail, so it gets the caller's object and changes it under the shared encoding.
    steps[1]!.interceptor.toolCall = ({ args }) => void (args.command = 'pwd');
    const chain = chainOf(() => steps);
    const result = await chain.toolCall({ toolId: 't', toolName: 'bash', args: { command: 'ls', onDone: () => undefined } });
    expect(result.args.command).toBe('pwd');
    expect([a.seen(), x.seen(), b.seen()]).toEqual([[{ command: 'ls' }], [], [{ command: 'pwd' }]]);
  });

  it('run a method replaced on their interceptor instead of their own request', async () => {
    const a = await extension(() => ({ block: true }));
    const step = extensionStep('a', a.proc, EVENTS, 1000);
    step.interceptor.toolCall = () => ({ modifiedArgs: { command: 'pwd' } });
    const chain = chainOf(() => [step]);
    expect(await chain.toolCall({ toolId: 't', toolName: 'bash', args: { command: 'ls' } })).toMatchObject({ block: false, modified: true, args: { command: 'pwd' } });
    expect(a.seen()).toEqual([]);
    // Its other methods still run by the runner.
    expect(await chain.turnStart({ step: 1 })).toMatchObject({ block: true, blockedBy: 'a' });
  });
});
