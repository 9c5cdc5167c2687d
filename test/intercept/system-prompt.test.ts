import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExtensionHostError } from '../../src/errors.js';
import { InterceptChain } from '../../src/intercept/chain.js';
import { SystemPromptPreparer, type SystemPromptPreparerOptions } from '../../src/intercept/system-prompt.js';
import type { BeforeAgentStartDecision, BeforeAgentStartInput, InterceptContext } from '../../src/intercept/types.js';
import { MAX_SYSTEM_PROMPT_BYTES } from '../../src/protocol/limits.js';
import { gate } from '../helpers/wait.js';

/** A preparer with sequential run ids (run-1, run-2, ...) and recorded warnings. */
function setup(options: Partial<SystemPromptPreparerOptions> = {}) {
  const chain = new InterceptChain();
  const warnings: { message: string; interceptor: string | undefined }[] = [];
  let runs = 0;
  let model = 'model-a';
  const preparer = new SystemPromptPreparer({
    chain,
    context: () => ({ cwd: '/repo', provider: 'anthropic', model }),
    newRunId: () => `run-${++runs}`,
    runtimeSessionId: 'runtime-session',
    onWarning: (message, interceptor) => warnings.push({ message, interceptor }),
    ...options,
  });
  return { chain, preparer, warnings, setModel: (m: string) => (model = m) };
}

/** An interceptor that records what it saw and appends `suffix`. */
function appender(name: string, suffix: string) {
  const seen: BeforeAgentStartInput[] = [];
  return {
    seen,
    interceptor: {
      name,
      beforeAgentStart: (input: BeforeAgentStartInput) => {
        seen.push(input);
        return { systemPrompt: `${input.systemPrompt}${suffix}` };
      },
    },
  };
}

/** An interceptor that waits for `release()` on its first call only; later calls append `suffix`. */
function holdFirst(name: string, suffix: string) {
  const held = gate<BeforeAgentStartDecision>();
  const signals: AbortSignal[] = [];
  const seen: BeforeAgentStartInput[] = [];
  return {
    signals,
    seen,
    release: held.open,
    interceptor: {
      name,
      beforeAgentStart: (input: BeforeAgentStartInput, ctx: InterceptContext) => {
        seen.push(input);
        signals.push(ctx.signal);
        return signals.length === 1 ? held.promise : { systemPrompt: `${input.systemPrompt}${suffix}` };
      },
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a pass', () => {
  it('runs the chain in order with one agent_run_id and the current context', async () => {
    const { chain, preparer } = setup();
    const one = appender('one', ' +1');
    const two = appender('two', ' +2');
    chain.add(one.interceptor);
    chain.add(two.interceptor);

    const result = await preparer.prepare({ systemPrompt: 'base', sessionId: 'conv-9' });
    expect(result).toMatchObject({ systemPrompt: 'base +1 +2', agentRunId: 'run-1', cached: false });
    expect(result.trace.map((s) => s.interceptor)).toEqual(['one', 'two']);
    const meta = { sessionId: 'conv-9', agentRunId: 'run-1', cwd: '/repo', provider: 'anthropic', model: 'model-a' };
    expect(one.seen).toEqual([{ ...meta, systemPrompt: 'base' }]);
    expect(two.seen).toEqual([{ ...meta, systemPrompt: 'base +1' }]);
  });

  it('uses the runtime session id when none is given', async () => {
    const { chain, preparer } = setup();
    const one = appender('one', '');
    chain.add(one.interceptor);
    await preparer.prepare({ systemPrompt: 'base' });
    expect(one.seen[0]?.sessionId).toBe('runtime-session');
  });

  it('defaults to random run and session ids', async () => {
    const chain = new InterceptChain();
    const one = appender('one', '');
    chain.add(one.interceptor);
    const preparer = new SystemPromptPreparer({ chain, context: () => ({ cwd: '/', provider: 'p', model: 'm' }) });
    const first = await preparer.prepare({ systemPrompt: 'a' });
    const second = await preparer.prepare({ systemPrompt: 'b' });
    expect(first.agentRunId).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.agentRunId).not.toBe(first.agentRunId);
    expect(one.seen[0]?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(one.seen[1]?.sessionId).toBe(one.seen[0]?.sessionId);
  });
});

describe('caching', () => {
  it('reuses the committed result without asking anyone', async () => {
    const { chain, preparer } = setup();
    const one = appender('one', ' +1');
    chain.add(one.interceptor);
    const first = await preparer.prepare({ systemPrompt: 'base', sessionId: 's' });
    const second = await preparer.prepare({ systemPrompt: 'base', sessionId: 's' });
    expect(second).toEqual({ ...first, cached: true });
    expect(one.seen).toHaveLength(1);
  });

  it('runs again for a different base prompt or session', async () => {
    const { chain, preparer } = setup();
    const one = appender('one', ' +1');
    chain.add(one.interceptor);
    await preparer.prepare({ systemPrompt: 'base', sessionId: 's' });
    const otherBase = await preparer.prepare({ systemPrompt: 'other', sessionId: 's' });
    const otherSession = await preparer.prepare({ systemPrompt: 'other', sessionId: 't' });
    expect(otherBase).toMatchObject({ systemPrompt: 'other +1', agentRunId: 'run-2', cached: false });
    expect(otherSession).toMatchObject({ systemPrompt: 'other +1', agentRunId: 'run-3', cached: false });
  });

  it('after invalidate(), runs again from the unmodified base with a new run id and the new context', async () => {
    const { chain, preparer, setModel } = setup();
    const one = appender('one', ' +1');
    chain.add(one.interceptor);
    await preparer.prepare({ systemPrompt: 'base' });
    setModel('model-b');
    preparer.invalidate();
    const again = await preparer.prepare({ systemPrompt: 'base' });
    expect(again).toMatchObject({ systemPrompt: 'base +1', agentRunId: 'run-2', cached: false });
    expect(one.seen[1]).toMatchObject({ systemPrompt: 'base', model: 'model-b' });
  });

  it('shares one pass between concurrent calls with the same inputs', async () => {
    const { chain, preparer } = setup();
    const held = holdFirst('slow', '');
    chain.add(held.interceptor);
    const a = preparer.prepare({ systemPrompt: 'base' });
    const b = preparer.prepare({ systemPrompt: 'base' });
    held.release({ systemPrompt: 'done' });
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra).toEqual(rb);
    expect(ra).toMatchObject({ systemPrompt: 'done', agentRunId: 'run-1', cached: false });
    expect(held.seen).toHaveLength(1);
  });
});

describe('invalidation during a pass', () => {
  it('discards the waiting pass and runs again with a new run id, even for identical text', async () => {
    const { chain, preparer } = setup();
    const held = holdFirst('slow', ' +slow');
    chain.add(held.interceptor);

    const pending = preparer.prepare({ systemPrompt: 'base' });
    expect(held.seen).toHaveLength(1);
    preparer.invalidate();
    const result = await pending;

    expect(held.signals[0]?.aborted).toBe(true);
    expect(held.seen.map((s) => [s.agentRunId, s.systemPrompt])).toEqual([
      ['run-1', 'base'],
      ['run-2', 'base'],
    ]);
    expect(result).toMatchObject({ systemPrompt: 'base +slow', agentRunId: 'run-2', cached: false });
    // The late answer of the discarded pass changes nothing.
    held.release({ systemPrompt: 'stale' });
    expect(await preparer.prepare({ systemPrompt: 'base' })).toMatchObject({ systemPrompt: 'base +slow', cached: true });
  });

  it('runs again against the current base when a newer prepare() gave one', async () => {
    const { chain, preparer } = setup();
    const held = holdFirst('slow', ' +slow');
    chain.add(held.interceptor);

    const old = preparer.prepare({ systemPrompt: 'old base' });
    preparer.invalidate();
    const fresh = preparer.prepare({ systemPrompt: 'new base' });
    const [a, b] = await Promise.all([old, fresh]);

    expect(a).toEqual(b);
    expect(a).toMatchObject({ systemPrompt: 'new base +slow', agentRunId: 'run-2' });
    expect(held.seen.map((s) => s.systemPrompt)).toEqual(['old base', 'new base']);
  });
});

describe('abort', () => {
  it('rejects with ABORTED and commits nothing', async () => {
    const { chain, preparer } = setup();
    const held = holdFirst('slow', ' +2');
    chain.add(held.interceptor);
    const controller = new AbortController();

    const pending = preparer.prepare({ systemPrompt: 'base', signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toSatisfy((e) => e instanceof ExtensionHostError && e.code === 'ABORTED');
    expect(held.signals[0]?.aborted).toBe(true);

    held.release({ systemPrompt: 'late' });
    const next = await preparer.prepare({ systemPrompt: 'base' });
    expect(next).toMatchObject({ systemPrompt: 'base +2', agentRunId: 'run-2', cached: false });
  });

  it('rejects at once with an already aborted signal', async () => {
    const { chain, preparer } = setup();
    const one = appender('one', '');
    chain.add(one.interceptor);
    await expect(preparer.prepare({ systemPrompt: 'base', signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    expect(one.seen).toEqual([]);
  });

  it('keeps a shared pass running for the callers that did not abort', async () => {
    const { chain, preparer } = setup();
    const held = holdFirst('slow', '');
    chain.add(held.interceptor);
    const controller = new AbortController();

    const quitter = preparer.prepare({ systemPrompt: 'base', signal: controller.signal });
    const stayer = preparer.prepare({ systemPrompt: 'base' });
    controller.abort();
    await expect(quitter).rejects.toMatchObject({ code: 'ABORTED' });
    expect(held.signals[0]?.aborted).toBe(false);

    held.release({ systemPrompt: 'done' });
    expect(await stayer).toMatchObject({ systemPrompt: 'done', agentRunId: 'run-1' });
  });
});

describe('warnings', () => {
  it('warns for every failed step, naming the interceptor, and keeps the prompt', async () => {
    vi.useFakeTimers();
    const { chain, preparer, warnings } = setup();
    chain.add({ name: 'number', beforeAgentStart: () => ({ systemPrompt: 7 }) });
    chain.add({ name: 'huge', beforeAgentStart: () => ({ systemPrompt: 'x'.repeat(MAX_SYSTEM_PROMPT_BYTES) }) });
    chain.add({
      name: 'thrower',
      beforeAgentStart: () => {
        throw new Error('kaput');
      },
    });
    chain.add({ name: 'sleeper', beforeAgentStart: () => new Promise<never>(() => {}) });
    chain.add({ name: 'omitter', beforeAgentStart: () => ({}) });
    chain.add({ name: 'appender', beforeAgentStart: ({ systemPrompt }) => ({ systemPrompt: `${systemPrompt}!` }) });

    const pending = preparer.prepare({ systemPrompt: 'base' });
    await vi.advanceTimersByTimeAsync(5000);
    const result = await pending;

    expect(result.systemPrompt).toBe('base!');
    expect(warnings.map((w) => w.interceptor)).toEqual(['number', 'huge', 'thrower', 'sleeper']);
    expect(warnings[0]?.message).toMatch(/^number: system prompt kept \(malformed\)/);
    expect(warnings[2]?.message).toBe('thrower: system prompt kept (error): kaput');
    expect(warnings[3]?.message).toMatch(/\(timeout\)/);
  });
});
