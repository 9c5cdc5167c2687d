// The Connection alone, over a MemoryTransport, under fake timers: correlation, deadlines,
// taking back unsent requests, settling everything at close, the outbound bound, the stuck watch.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode, ExtensionHostError } from '../../src/errors.js';
import { call, connectionHarness, type Harness, outcome, settleIo } from './harness.js';

let h: Harness | undefined;

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(async () => {
  const closed = h?.dispose();
  await vi.runAllTimersAsync();
  await closed;
  h = undefined;
  vi.useRealTimers();
});

describe('correlation', () => {
  it('answers each request with the response carrying its id, in any order', async () => {
    h = await connectionHarness();
    const a = outcome(h.connection.request(call('a')));
    const b = outcome(h.connection.request(call('b')));
    await settleIo();
    const [ra, rb] = h.ext.requests('tool_call');
    expect([ra?.id, rb?.id]).toEqual(['mem:request-1', 'mem:request-2']);
    h.answer(rb!, { type: 'tool_result', content: [{ type: 'text', text: 'B' }] });
    h.answer(ra!, { type: 'tool_result', content: [{ type: 'text', text: 'A' }] });
    expect([await a, await b]).toEqual(['ok A', 'ok B']);
    expect(h.connection.has('mem:request-1')).toBe(false);
  });

  it('reports an answer for no request, and fails a request answered with the wrong type', async () => {
    h = await connectionHarness();
    const a = outcome(h.connection.request(call()));
    await settleIo();
    h.ext.send({ type: 'tool_result', id: 'mem:99', content: [] });
    h.answer(h.ext.requests('tool_call')[0]!, { type: 'command_response', text: 'x' });
    expect(await a).toBe(ErrorCode.BAD_RESPONSE);
    expect(h.diagnostics).toEqual([{ code: 'UNKNOWN_ID', message: 'tool_result for unknown or already settled id "mem:99" dropped' }]);
  });

  it('matches an answer only by the exact id it was sent with', async () => {
    h = await connectionHarness();
    const a = outcome(h.connection.request(call()));
    await settleIo();
    const near = ['mem:request-01', 'mem:request-1 ', 'mem:request-+1', 'mem:request-1.0', 'mem:request-', 'mem:1', 'Mem:request-1', 'other:request-1', 'mem:request-1000000000000000001'];
    for (const id of near) h.ext.send({ type: 'tool_result', id, content: [] });
    await settleIo();
    expect(h.connection.has('mem:request-1')).toBe(true);
    expect(near.some((id) => h!.connection.has(id))).toBe(false);
    expect(h.diagnostics.map((d) => d.message)).toEqual(near.map((id) => `tool_result for unknown or already settled id ${JSON.stringify(id)} dropped`));
    h.answer(h.ext.requests('tool_call')[0]!);
    expect(await a).toBe('ok ok');
  });

  it('resolves with the answer frame, rejects with a typed error at the deadline', async () => {
    h = await connectionHarness();
    const answered = h.connection.request(call());
    const timedOut = h.connection.request(call(), { timeoutMs: 100 }).catch((e: ExtensionHostError) => `failed ${e.code}`);
    await settleIo();
    h.answer(h.ext.requests('tool_call')[0]!);
    await vi.advanceTimersByTimeAsync(100);
    expect([((await answered) as { type: string }).type, await timedOut]).toEqual(['tool_result', 'failed TIMEOUT']);
  });
});

describe('deadlines', () => {
  it('one timer per request, cleared when it settles; a deadline fires at its timeout, not before', async () => {
    h = await connectionHarness();
    const before = vi.getTimerCount();
    const first = [1, 2, 3].map(() => outcome(h!.connection.request(call(), { timeoutMs: 1000 })));
    expect(vi.getTimerCount() - before).toBe(3);
    await settleIo();
    for (const request of h.ext.requests('tool_call')) h.answer(request);
    expect(await Promise.all(first)).toEqual(['ok ok', 'ok ok', 'ok ok']);
    expect(vi.getTimerCount() - before).toBe(0);
    const next = outcome(h.connection.request(call(), { timeoutMs: 1000 }));
    expect(vi.getTimerCount() - before).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    await settleIo();
    let settled = false;
    void next.then(() => (settled = true));
    await settleIo();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await next).toBe(ErrorCode.TIMEOUT);
  });

  it('keeps each timeout when one tick mixes timeouts', async () => {
    h = await connectionHarness();
    const start = Date.now();
    const at = (p: Promise<string>) => p.then((r) => `${r} at ${Date.now() - start}`);
    const results = Promise.all([at(outcome(h.connection.request(call(), { timeoutMs: 300 }))), at(outcome(h.connection.request(call(), { timeoutMs: 100 })))]);
    await vi.advanceTimersByTimeAsync(300);
    expect(await results).toEqual(['TIMEOUT at 300', 'TIMEOUT at 100']);
  });

  it('takes back a request none of which was written, so the extension never sees it', async () => {
    h = await connectionHarness();
    h.ext.holdWrites(); // the extension stops reading
    const inProgress = outcome(h.connection.request(call('first', { blob: 'x'.repeat(100) }), { timeoutMs: 10_000 }));
    await settleIo();
    const queued = h.connection.request(call('queued'), { timeoutMs: 100 });
    const failure = queued.catch((e: ExtensionHostError) => e);
    await settleIo();
    expect(h.stats.framesOut).toBe(2);
    await vi.advanceTimersByTimeAsync(100);
    const error = await failure;
    expect(error).toMatchObject({ code: ErrorCode.TIMEOUT, extension: 'mem', logPath: '/logs/ext-mem.log' });
    expect((error as Error).message).toMatch(/dropped unsent/);
    expect(h.stats.framesOut).toBe(1);
    expect(h.connection.queuedChars).toBe(0);
    expect(h.ext.requests('tool_call').map((f) => f.name)).toEqual(['first']);
    void inProgress;
  });

  it('a request under the write rule closes the input and ends the connection when it could not be written', async () => {
    h = await connectionHarness();
    h.ext.holdWrites();
    void outcome(h.connection.request(call('first'), { timeoutMs: 10_000 }));
    await settleIo();
    const blocked = outcome(h.connection.request(call('hook'), { timeoutMs: 100, closeStdinOnWriteTimeout: true }));
    await vi.advanceTimersByTimeAsync(100);
    expect(await blocked).toBe(ErrorCode.WRITE_TIMEOUT);
    expect(h.disconnects.map((d) => [d.error.code, d.reason])).toEqual([[ErrorCode.WRITE_TIMEOUT, 'stdin_blocked']]);
    expect(h.transport.writable).toBe(false);
  });
});

describe('close', () => {
  it('settles every pending request with the error, and leaves no timer behind', async () => {
    h = await connectionHarness({ stuckMs: 5000 });
    const before = vi.getTimerCount();
    h.ext.holdWrites();
    const results = Promise.all([outcome(h.connection.request(call(), { timeoutMs: 1000 })), outcome(h.connection.request(call(), { timeoutMs: 2000 })), outcome(h.connection.request(call()))]);
    await settleIo();
    expect(vi.getTimerCount()).toBeGreaterThan(before);
    h.connection.close(new ExtensionHostError(ErrorCode.PROCESS_EXITED, 'mem exited'));
    expect(await results).toEqual([ErrorCode.PROCESS_EXITED, ErrorCode.PROCESS_EXITED, ErrorCode.PROCESS_EXITED]);
    expect(vi.getTimerCount()).toBe(before);
    expect(h.connection.queuedChars).toBe(0);
  });
});

describe('the outbound bound', () => {
  it('drops one-way frames over it (one diagnostic each), never requests, and takes any frame when nothing waits', async () => {
    h = await connectionHarness({ maxOutboundBytes: 1000 });
    h.ext.holdWrites();
    const event = `${JSON.stringify({ type: 'event', event: 'x', payload: 'y'.repeat(200) })}\n`;
    expect(h.connection.sendLine(`${JSON.stringify({ type: 'event', event: 'big', payload: 'z'.repeat(5000) })}\n`, 'event')).toBe(true); // written, in progress
    await settleIo();
    let sent = 0;
    for (let i = 0; i < 100; i++) if (h.connection.sendLine(event, 'event')) sent++;
    expect(sent).toBe(Math.floor(1000 / event.length));
    expect(h.connection.queuedChars).toBeLessThanOrEqual(1000);
    expect(h.diagnostics).toHaveLength(100 - sent);
    expect(h.diagnostics[0]).toMatchObject({ code: 'OUTBOUND_DROPPED' });
    // A request is never dropped by the bound: it waits (until its deadline).
    const request = outcome(h.connection.request(call(), { timeoutMs: 100 }));
    expect(h.connection.queuedChars).toBeGreaterThan(1000);
    await vi.advanceTimersByTimeAsync(100);
    expect(await request).toBe(ErrorCode.TIMEOUT);
  });
});

describe('the stuck watch', () => {
  it('ends the connection once a write makes no progress for stuckMs, not before', async () => {
    h = await connectionHarness({ stuckMs: 1000 });
    h.ext.holdWrites();
    const pending = outcome(h.connection.request(call()));
    await settleIo();
    await vi.advanceTimersByTimeAsync(999);
    expect(h.disconnects).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.diagnostics.map((d) => d.code)).toEqual(['STDIN_STUCK']);
    expect(h.disconnects.map((d) => [d.error.code, d.reason])).toEqual([[ErrorCode.WRITE_TIMEOUT, 'stdin_blocked']]);
    expect(h.transport.writable).toBe(false);
    // The owner settles what is pending when it ends the connection.
    h.connection.rejectAll(h.disconnects[0]!.error);
    expect(await pending).toBe(ErrorCode.WRITE_TIMEOUT);
  });

  it('an extension that reads, however slowly, is never stuck', async () => {
    h = await connectionHarness({ stuckMs: 1000 });
    for (let i = 0; i < 5; i++) {
      h.connection.sendLine(`${JSON.stringify({ type: 'event', event: 'tick', payload: i })}\n`, 'event');
      await settleIo();
      await vi.advanceTimersByTimeAsync(900);
    }
    expect(h.diagnostics).toEqual([]);
    expect(h.disconnects).toEqual([]);
    expect(h.ext.received.filter((f) => f.event === 'tick')).toHaveLength(5);
  });
});

describe('write batching after answers', () => {
  /** 20 requests in flight answered in one chunk, each answer followed by a new request (a pipelining caller): the lines of each write. */
  async function burst(alsoInFlight = 0): Promise<number[]> {
    h = await connectionHarness();
    const { connection, ext } = h;
    // Requests sent before and left unanswered: the extension has work while the burst is made.
    const busy = Array.from({ length: alsoInFlight }, (_, i) => connection.request(call('echo', { n: `busy${i}` })));
    await settleIo();
    const busyIds = new Set(ext.requests('tool_call').map((r) => r.id));
    const writes: number[] = [];
    const write = ext.stdin.write.bind(ext.stdin) as (...args: unknown[]) => boolean;
    ext.stdin.write = ((chunk: unknown, ...rest: unknown[]) => {
      writes.push(String(chunk).split('\n').length - 1);
      return write(chunk, ...rest);
    }) as typeof ext.stdin.write;
    const follow: Promise<unknown>[] = [];
    const first = Array.from({ length: 20 }, (_, i) => connection.request(call('echo', { n: `a${i}` })).then(() => follow.push(connection.request(call('echo', { n: `b${i}` })))));
    await settleIo();
    writes.length = 0;
    // All 20 answers in one chunk, as an extension writes what one read produced.
    const answers = ext
      .requests('tool_call')
      .filter((r) => !busyIds.has(r.id))
      .map((r) => `{"type":"tool_result","id":"${String(r.id)}","content":[]}\n`)
      .join('');
    (ext.child.stdout as unknown as { write(s: string): void }).write(answers);
    await Promise.all(first);
    await settleIo();
    const later = ext.requests('tool_call').slice(alsoInFlight + 20);
    expect(later.map((f) => (f.args as { n: string }).n)).toEqual(Array.from({ length: 20 }, (_, i) => `b${i}`));
    for (const request of [...later, ...ext.requests('tool_call').slice(0, alsoInFlight)]) h.answer(request);
    await Promise.all([...follow, ...busy]);
    return writes.filter((lines) => lines > 0);
  }

  it('requests that follow answers in the same tick go out together at its end, in one write, in order', async () => {
    expect(await burst()).toEqual([20]);
  });

  it('also while the extension is still busy with other requests', async () => {
    expect(await burst(1)).toEqual([20]);
  });
});

describe('the end of a tick across connections', () => {
  it('writes the lines each connection queued in the tick, one write per connection, in the order queued', async () => {
    const others = await Promise.all([connectionHarness(), connectionHarness()]);
    h = await connectionHarness();
    const all = [h, ...others];
    try {
      const writes = all.map(() => [] as string[][]);
      all.forEach(({ ext }, i) => {
        const write = ext.stdin.write.bind(ext.stdin) as (...args: unknown[]) => boolean;
        ext.stdin.write = ((chunk: unknown, ...rest: unknown[]) => {
          writes[i]!.push(String(chunk).trimEnd().split('\n').map((line) => String((JSON.parse(line) as { event: string }).event)));
          return write(chunk, ...rest);
        }) as typeof ext.stdin.write;
      });
      for (const step of ['a', 'b', 'c']) all.forEach(({ connection }, i) => connection.sendLine(`{"type":"event","event":"${step}${i}"}\n`, 'event'));
      expect(writes).toEqual([[], [], []]);
      await Promise.resolve();
      expect(writes).toEqual([[['a0', 'b0', 'c0']], [['a1', 'b1', 'c1']], [['a2', 'b2', 'c2']]]);
      // A line queued after that end of tick goes out at the next one.
      others[1]!.connection.sendLine('{"type":"event","event":"d2"}\n', 'event');
      await Promise.resolve();
      expect(writes[2]).toEqual([['a2', 'b2', 'c2'], ['d2']]);
    } finally {
      await Promise.all(others.map((o) => o.dispose()));
    }
  });
});

/** An AbortSignal look-alike (AbortLike) whose listener methods are the given ones. */
const signalLike = ({ add = () => undefined, remove = () => undefined }: { add?: () => void; remove?: () => void }) => ({
  aborted: false,
  reason: undefined,
  addEventListener: add,
  removeEventListener: remove,
});

const throws = (message: string) => (): never => {
  throw new Error(message);
};

describe('a signal that cannot be listened to', () => {
  it('fails the request with INVALID_ARGUMENT, unsent, with its deadline released', async () => {
    h = await connectionHarness();
    const signal = signalLike({ add: throws('no listeners here') });
    const before = vi.getTimerCount();
    const error = (await h.connection.request(call(), { timeoutMs: 100, signal }).catch((e: unknown) => e)) as ExtensionHostError;
    expect(error).toBeInstanceOf(ExtensionHostError);
    expect(error).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, extension: 'mem' });
    expect(error.message).toMatch(/its signal cannot be watched: no listeners here/);
    await settleIo();
    expect(h.ext.requests('tool_call')).toEqual([]);
    expect(vi.getTimerCount()).toBe(before);
    // Its deadline is released: the next request is sent and times out at its own deadline.
    const next = outcome(h.connection.request(call('next'), { timeoutMs: 100 }));
    await settleIo();
    expect(h.ext.requests('tool_call').map((f) => f.name)).toEqual(['next']);
    await vi.advanceTimersByTimeAsync(100);
    expect(await next).toBe(ErrorCode.TIMEOUT);
  });
});

describe('a signal whose removeEventListener throws', () => {
  it('cannot stop the answer from settling the request', async () => {
    h = await connectionHarness();
    const signal = signalLike({ remove: throws('no removing here') });
    const answered = outcome(h.connection.request(call(), { timeoutMs: 1000, signal }));
    await settleIo();
    h.answer(h.ext.requests('tool_call')[0]!);
    expect(await answered).toBe('ok ok');
  });
});
