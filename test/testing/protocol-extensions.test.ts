// The test kit grants the protocol extensions to in-process SDK extensions: cancel, progress, trace.
import { afterEach, describe, expect, it } from 'vitest';
import { defineExtension, type RequestContext } from '../../src/sdk/index.js';
import { createTestHost, type ProgressRecord, type TestHost } from '../../src/testing/index.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function aborted(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
}

/** A tool `wait` that runs until its signal fires, then answers (or throws, with `throwOnAbort`). */
function waiter(throwOnAbort: boolean) {
  const started = deferred<RequestContext>();
  const finished = deferred<unknown>();
  const ext = defineExtension({ name: 'waiter' })
    .tool('wait', {}, async (_args, ctx) => {
      started.resolve(ctx);
      const reason = await aborted(ctx.signal);
      finished.resolve(reason);
      if (throwOnAbort) throw reason;
      return 'late';
    })
    .tool('ping', {}, () => 'pong');
  return { ext, started: started.promise, finished: finished.promise };
}

let t: TestHost | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('TestHost with capabilities', () => {
  it('grants the capabilities the extension declared in hello_ack', async () => {
    let ack: unknown;
    const ext = defineExtension({ name: 'ack', capabilities: ['commands', 'progress'] }).onHello((host) => {
      ack = host.raw.capabilities;
    });
    t = await createTestHost({ extensions: [ext], capabilities: ['cancel', 'progress', 'trace'] });
    // The SDK declares all three whatever the explicit list.
    expect(ack).toEqual(['cancel', 'progress', 'trace']);
  });

  it('sends cancel when the call is aborted: the handler signal fires, the late answer is dropped', async () => {
    const { ext, started, finished } = waiter(false);
    t = await createTestHost({ extensions: [ext], capabilities: ['cancel'] });
    const controller = new AbortController();
    const call = t.callTool('wait', {}, { signal: controller.signal });
    await started;
    controller.abort();
    expect((await call).failure?.code).toBe('ABORTED');
    expect(((await finished) as DOMException).name).toBe('AbortError');
    expect(await t.callTool('ping')).toMatchObject({ isError: false, content: [{ type: 'text', text: 'pong' }] });
    expect(t.record.warnings).toEqual([]);
  });

  it('sends cancel with reason timeout at the call deadline', async () => {
    const { ext, started, finished } = waiter(true);
    t = await createTestHost({ extensions: [ext], capabilities: ['cancel'] });
    const call = t.callTool('wait', {}, { timeoutMs: 50 });
    const ctx = await started;
    expect((await call).failure?.code).toBe('TIMEOUT');
    expect(((await finished) as DOMException).name).toBe('TimeoutError');
    expect(ctx.signal.aborted).toBe(true);
  });

  it('does not cancel without the capability (a plain zot host)', async () => {
    const { ext, started } = waiter(false);
    t = await createTestHost({ extensions: [ext], capabilities: ['progress'] });
    const controller = new AbortController();
    const call = t.callTool('wait', {}, { signal: controller.signal });
    const ctx = await started;
    controller.abort();
    expect((await call).failure?.code).toBe('ABORTED');
    expect(await t.callTool('ping')).toMatchObject({ isError: false });
    expect(ctx.signal.aborted).toBe(false);
  });

  it('delivers progress to onProgress and record.progress, and the trace context to ctx', async () => {
    let seen: [string | undefined, string | undefined, unknown] | undefined;
    const ext = defineExtension({ name: 'worker' }).tool('work', {}, (args, ctx) => {
      seen = [ctx.traceparent, ctx.tracestate, args];
      ctx.progress({ message: 'half', progress: 1, total: 2 });
      ctx.progress({ progress: 2, total: 2 });
      return 'done';
    });
    t = await createTestHost({ extensions: [ext], capabilities: ['cancel', 'progress', 'trace'] });
    const got: ProgressRecord[] = [];
    const result = await t.callTool('work', { x: 1 }, { onProgress: (p) => got.push(p), traceparent: TRACEPARENT, tracestate: 'a=b' });
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'done' }] });
    // The kit's call tag never reaches the handler.
    expect(seen).toEqual([TRACEPARENT, 'a=b', { x: 1 }]);
    expect(got).toEqual([
      { extension: 'worker', requestId: expect.any(String), message: 'half', progress: 1, total: 2 },
      { extension: 'worker', requestId: got[0]?.requestId, progress: 2, total: 2 },
    ]);
    expect(t.record.progress).toEqual(got);
    expect(t.record.warnings).toEqual([]);
  });

  it('without capabilities runs through the real host: progress is granted by it (issue 15), no trace context', async () => {
    let seen: [boolean, string | undefined] | undefined;
    const ext = defineExtension({ name: 'worker' }).tool('work', {}, (args, ctx) => {
      seen = [ctx.progress({ message: 'x' }), ctx.traceparent];
      return JSON.stringify(args);
    });
    t = await createTestHost({ extensions: [ext] });
    const got: unknown[] = [];
    const result = await t.callTool('work', { x: 1 }, { traceparent: TRACEPARENT, onProgress: (p) => got.push(p.message) });
    expect(result).toMatchObject({ content: [{ type: 'text', text: '{"x":1}' }] });
    expect(seen).toEqual([true, undefined]);
    expect(got).toEqual(['x']);
    expect(t.record.progress).toEqual([]);
  });
});
