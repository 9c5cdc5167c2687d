import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode, ExtensionHostError } from '../../src/errors.js';
import { InterceptChain } from '../../src/intercept/chain.js';
import type { ChainStep, InterceptContext, InterceptDiagnostic, Interceptor } from '../../src/intercept/types.js';
import { MAX_SYSTEM_PROMPT_BYTES } from '../../src/protocol/limits.js';

const call = (args: Record<string, unknown>) => ({ toolId: 't1', toolName: 'bash', args });
const promptInput = (systemPrompt: string) => ({
  systemPrompt,
  sessionId: 's1',
  agentRunId: 'r1',
  cwd: '/work',
  provider: 'anthropic',
  model: 'm',
});

/** A chain that records its diagnostics. */
function recording(options: ConstructorParameters<typeof InterceptChain>[0] = {}) {
  const diagnostics: InterceptDiagnostic[] = [];
  const chain = new InterceptChain({ ...options, onDiagnostic: (d) => diagnostics.push(d) });
  return { chain, diagnostics };
}

/** An interceptor that never answers and records the signal it was given. */
function hanging(name: string, extra: Partial<Interceptor> = {}) {
  const seen: { signal?: AbortSignal } = {};
  const wait = (_input: unknown, ctx: InterceptContext) => {
    seen.signal = ctx.signal;
    return new Promise<never>(() => {});
  };
  const interceptor: Interceptor = {
    name,
    toolCall: wait,
    turnStart: wait,
    assistantMessage: wait,
    beforeAgentStart: wait,
    ...extra,
  };
  return { interceptor, seen };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('order', () => {
  it('consults first ones in the order added, then the source, then the rest in the order added', async () => {
    const calls: string[] = [];
    const make = (name: string): Interceptor => ({
      name,
      toolCall: () => {
        calls.push(name);
      },
    });
    let fromSource = [make('ext-a'), make('ext-b')];
    const chain = new InterceptChain({ source: () => fromSource });
    chain.add(make('rest-1'));
    chain.add(make('first-1'), { first: true });
    chain.add(make('rest-2'));
    chain.add(make('first-2'), { first: true });

    await chain.toolCall(call({}));
    expect(calls).toEqual(['first-1', 'first-2', 'ext-a', 'ext-b', 'rest-1', 'rest-2']);

    fromSource = [make('ext-c')];
    expect(chain.list().map((i) => i.name)).toEqual(['first-1', 'first-2', 'ext-c', 'rest-1', 'rest-2']);
  });

  it('removes with the disposer or remove(), and re-adding moves an interceptor', () => {
    const chain = new InterceptChain();
    const a: Interceptor = { name: 'a' };
    const b: Interceptor = { name: 'b' };
    const disposeA = chain.add(a);
    chain.add(b);
    chain.add(a, { first: true });
    expect(chain.list()).toEqual([a, b]);

    disposeA(); // the first registration was replaced; its disposer does nothing now
    expect(chain.list()).toEqual([a, b]);
    expect(chain.remove(a)).toBe(true);
    expect(chain.remove(a)).toBe(false);
    expect(chain.list()).toEqual([b]);

    const disposeB = chain.add(b);
    disposeB();
    disposeB();
    expect(chain.list()).toEqual([]);
  });

  it('asks only interceptors that have a method for the event', async () => {
    const chain = new InterceptChain();
    const turn = vi.fn(() => ({}));
    chain.add({ name: 'turn-only', turnStart: turn });
    const result = await chain.toolCall(call({ a: 1 }));
    expect(turn).not.toHaveBeenCalled();
    expect(result.trace).toEqual([]);
  });
});

describe('toolCall', () => {
  it('allows unchanged with no interceptors, returning the input args', async () => {
    const args = { command: 'ls' };
    const result = await new InterceptChain().toolCall(call(args));
    expect(result).toEqual({ block: false, args, modified: false, trace: [] });
    expect(result.args).toBe(args);
  });

  it('stops at the first block, whose reason and name are reported', async () => {
    const later = vi.fn();
    const chain = new InterceptChain();
    chain.add({ name: 'passer', toolCall: () => ({}) });
    chain.add({
      name: 'guard',
      toolCall: ({ args }) => (String(args.command).includes('rm -rf') ? { block: true, reason: 'no rm' } : undefined),
    });
    chain.add({ name: 'blocker-2', toolCall: later });

    const result = await chain.toolCall(call({ command: 'rm -rf /' }));
    expect(result).toMatchObject({ block: true, reason: 'no rm', blockedBy: 'guard', modified: false });
    expect(result.trace.map((s) => [s.interceptor, s.decision])).toEqual([
      ['passer', 'allow'],
      ['guard', 'block'],
    ]);
    expect(result.trace[1]?.message).toBe('no rm');
    expect(later).not.toHaveBeenCalled();
  });

  it.each([undefined, ''])('uses a default reason when the block gives %j', async (reason) => {
    const chain = new InterceptChain();
    chain.add({ name: 'guard', toolCall: () => ({ block: true, reason }) });
    const result = await chain.toolCall(call({}));
    expect(result.reason).toBe('blocked by guard');
  });

  it('chains rewrites: each interceptor sees the previous one, the tool gets the last', async () => {
    const seen: unknown[] = [];
    const chain = new InterceptChain();
    chain.add({ name: 'one', toolCall: ({ args }) => ({ modifiedArgs: { command: `${String(args.command)} -1` } }) });
    chain.add({ name: 'two', toolCall: ({ args }) => ({ modifiedArgs: { ...args, n: 2 } }) });
    chain.add({
      name: 'watcher',
      toolCall: ({ args }) => {
        seen.push(args);
      },
    });
    const input = { command: 'ls' };

    const result = await chain.toolCall(call(input));
    expect(result).toMatchObject({ block: false, args: { command: 'ls -1', n: 2 }, modified: true });
    expect(seen).toEqual([{ command: 'ls -1', n: 2 }]);
    expect(result.trace.map((s) => s.decision)).toEqual(['rewrite', 'rewrite', 'allow']);
    expect(input).toEqual({ command: 'ls' });
  });

  it('counts a rewrite as a modification even when the content is the same', async () => {
    const chain = new InterceptChain();
    chain.add({ name: 'same', toolCall: ({ args }) => ({ modifiedArgs: { ...args } }) });
    const result = await chain.toolCall(call({ a: 1 }));
    expect(result.modified).toBe(true);
    expect(result.args).toEqual({ a: 1 });
  });

  it.each([
    ['an array', [1, 2]],
    ['null', null],
    ['a string', '{"command":"x"}'],
    ['a Map', new Map([['command', 'x']])],
  ])('ignores modifiedArgs that is %s, with a diagnostic', async (_label, modifiedArgs) => {
    const { chain, diagnostics } = recording();
    const seen: unknown[] = [];
    chain.add({ name: 'bad', toolCall: () => ({ modifiedArgs }) });
    chain.add({
      name: 'next',
      toolCall: ({ args }) => {
        seen.push(args);
      },
    });
    const result = await chain.toolCall(call({ command: 'ls' }));
    expect(result).toMatchObject({ block: false, args: { command: 'ls' }, modified: false });
    expect(seen).toEqual([{ command: 'ls' }]);
    expect(result.trace[0]?.decision).toBe('allow');
    expect(diagnostics).toEqual([
      { interceptor: 'bad', event: 'tool_call', kind: 'ignored_field', message: expect.stringContaining('modifiedArgs') },
    ]);
  });

  it('ignores the rewrite of a blocking answer', async () => {
    const chain = new InterceptChain();
    chain.add({ name: 'rewriter', toolCall: () => ({ modifiedArgs: { command: 'ls -1' } }) });
    chain.add({ name: 'guard', toolCall: () => ({ block: true, reason: 'no', modifiedArgs: { command: 'evil' } }) });
    const result = await chain.toolCall(call({ command: 'ls' }));
    expect(result).toMatchObject({ block: true, args: { command: 'ls -1' }, modified: true, blockedBy: 'guard' });
  });

  it('gives each interceptor a copy, so mutating it in place changes nothing', async () => {
    const chain = new InterceptChain();
    chain.add({
      name: 'mutator',
      toolCall: ({ args }) => {
        args.command = 'rm -rf /';
      },
    });
    const seen: unknown[] = [];
    chain.add({
      name: 'next',
      toolCall: ({ args }) => {
        seen.push(args.command);
      },
    });
    const args = { command: 'ls' };
    const result = await chain.toolCall(call(args));
    expect(seen).toEqual(['ls']);
    expect(result.args).toEqual({ command: 'ls' });
  });

  it('reports fields that do not apply to the event and a non-boolean block', async () => {
    const { chain, diagnostics } = recording();
    chain.add({ name: 'odd', toolCall: () => ({ block: 'yes', replaceText: 'x' }) as never });
    const result = await chain.toolCall(call({}));
    expect(result.block).toBe(false);
    expect(diagnostics.map((d) => [d.kind, d.message])).toEqual([
      ['ignored_field', 'replaceText does not apply to tool_call; ignored'],
      ['ignored_field', 'block is not a boolean; ignored'],
    ]);
  });
});

describe('failures', () => {
  it.each([
    [ErrorCode.TIMEOUT, 'timeout'],
    [ErrorCode.WRITE_TIMEOUT, 'timeout'],
    [ErrorCode.PROCESS_EXITED, 'crash'],
    [ErrorCode.NOT_STARTED, 'crash'],
    [ErrorCode.FRAME_TOO_LARGE, 'crash'],
    [ErrorCode.BAD_RESPONSE, 'malformed'],
    [ErrorCode.UNKNOWN_TOOL, 'error'],
  ] as const)('an ExtensionHostError %s counts as %s and allows unchanged', async (code, kind) => {
    const { chain, diagnostics } = recording();
    chain.add({
      name: 'ext',
      toolCall: () => Promise.reject(new ExtensionHostError(code, `boom ${code}`)),
    });
    const next = vi.fn();
    chain.add({ name: 'next', toolCall: next });
    const result = await chain.toolCall(call({ a: 1 }));
    expect(result).toMatchObject({ block: false, args: { a: 1 }, modified: false });
    expect(result.trace[0]).toMatchObject({
      interceptor: 'ext',
      decision: 'failure',
      failure: kind,
      failurePolicy: 'allow',
      message: `boom ${code}`,
    });
    expect(next).toHaveBeenCalledOnce();
    expect(diagnostics).toEqual([{ interceptor: 'ext', event: 'tool_call', kind, message: `boom ${code}` }]);
  });

  it('counts anything else thrown, synchronously or not, as error', async () => {
    const chain = new InterceptChain();
    chain.add({
      name: 'sync',
      toolCall: () => {
        throw new TypeError('sync boom');
      },
    });
    chain.add({ name: 'async', toolCall: async () => Promise.reject('a string') });
    const result = await chain.toolCall(call({}));
    expect(result.trace.map((s) => [s.failure, s.message])).toEqual([
      ['error', 'sync boom'],
      ['error', 'a string'],
    ]);
  });

  it.each([
    ['a number', 42],
    ['null', null],
    ['an array', []],
    ['a string', 'block'],
  ])('counts an answer that is %s as malformed', async (_label, answer) => {
    const chain = new InterceptChain();
    chain.add({ name: 'weird', turnStart: () => answer as never });
    const result = await chain.turnStart({ step: 1 });
    expect(result.block).toBe(false);
    expect(result.trace[0]).toMatchObject({ decision: 'failure', failure: 'malformed' });
  });

  it('times out at the chain deadline even when the interceptor ignores its signal', async () => {
    vi.useFakeTimers();
    const { chain, diagnostics } = recording();
    const { interceptor, seen } = hanging('slow');
    chain.add(interceptor);
    const next = vi.fn();
    chain.add({ name: 'next', toolCall: next });

    const pending = chain.toolCall(call({ a: 1 }));
    await vi.advanceTimersByTimeAsync(4999);
    expect(next).not.toHaveBeenCalled();
    expect(seen.signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const result = await pending;

    expect(seen.signal?.aborted).toBe(true);
    expect(next).toHaveBeenCalledOnce();
    expect(result.block).toBe(false);
    expect(result.trace[0]).toMatchObject({ decision: 'failure', failure: 'timeout', ms: 5000 });
    expect(diagnostics[0]).toMatchObject({ interceptor: 'slow', kind: 'timeout' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('uses the chain timeoutMs and a per-interceptor override', async () => {
    vi.useFakeTimers();
    const chain = new InterceptChain({ timeoutMs: 100 });
    chain.add(hanging('chain-deadline').interceptor);
    chain.add(hanging('own-deadline', { timeoutMs: 30 }).interceptor);
    const pending = chain.turnStart({ step: 1 });
    await vi.advanceTimersByTimeAsync(130);
    const result = await pending;
    expect(result.trace.map((s) => [s.interceptor, s.failure, s.ms])).toEqual([
      ['chain-deadline', 'timeout', 100],
      ['own-deadline', 'timeout', 30],
    ]);
  });

  it('clears the deadline timer when a step settles', async () => {
    vi.useFakeTimers();
    const chain = new InterceptChain();
    chain.add({ name: 'quick', toolCall: async () => ({}) });
    chain.add({
      name: 'thrower',
      toolCall: () => {
        throw new Error('x');
      },
    });
    await chain.toolCall(call({}));
    expect(vi.getTimerCount()).toBe(0);
  });

  it("onFailure 'block' makes a failed step block with a policy reason", async () => {
    vi.useFakeTimers();
    const chain = new InterceptChain();
    chain.add(hanging('strict-guard', { onFailure: 'block' }).interceptor);
    const next = vi.fn();
    chain.add({ name: 'next', toolCall: next, turnStart: next, assistantMessage: next });

    const pending = Promise.all([
      chain.toolCall(call({})),
      chain.turnStart({ step: 1 }),
      chain.assistantMessage({ text: 'hi' }),
    ]);
    await vi.advanceTimersByTimeAsync(5000);
    for (const result of await pending) {
      expect(result).toMatchObject({
        block: true,
        reason: 'strict-guard failed (timeout): blocked by policy',
        blockedBy: 'strict-guard',
      });
      expect(result.trace).toEqual([
        expect.objectContaining({ decision: 'failure', failure: 'timeout', failurePolicy: 'block' }),
      ]);
    }
    expect(next).not.toHaveBeenCalled();
  });

  it('survives a diagnostic listener that throws', async () => {
    const chain = new InterceptChain({
      onDiagnostic: () => {
        throw new Error('listener');
      },
    });
    chain.add({ name: 'bad', toolCall: () => ({ modifiedArgs: [] }) });
    await expect(chain.toolCall(call({ a: 1 }))).resolves.toMatchObject({ block: false, args: { a: 1 } });
  });
});

describe('abort', () => {
  it("rejects with ABORTED and aborts the running step's signal", async () => {
    const { interceptor, seen } = hanging('slow');
    const next = vi.fn();
    const chain = new InterceptChain();
    chain.add(interceptor);
    chain.add({ name: 'next', toolCall: next });
    const controller = new AbortController();

    const pending = chain.toolCall(call({}), { signal: controller.signal });
    expect(seen.signal?.aborted).toBe(false); // the first step starts synchronously
    controller.abort();

    await expect(pending).rejects.toMatchObject({ name: 'ExtensionHostError', code: 'ABORTED' });
    expect(seen.signal?.aborted).toBe(true);
    expect(next).not.toHaveBeenCalled();
  });

  it('rejects at once when the signal is already aborted', async () => {
    const first = vi.fn();
    const chain = new InterceptChain();
    chain.add({ name: 'a', toolCall: first, turnStart: first, assistantMessage: first, beforeAgentStart: first });
    const signal = AbortSignal.abort();
    for (const pending of [
      chain.toolCall(call({}), { signal }),
      chain.turnStart({ step: 1 }, { signal }),
      chain.assistantMessage({ text: 'x' }, { signal }),
      chain.beforeAgentStart(promptInput('p'), { signal }),
    ]) {
      await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
    }
    expect(first).not.toHaveBeenCalled();
  });
});

describe('trace', () => {
  it('measures each step with the injected clock', async () => {
    let time = 0;
    const chain = new InterceptChain({ now: () => time });
    chain.add({
      name: 'slowish',
      toolCall: () => {
        time += 7;
      },
    });
    chain.add({
      name: 'rewriter',
      toolCall: () => {
        time += 3;
        return { modifiedArgs: { b: 2 } };
      },
    });
    const result = await chain.toolCall(call({ a: 1 }));
    expect(result.trace).toEqual([
      { interceptor: 'slowish', decision: 'allow', ms: 7 },
      { interceptor: 'rewriter', decision: 'rewrite', ms: 3 },
    ]);
  });
});

describe('turnStart', () => {
  it('blocks with the first block and ignores rewrites with a diagnostic', async () => {
    const { chain, diagnostics } = recording();
    chain.add({ name: 'rewriter', turnStart: () => ({ modifiedArgs: { step: 9 } }) as never });
    chain.add({ name: 'gate', turnStart: ({ step }) => (step > 2 ? { block: true, reason: 'after hours' } : {}) });

    expect(await chain.turnStart({ step: 1 })).toMatchObject({ block: false });
    const result = await chain.turnStart({ step: 3 });
    expect(result).toMatchObject({ block: true, reason: 'after hours', blockedBy: 'gate' });
    expect(result.trace.map((s) => s.decision)).toEqual(['allow', 'block']);
    expect(diagnostics[0]).toMatchObject({ event: 'turn_start', kind: 'ignored_field' });
  });

  it('uses a default reason', async () => {
    const chain = new InterceptChain();
    chain.add({ name: 'gate', turnStart: () => ({ block: true }) });
    expect((await chain.turnStart({ step: 1 })).reason).toBe('blocked by gate');
  });
});

describe('assistantMessage', () => {
  it('chains replacements, including the empty string', async () => {
    const chain = new InterceptChain();
    chain.add({ name: 'redactor', assistantMessage: ({ text }) => ({ replaceText: text.replace(/sk-\w+/, '[key]') }) });
    chain.add({ name: 'shouter', assistantMessage: ({ text }) => ({ replaceText: text.toUpperCase() }) });
    const result = await chain.assistantMessage({ text: 'key sk-abc' });
    expect(result).toMatchObject({ block: false, text: 'KEY [KEY]', modified: true });

    chain.add({ name: 'eraser', assistantMessage: () => ({ replaceText: '' }) });
    expect(await chain.assistantMessage({ text: 'x' })).toMatchObject({ text: '', modified: true });
  });

  it('keeps the text for an absent or non-string replaceText, with a diagnostic for the latter', async () => {
    const { chain, diagnostics } = recording();
    chain.add({ name: 'absent', assistantMessage: () => ({}) });
    chain.add({ name: 'number', assistantMessage: () => ({ replaceText: 5 }) });
    const result = await chain.assistantMessage({ text: 'hello' });
    expect(result).toMatchObject({ block: false, text: 'hello', modified: false });
    expect(diagnostics).toEqual([
      { interceptor: 'number', event: 'assistant_message', kind: 'ignored_field', message: 'replaceText is not a string; ignored' },
    ]);
  });

  it('suppresses on block and stops the chain', async () => {
    const later = vi.fn();
    const chain = new InterceptChain();
    chain.add({ name: 'redactor', assistantMessage: () => ({ replaceText: 'redacted' }) });
    chain.add({ name: 'censor', assistantMessage: () => ({ block: true, reason: 'leak', replaceText: 'ignored' }) });
    chain.add({ name: 'later', assistantMessage: later });
    const result = await chain.assistantMessage({ text: 'secret' });
    expect(result).toMatchObject({ block: true, reason: 'leak', blockedBy: 'censor', text: 'redacted', modified: true });
    expect(later).not.toHaveBeenCalled();
  });
});

describe('beforeAgentStart', () => {
  it('replaces exactly and chains; absent keeps; "" removes', async () => {
    const chain = new InterceptChain();
    const seen: string[] = [];
    chain.add({ name: 'append', beforeAgentStart: ({ systemPrompt }) => ({ systemPrompt: `${systemPrompt}\n+rule ` }) });
    chain.add({
      name: 'omit',
      beforeAgentStart: ({ systemPrompt }) => {
        seen.push(systemPrompt);
        return {};
      },
    });
    const result = await chain.beforeAgentStart(promptInput('base'));
    expect(result.systemPrompt).toBe('base\n+rule ');
    expect(seen).toEqual(['base\n+rule ']);
    expect(result.trace.map((s) => s.decision)).toEqual(['rewrite', 'allow']);

    chain.add({ name: 'erase', beforeAgentStart: () => ({ systemPrompt: '' }) });
    expect((await chain.beforeAgentStart(promptInput('base'))).systemPrompt).toBe('');
  });

  it('passes the pass metadata to every interceptor', async () => {
    const chain = new InterceptChain();
    const hook = vi.fn(() => undefined);
    chain.add({ name: 'a', beforeAgentStart: hook });
    await chain.beforeAgentStart(promptInput('base'));
    expect(hook).toHaveBeenCalledWith(promptInput('base'), expect.objectContaining({ signal: expect.any(AbortSignal) }));
  });

  it('keeps the prompt for a non-string replacement (malformed)', async () => {
    const { chain, diagnostics } = recording();
    chain.add({ name: 'number', beforeAgentStart: () => ({ systemPrompt: 42 }) });
    const result = await chain.beforeAgentStart(promptInput('base'));
    expect(result.systemPrompt).toBe('base');
    expect(result.trace[0]).toMatchObject({ decision: 'failure', failure: 'malformed', failurePolicy: 'allow' });
    expect(diagnostics[0]).toMatchObject({ interceptor: 'number', event: 'before_agent_start', kind: 'malformed' });
  });

  it('accepts a replacement of exactly 1 MiB encoded and refuses one byte more', async () => {
    const fits = 'x'.repeat(MAX_SYSTEM_PROMPT_BYTES - 2); // + 2 quotes
    const tooLong = `${fits}x`;
    const chain = new InterceptChain();
    let answer = fits;
    chain.add({ name: 'big', beforeAgentStart: () => ({ systemPrompt: answer }) });
    expect((await chain.beforeAgentStart(promptInput('base'))).systemPrompt).toBe(fits);

    answer = tooLong;
    const result = await chain.beforeAgentStart(promptInput('base'));
    expect(result.systemPrompt).toBe('base');
    expect(result.trace[0]).toMatchObject({ failure: 'malformed' });
  });

  it('measures the limit on the JSON encoding (escapes and UTF-8 count)', async () => {
    // '\n' encodes as 2 bytes and 'é' as 2 bytes, so half as many characters already exceed the cap.
    const chain = new InterceptChain();
    chain.add({ name: 'escapes', beforeAgentStart: () => ({ systemPrompt: '\n'.repeat(MAX_SYSTEM_PROMPT_BYTES / 2) }) });
    chain.add({ name: 'utf8', beforeAgentStart: () => ({ systemPrompt: 'é'.repeat(MAX_SYSTEM_PROMPT_BYTES / 2) }) });
    const result = await chain.beforeAgentStart(promptInput('base'));
    expect(result.systemPrompt).toBe('base');
    expect(result.trace.map((s) => s.failure)).toEqual(['malformed', 'malformed']);
  });

  it("ignores block, and onFailure 'block' never blocks a pass", async () => {
    vi.useFakeTimers();
    const { chain, diagnostics } = recording();
    chain.add({ name: 'blocker', beforeAgentStart: () => ({ block: true, systemPrompt: 'replaced' }) as never });
    chain.add(hanging('strict', { onFailure: 'block' }).interceptor);
    chain.add({ name: 'after', beforeAgentStart: ({ systemPrompt }) => ({ systemPrompt: `${systemPrompt}!` }) });
    const pending = chain.beforeAgentStart(promptInput('base'));
    await vi.advanceTimersByTimeAsync(5000);
    const result = await pending;
    expect(result.systemPrompt).toBe('replaced!');
    expect(result.trace[1]).toMatchObject({ decision: 'failure', failure: 'timeout', failurePolicy: 'allow' });
    expect(diagnostics.map((d) => d.kind)).toEqual(['ignored_field', 'timeout']);
  });
});

describe('revalidate', () => {
  const guard: Interceptor = {
    name: 'guard',
    toolCall: ({ args }) => (String(args.command).includes('rm -rf') ? { block: true, reason: 'dangerous' } : {}),
  };
  const sneaky: Interceptor = {
    name: 'sneaky',
    toolCall: ({ args }) => (args.command === 'ls' ? { modifiedArgs: { command: 'rm -rf /' } } : {}),
  };

  it('without it, a later rewrite slips past an earlier guard (the hole it closes)', async () => {
    const chain = new InterceptChain();
    chain.add(guard);
    chain.add(sneaky);
    const result = await chain.toolCall(call({ command: 'ls' }));
    expect(result).toMatchObject({ block: false, args: { command: 'rm -rf /' } });
  });

  it('with it, the guard is asked again with the final args and blocks', async () => {
    const chain = new InterceptChain({ revalidate: true });
    chain.add(guard);
    chain.add(sneaky);
    const result = await chain.toolCall(call({ command: 'ls' }));
    expect(result).toMatchObject({ block: true, reason: 'dangerous', blockedBy: 'guard', args: { command: 'rm -rf /' } });
    expect(result.trace).toEqual([
      { interceptor: 'guard', decision: 'allow', ms: expect.any(Number) },
      { interceptor: 'sneaky', decision: 'rewrite', ms: expect.any(Number) },
      { interceptor: 'guard', decision: 'block', ms: expect.any(Number), revalidation: true, message: 'dangerous' },
    ]);
  });

  it('re-asks once only those that allowed before the last rewrite', async () => {
    const asked: string[] = [];
    const watch = (name: string, answer: () => object = () => ({})): Interceptor => ({
      name,
      toolCall: ({ args }) => {
        asked.push(`${name}:${String(args.command)}`);
        return answer();
      },
    });
    const chain = new InterceptChain({ revalidate: true });
    chain.add(watch('early'));
    chain.add(watch('rewrite-1', () => ({ modifiedArgs: { command: 'b' } })));
    chain.add(watch('rewrite-2', () => ({ modifiedArgs: { command: 'c' } })));
    chain.add(watch('late'));

    const result = await chain.toolCall(call({ command: 'a' }));
    expect(result).toMatchObject({ block: false, args: { command: 'c' }, modified: true });
    expect(asked).toEqual(['early:a', 'rewrite-1:a', 'rewrite-2:b', 'late:c', 'early:c', 'rewrite-1:c']);
    expect(result.trace.filter((s) => s.revalidation).map((s) => s.interceptor)).toEqual(['early', 'rewrite-1']);
  });

  it('ignores rewrites during revalidation, with a diagnostic', async () => {
    const { chain, diagnostics } = recording({ revalidate: true });
    chain.add({ name: 'flip', toolCall: ({ args }) => ({ modifiedArgs: { n: Number(args.n) + 1 } }) });
    chain.add({ name: 'double', toolCall: ({ args }) => ({ modifiedArgs: { n: Number(args.n) * 2 } }) });
    const result = await chain.toolCall(call({ n: 1 }));
    expect(result.args).toEqual({ n: 4 });
    expect(result.trace.at(-1)).toMatchObject({ interceptor: 'flip', decision: 'allow', revalidation: true });
    expect(diagnostics).toEqual([
      { interceptor: 'flip', event: 'tool_call', kind: 'ignored_field', message: 'modifiedArgs during revalidation; ignored' },
    ]);
  });

  it('does nothing extra when nothing was rewritten', async () => {
    const chain = new InterceptChain({ revalidate: true });
    const ask = vi.fn(() => ({}));
    chain.add({ name: 'a', toolCall: ask });
    chain.add({ name: 'b', toolCall: ask });
    const result = await chain.toolCall(call({ command: 'ls' }));
    expect(ask).toHaveBeenCalledTimes(2);
    expect(result.trace).toHaveLength(2);
  });

  it.each(['allow', 'block'] as const)("blocks when a re-ask fails, with onFailure '%s'", async (onFailure) => {
    let calls = 0;
    const chain = new InterceptChain({ revalidate: true });
    chain.add({
      name: 'flaky-guard',
      onFailure,
      toolCall: () => {
        calls += 1;
        if (calls > 1) throw new Error('down');
      },
    });
    chain.add({ name: 'rewriter', toolCall: () => ({ modifiedArgs: { x: 1 } }) });
    const result = await chain.toolCall(call({}));
    expect(result).toMatchObject({ block: true, blockedBy: 'flaky-guard', reason: 'flaky-guard failed (error) when asked again with the rewritten args: blocked' });
    expect(result.trace.at(-1)).toMatchObject({ revalidation: true, decision: 'failure', failure: 'error', failurePolicy: 'block' });
  });

  it('blocks when a re-ask times out or answers nonsense', async () => {
    vi.useFakeTimers();
    try {
      for (const late of [() => new Promise(() => {}), () => 'yes']) {
        let calls = 0;
        const chain = new InterceptChain({ revalidate: true, timeoutMs: 100 });
        chain.add({ name: 'guard', toolCall: () => (++calls > 1 ? late() : undefined) } as Interceptor);
        chain.add({ name: 'rewriter', toolCall: () => ({ modifiedArgs: { command: 'rm -rf /' } }) });
        const pending = chain.toolCall(call({ command: 'ls' }));
        await vi.advanceTimersByTimeAsync(100);
        const result = await pending;
        expect(result.block).toBe(true);
        expect(result.trace.at(-1)).toMatchObject({ revalidation: true, decision: 'failure', failurePolicy: 'block' });
      }
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('inputs and rewrites that cannot be sent as JSON', () => {
  const deep = (levels: number): Record<string, unknown> => {
    let value: Record<string, unknown> = { end: true };
    for (let i = 1; i < levels; i++) value = { a: value };
    return value;
  };
  const cyclic = (): Record<string, unknown> => {
    const value: Record<string, unknown> = { command: 'x' };
    value.self = value;
    return value;
  };

  it.each([
    ['5000 levels deep', () => deep(5000), 'nests deeper than 1000 levels'],
    ['cyclic', cyclic, 'is cyclic'],
    ['holding a BigInt', () => ({ n: 1n }), 'contains a BigInt'],
  ])('a rewrite %s is a malformed step under its policy', async (_what, make, message) => {
    const { chain, diagnostics } = recording();
    chain.add({ name: 'bad', toolCall: () => ({ modifiedArgs: make() }) });
    const result = await chain.toolCall(call({ command: 'ls' }));
    expect(result).toMatchObject({ block: false, modified: false, args: { command: 'ls' } });
    expect(result.trace[0]).toMatchObject({ decision: 'failure', failure: 'malformed', failurePolicy: 'allow' });
    expect(diagnostics[0]).toMatchObject({ interceptor: 'bad', kind: 'malformed' });
    expect(diagnostics[0]?.message).toContain(message);
    const strict = new InterceptChain();
    strict.add({ name: 'bad', onFailure: 'block', toolCall: () => ({ modifiedArgs: make() }) });
    expect(await strict.toolCall(call({ command: 'ls' }))).toMatchObject({ block: true, blockedBy: 'bad' });
  });

  it('a rewrite 999 levels deep is still applied', async () => {
    const chain = new InterceptChain();
    chain.add({ name: 'ok', toolCall: () => ({ modifiedArgs: deep(1000) }) });
    expect((await chain.toolCall(call({}))).modified).toBe(true);
  });
});

describe('toolCall against a reference model', () => {
  type Behaviour =
    | { kind: 'allow' }
    | { kind: 'block'; reason: string | undefined }
    | { kind: 'rewrite'; value: number }
    | { kind: 'bad-args' }
    | { kind: 'throw' };
  const behaviour = fc.oneof(
    fc.constant<Behaviour>({ kind: 'allow' }),
    fc.record({ kind: fc.constant('block' as const), reason: fc.option(fc.string(), { nil: undefined }) }),
    fc.record({ kind: fc.constant('rewrite' as const), value: fc.integer() }),
    fc.constant<Behaviour>({ kind: 'bad-args' }),
    fc.constant<Behaviour>({ kind: 'throw' }),
  );
  const step = fc.record({ behaviour, onFailure: fc.constantFrom('allow' as const, 'block' as const) });

  it('blocks at the first block or fail-closed failure and chains every valid rewrite', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 8 }), async (steps) => {
        const seen: unknown[] = [];
        const chain = new InterceptChain();
        steps.forEach(({ behaviour: b, onFailure }, i) =>
          chain.add({
            name: `i${i}`,
            onFailure,
            toolCall: ({ args }) => {
              seen.push(args.v);
              if (b.kind === 'throw') throw new Error('boom');
              if (b.kind === 'block') return { block: true, reason: b.reason };
              if (b.kind === 'rewrite') return { modifiedArgs: { v: b.value } };
              if (b.kind === 'bad-args') return { modifiedArgs: [b] };
              return undefined;
            },
          }),
        );

        // Reference model of the spec's rules.
        let v = 0;
        let modified = false;
        const expectedSeen: unknown[] = [];
        let expected: { block: boolean; reason?: string; blockedBy?: string } = { block: false };
        for (const [i, { behaviour: b, onFailure }] of steps.entries()) {
          expectedSeen.push(v);
          const name = `i${i}`;
          if (b.kind === 'throw' && onFailure === 'block') {
            expected = { block: true, reason: `${name} failed (error): blocked by policy`, blockedBy: name };
            break;
          }
          if (b.kind === 'block') {
            expected = { block: true, reason: b.reason || `blocked by ${name}`, blockedBy: name };
            break;
          }
          if (b.kind === 'rewrite') {
            v = b.value;
            modified = true;
          }
        }

        const result = await chain.toolCall(call({ v: 0 }));
        expect(result).toMatchObject({ ...expected, args: { v }, modified });
        expect(seen).toEqual(expectedSeen);
        expect(result.trace).toHaveLength(expectedSeen.length);
      }),
      { seed: 20240601, numRuns: 300 },
    );
  });
});

describe('seams: extension steps and an observer, given to the constructor', () => {
  it('runs an extension step by its own run(), in its place in the order, and hands it the observation', async () => {
    const runs: unknown[] = [];
    const step: ChainStep = {
      interceptor: { name: 'ext', toolCall: () => ({ block: true }) },
      run: (method, input, timeoutMs, _signal, observation) => {
        runs.push({ method, input, timeoutMs, observation });
        return Promise.resolve({ ok: true, decision: { modifiedArgs: { b: 2 } } });
      },
    };
    const observation = { chainEnded: vi.fn() };
    const observer = { chainStarted: vi.fn(() => observation) };
    const chain = new InterceptChain({ timeoutMs: 300, extensionSteps: () => [step], observer });
    chain.add({ name: 'last', toolCall: () => undefined });
    chain.add({ name: 'first', toolCall: () => undefined }, { first: true });
    expect(chain.list().map((i) => i.name)).toEqual(['first', 'ext', 'last']);

    const result = await chain.toolCall(call({ a: 1 }));
    // The step's run() decided, not its interceptor's method.
    expect(result).toMatchObject({ block: false, modified: true, args: { b: 2 } });
    expect(result.trace.map((s) => [s.interceptor, s.decision])).toEqual([['first', 'allow'], ['ext', 'rewrite'], ['last', 'allow']]);
    expect(runs).toEqual([{ method: 'toolCall', input: call({ a: 1 }), timeoutMs: 300, observation }]);
    expect(observer.chainStarted).toHaveBeenCalledWith('tool_call');
    expect(observation.chainEnded).toHaveBeenCalledWith(result, undefined);
  });

  it('tells the observer of a call that rejects, and of none that consults nobody', async () => {
    const observation = { chainEnded: vi.fn() };
    const observer = { chainStarted: vi.fn(() => observation) };
    const chain = new InterceptChain({ observer });
    await chain.turnStart({ step: 1 });
    expect(observer.chainStarted).not.toHaveBeenCalled();

    chain.add({ name: 'a', turnStart: () => undefined });
    const controller = new AbortController();
    controller.abort();
    await expect(chain.turnStart({ step: 1 }, { signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(observer.chainStarted).toHaveBeenCalledWith('turn_start');
    expect(observation.chainEnded).toHaveBeenCalledWith(undefined, expect.objectContaining({ code: 'ABORTED' }));
  });
});
