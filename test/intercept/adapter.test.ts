// The host's extension interceptor, run by the chain directly (one request per step) and called
// like any interceptor; both paths must decide and fail the same way.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { ExtensionHostError } from '../../src/errors.js';
import { interceptAdapter } from '../../src/host/interceptors.js';
import { InterceptChain } from '../../src/intercept/chain.js';
import type { Interceptor } from '../../src/intercept/types.js';
import type { ExtensionProcess } from '../../src/process/extension-process.js';
import { tempDir } from '../helpers/fixtures.js';
import { type Frame, memoryExtension, startMemoryProcess } from '../helpers/memory-extension.js';

const logs = tempDir();
afterAll(() => logs.cleanup());

const running: ExtensionProcess[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(running.splice(0).map((p) => p.stop()));
});

/** An extension answering every event_intercept with `answer(frame)`; undefined = no answer. */
async function extension(answer: (frame: Frame) => Frame | undefined) {
  const ext = memoryExtension((frame) => {
    if (frame.type !== 'event_intercept') return undefined;
    const reply = answer(frame);
    return reply === undefined ? undefined : { type: 'event_intercept_response', id: frame.id, ...reply };
  });
  const proc = await startMemoryProcess(ext, logs.dir);
  running.push(proc);
  return { ext, proc };
}

const CALL = { toolId: 't1', toolName: 'bash', args: { command: 'ls' } };
const EVENTS = new Set(['tool_call', 'turn_start', 'assistant_message', 'before_agent_start']);

describe('extension interceptor', () => {
  it('decides through the chain as its methods do when called directly', async () => {
    const { proc, ext } = await extension((f) =>
      f.event === 'tool_call' ? { block: true, reason: `no ${JSON.stringify(f.tool_args)}` } : f.event === 'assistant_message' ? { replace_text: 'shh' } : {},
    );
    const adapter = interceptAdapter('mem', proc, EVENTS, 1000);
    const chain = new InterceptChain();
    chain.add(adapter);

    const result = await chain.toolCall(CALL);
    expect(result).toMatchObject({ block: true, reason: 'no {"command":"ls"}', blockedBy: 'mem', trace: [{ interceptor: 'mem', decision: 'block' }] });
    await expect(adapter.toolCall!(CALL, { signal: new AbortController().signal })).resolves.toEqual({ block: true, reason: 'no {"command":"ls"}', modifiedArgs: undefined });
    expect(await chain.assistantMessage({ text: 'hi' })).toMatchObject({ block: false, text: 'shh', modified: true });
    expect(ext.requests('event_intercept').map((f) => f.event)).toEqual(['tool_call', 'tool_call', 'assistant_message']);
  });

  it('uses a replaced method instead of its own request', async () => {
    const { proc, ext } = await extension(() => ({ block: true }));
    const adapter = interceptAdapter('mem', proc, EVENTS, 1000) as Interceptor;
    adapter.toolCall = () => ({ modifiedArgs: { command: 'pwd' } });
    const chain = new InterceptChain();
    chain.add(adapter);
    expect(await chain.toolCall(CALL)).toMatchObject({ block: false, modified: true, args: { command: 'pwd' } });
    expect(ext.requests('event_intercept')).toEqual([]);
  });

  it("times out at the step's deadline with the chain's message, and keeps the stdin open", async () => {
    const { proc, ext } = await extension(() => undefined);
    vi.useFakeTimers();
    const chain = new InterceptChain({ timeoutMs: 500 });
    chain.add(interceptAdapter('mem', proc, EVENTS, 500));
    const pending = chain.toolCall(CALL);
    await vi.advanceTimersByTimeAsync(500);
    expect((await pending).trace).toEqual([
      { interceptor: 'mem', decision: 'failure', ms: expect.any(Number), failure: 'timeout', failurePolicy: 'allow', message: 'mem did not answer within 500 ms' },
    ]);
    expect(ext.stdin.destroyed).toBe(false);
  });

  it('applies the failure policy to a crash', async () => {
    const { proc } = await extension(() => undefined);
    const adapter = interceptAdapter('mem', proc, EVENTS, 1000);
    adapter.onFailure = 'block';
    const chain = new InterceptChain();
    chain.add(adapter);
    const pending = chain.toolCall(CALL);
    await proc.stop();
    expect(await pending).toMatchObject({ block: true, blockedBy: 'mem', trace: [{ decision: 'failure', failure: 'crash', failurePolicy: 'block' }] });
  });

  it("rejects with ABORTED when the caller aborts, and before asking when it already has", async () => {
    const { proc, ext } = await extension(() => undefined);
    const chain = new InterceptChain();
    chain.add(interceptAdapter('mem', proc, EVENTS, 1000));
    const controller = new AbortController();
    const pending = chain.toolCall(CALL, { signal: controller.signal });
    controller.abort(new Error('user'));
    const error = await pending.catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ExtensionHostError);
    expect(error).toMatchObject({ code: 'ABORTED' });
    await expect(chain.turnStart({ step: 1 }, { signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(ext.requests('event_intercept')).toHaveLength(1);
  });
});

describe('extension interceptors sharing one encoding per chain call', () => {
  const seenBy = (ext: ReturnType<typeof memoryExtension>) => ext.requests('event_intercept').map((f) => f.tool_args);

  it('send every extension the args as rewritten so far, each request with its own id', async () => {
    const a = await extension(() => ({}));
    const b = await extension(() => ({ modified_args: { command: 'ls -la' } }));
    const c = await extension(() => ({}));
    const chain = new InterceptChain({ source: () => [a, b, c].map(({ proc }, i) => interceptAdapter(`ext-${i}`, proc, EVENTS, 1000)) });
    const result = await chain.toolCall(CALL);
    expect(result).toMatchObject({ block: false, modified: true, args: { command: 'ls -la' } });
    expect([seenBy(a.ext), seenBy(b.ext), seenBy(c.ext)]).toEqual([[{ command: 'ls' }], [{ command: 'ls' }], [{ command: 'ls -la' }]]);
    await chain.toolCall(CALL);
    for (const { ext } of [a, b, c]) expect(ext.requests('event_intercept').map((f) => f.id)).toEqual(['mem:request-1', 'mem:request-2']);
  });

  it('encode anew after another interceptor had the args (one that cannot be cloned gets them as they are)', async () => {
    const a = await extension(() => ({}));
    const b = await extension(() => ({}));
    const chain = new InterceptChain();
    chain.add(interceptAdapter('a', a.proc, EVENTS, 1000));
    chain.add({
      name: 'in-place',
      toolCall: ({ args }) => {
        args.command = 'rm -rf /';
      },
    });
    chain.add(interceptAdapter('b', b.proc, EVENTS, 1000));
    // A function makes structuredClone fail: the in-place interceptor gets the caller's object.
    const result = await chain.toolCall({ toolId: 't2', toolName: 'bash', args: { command: 'ls', onDone: () => undefined } });
    expect(result.args.command).toBe('rm -rf /');
    expect(seenBy(a.ext)).toEqual([{ command: 'ls' }]);
    expect(seenBy(b.ext)).toEqual([{ command: 'rm -rf /' }]);
  });
});
