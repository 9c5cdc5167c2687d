// Request deadlines (one timer per request), write batching, write timeouts, unencodable requests and
// response mappers, through an ExtensionProcess over an in-memory extension under fake timers.
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ExtensionHostError } from '../../src/errors.js';
import type { ExtensionProcess } from '../../src/process/extension-process.js';
import { tempDir } from '../helpers/fixtures.js';
import { type Frame, memoryExtension, startMemoryProcess } from '../helpers/memory-extension.js';

const logs = tempDir();
afterAll(() => logs.cleanup());

let ext: ReturnType<typeof memoryExtension>;
let proc: ExtensionProcess;

beforeEach(async () => {
  vi.useFakeTimers();
  ext = memoryExtension();
  proc = await startMemoryProcess(ext, logs.dir);
});

afterEach(async () => {
  const stopped = proc.stop();
  await vi.runAllTimersAsync();
  await stopped;
  vi.useRealTimers();
});

const call = (args: Frame = {}) => ({ type: 'tool_call' as const, name: 'echo', args });

/** Lets stream callbacks and microtasks run without moving the fake clock. */
async function settleIo(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => process.nextTick(resolve));
}

async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (err) {
    return (err as ExtensionHostError).code;
  }
}

describe('request deadlines', () => {
  it('times out each request timeoutMs after it was made, also for requests of one tick', async () => {
    const a = outcome(proc.request(call({ n: 'a' }), { timeoutMs: 1000 }));
    const b = outcome(proc.request(call({ n: 'b' }), { timeoutMs: 1000 }));
    await vi.advanceTimersByTimeAsync(400);
    const c = outcome(proc.request(call({ n: 'c' }), { timeoutMs: 1000 }));
    await settleIo();
    const [idA] = ext.requests('tool_call').map((f) => f.id);
    ext.send({ type: 'tool_result', id: idA, content: [{ type: 'text', text: 'ok' }] });
    await settleIo();
    expect(await a).toBe('resolved');

    await vi.advanceTimersByTimeAsync(599);
    const pending = { b: 'pending', c: 'pending' };
    void b.then((r) => (pending.b = r));
    void c.then((r) => (pending.c = r));
    await settleIo();
    expect(pending).toEqual({ b: 'pending', c: 'pending' });
    await vi.advanceTimersByTimeAsync(1);
    expect(await b).toBe('TIMEOUT');
    expect(pending.c).toBe('pending');
    await vi.advanceTimersByTimeAsync(399);
    expect(pending.c).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(await c).toBe('TIMEOUT');
  });

  it('keeps each timeout when requests of one tick and of later ticks mix timeouts', async () => {
    const times: Record<string, number> = {};
    const start = Date.now();
    const track = (name: string, timeoutMs: number) =>
      void outcome(proc.request(call({ name }), { timeoutMs })).then((r) => {
        if (r === 'TIMEOUT') times[name] = Date.now() - start;
      });
    track('a', 1000);
    track('b', 3000);
    track('c', 1000);
    track('d', 2000);
    await vi.advanceTimersByTimeAsync(500);
    track('e', 3000);
    track('f', 1000);
    await vi.advanceTimersByTimeAsync(3000);
    expect(times).toEqual({ a: 1000, c: 1000, f: 1500, d: 2000, b: 3000, e: 3500 });
  });

  it('restarts the deadline for each later request (one call at a time)', async () => {
    for (let i = 0; i < 3; i++) {
      const answered = proc.request(call({ i }), { timeoutMs: 1000 });
      await settleIo();
      ext.send({ type: 'tool_result', id: ext.requests('tool_call').at(-1)!.id });
      await answered;
      await vi.advanceTimersByTimeAsync(700);
    }
    let state = 'pending';
    const last = outcome(proc.request(call({ last: true }), { timeoutMs: 1000 })).then((r) => (state = r));
    await vi.advanceTimersByTimeAsync(999);
    expect(state).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    await last;
    expect(state).toBe('TIMEOUT');
  });

  it('treats a deadline beyond what a timer can express (2^31-1 ms) as none, instead of firing at once', async () => {
    for (const timeoutMs of [2 ** 31, 2 ** 40, Number.POSITIVE_INFINITY]) {
      const before = vi.getTimerCount();
      const answered = outcome(proc.request(call({ timeoutMs }), { timeoutMs }));
      await settleIo();
      expect(vi.getTimerCount()).toBe(before);
      await vi.advanceTimersByTimeAsync(10_000);
      ext.send({ type: 'tool_result', id: ext.requests('tool_call').at(-1)!.id });
      await expect(answered).resolves.toBe('resolved');
    }
  });

  it('sets no timer without timeoutMs', async () => {
    const before = vi.getTimerCount();
    const answered = proc.request(call());
    await settleIo();
    expect(vi.getTimerCount()).toBe(before);
    ext.send({ type: 'tool_result', id: ext.requests('tool_call').at(-1)!.id });
    await expect(answered).resolves.toMatchObject({ type: 'tool_result' });
  });
});

describe('write batching', () => {
  it('writes what a tick queued, requests and one-way frames, in one write at its end, in order', async () => {
    const writes: string[][] = [];
    const write = ext.stdin.write.bind(ext.stdin) as (...args: unknown[]) => boolean;
    ext.stdin.write = ((chunk: unknown, ...rest: unknown[]) => {
      writes.push(String(chunk).trimEnd().split('\n').map((line) => (JSON.parse(line) as Frame).type as string));
      return write(chunk, ...rest);
    }) as typeof ext.stdin.write;
    const calls = [outcome(proc.request(call({ i: 0 })))];
    expect(writes).toEqual([]);
    await settleIo();
    expect(writes).toEqual([['tool_call']]);
    // With one in flight, the next tick's one-way frame and requests still go out together at its end.
    proc.send({ type: 'event', event: 'turn_start' });
    for (let i = 1; i < 20; i++) calls.push(outcome(proc.request(call({ i }))));
    proc.send({ type: 'event', event: 'turn_end' });
    expect(writes).toHaveLength(1);
    await settleIo();
    expect(writes).toEqual([['tool_call'], ['event', ...Array.from({ length: 19 }, () => 'tool_call'), 'event']]);
    // Every request went out once, in order.
    expect(ext.requests('tool_call').map((f) => (f.args as { i: number }).i)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    for (const request of ext.requests('tool_call')) ext.send({ type: 'tool_result', id: request.id });
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 20 }, () => 'resolved'));
  });
});

describe('write timeouts', () => {
  it('takes a request back unsent when none of it was written by its deadline; completes one already begun', async () => {
    ext.holdWrites();
    const begun = outcome(proc.request(call({ n: 'begun' }), { timeoutMs: 1000 }));
    await settleIo();
    // The first write is in progress (held): the next request waits in the host's queue.
    const queued = outcome(proc.request(call({ n: 'queued' }), { timeoutMs: 500 }));
    await vi.advanceTimersByTimeAsync(500);
    expect(await queued).toBe('TIMEOUT');
    await vi.advanceTimersByTimeAsync(500);
    expect(await begun).toBe('TIMEOUT');
    expect(ext.requests('tool_call').map((f) => (f.args as Frame).n)).toEqual(['begun']);
    expect(ext.stdin.destroyed).toBe(false);
    expect(proc.running).toBe(true);
  });

  it('with closeStdinOnWriteTimeout: true (before_agent_start), fails it with WRITE_TIMEOUT and closes the stdin', async () => {
    ext.holdWrites();
    const first = outcome(proc.request(call(), { timeoutMs: 1000, closeStdinOnWriteTimeout: true }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(await first).toBe('WRITE_TIMEOUT');
    expect(ext.stdin.destroyed).toBe(true);
  });

  it('stops an extension whose stdin makes no progress for the stuck deadline (60 s by default)', async () => {
    ext.holdWrites();
    const exited = proc.exited;
    const first = outcome(proc.request(call(), { timeoutMs: 1000 }));
    const second = outcome(proc.request(call(), {}));
    await vi.advanceTimersByTimeAsync(1000);
    expect(await first).toBe('TIMEOUT');
    await vi.advanceTimersByTimeAsync(58_990);
    expect(proc.running).toBe(true);
    await vi.advanceTimersByTimeAsync(20);
    expect(await second).toBe('WRITE_TIMEOUT');
    expect((await exited).reason).toBe('stdin_blocked');
  });
});

describe('requests', () => {
  it('rejects args that cannot be encoded with INVALID_ARGUMENT and leaves nothing pending behind', async () => {
    const cyclic: Frame = {};
    cyclic.self = cyclic;
    await expect(proc.request(call(cyclic), { timeoutMs: 1000 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('is cyclic') });
    await vi.advanceTimersByTimeAsync(2000);
    expect(ext.stdin.destroyed).toBe(false);
    const ok = proc.request(call({ fine: true }), { timeoutMs: 1000 });
    await settleIo();
    ext.send({ type: 'tool_result', id: ext.requests('tool_call').at(-1)!.id });
    await expect(ok).resolves.toMatchObject({ type: 'tool_result' });
  });

  it('puts the id last and keeps the frame as given', async () => {
    const answered = proc.request(call({ text: 'line\u2028separator' }));
    await settleIo();
    const sent = ext.requests('tool_call').at(-1)!;
    expect(Object.keys(sent)).toEqual(['type', 'name', 'args', 'id']);
    expect(sent).toMatchObject({ name: 'echo', args: { text: 'line\u2028separator' } });
    ext.send({ type: 'tool_result', id: sent.id });
    await answered;
  });

  it('resolves with the response frame, and rejects with a typed error for a failure', async () => {
    const code = (e: ExtensionHostError): string => `error:${e.code}`;
    const answered = proc.request(call(), { timeoutMs: 1000 });
    const lost = proc.request(call(), { timeoutMs: 1000 }).catch(code);
    await settleIo();
    ext.send({ type: 'tool_result', id: ext.requests('tool_call')[0]!.id, content: [] });
    expect((await answered).content).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await lost).toBe('error:TIMEOUT');
    expect(await proc.request(call(), { signal: AbortSignal.abort() }).catch(code)).toBe('error:ABORTED');
  });
});
