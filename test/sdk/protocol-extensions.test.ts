// The negotiated extensions of the zot protocol on the SDK side: cancel, progress, trace context.
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { defineExtension, display, type RequestContext } from '../../src/sdk/index.js';
import { gate } from '../helpers/wait.js';
import { HELLO_ACK, useFakeHosts } from './harness.js';

const start = useFakeHosts();
const ALL = { capabilities: ['cancel', 'progress', 'trace'] };
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** Resolves with the reason once `signal` aborts (at once when it already did). */
function aborted(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
}

describe('capabilities', () => {
  it('declares cancel, progress and trace after the usual capabilities', async () => {
    const ext = defineExtension({ name: 'caps' }).tool('t', {}, () => 'x');
    const { hello } = await start(ext).handshake();
    expect(hello.capabilities).toEqual(['tools', 'cancel', 'progress', 'trace']);
  });

  it('writes exactly the zot frames to a host that negotiated nothing', async () => {
    const ext = defineExtension({ name: 'plain', version: '1.0.0' })
      .tool('slow', { description: 'd' }, (_args, ctx) => {
        expect(ctx.progress({ message: 'half', progress: 1, total: 2 })).toBe(false);
        expect(ctx.traceparent).toBeUndefined();
        return 'done';
      })
      .command('go', (_args, ctx) => {
        expect(ctx.progress({ message: 'x' })).toBe(false);
        return display('ok');
      })
      .intercept('turn_start', () => undefined);
    const toExt = new PassThrough();
    let bytes = '';
    const answered = gate();
    const output = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        bytes += chunk.toString();
        if (['"t1"', '"c1"', '"i1"'].every((id) => bytes.includes(id))) answered.open();
        callback();
      },
    });
    let stderr = '';
    const errors = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        stderr += chunk.toString();
        callback();
      },
    });
    const done = ext.run({ input: toExt, output, stderr: errors });
    const send = (frame: object) => toExt.write(`${JSON.stringify(frame)}\n`);
    send(HELLO_ACK);
    const meta = { _meta: { traceparent: TRACEPARENT } };
    send({ type: 'tool_call', id: 't1', name: 'slow', args: {}, ...meta });
    send({ type: 'command_invoked', id: 'c1', name: 'go', args: '', ...meta });
    send({ type: 'event_intercept', id: 'i1', event: 'turn_start', step: 1, ...meta });
    await answered.promise;
    send({ type: 'shutdown' });
    await done;
    expect(bytes).toBe(
      [
        '{"type":"hello","name":"plain","version":"1.0.0","capabilities":["commands","tools","intercept","cancel","progress","trace"]}',
        '{"type":"register_command","name":"go"}',
        '{"type":"register_tool","name":"slow","description":"d","schema":{"type":"object","properties":{}}}',
        '{"type":"subscribe","events":[],"intercept":["turn_start"]}',
        '{"type":"ready"}',
        '{"type":"tool_result","id":"t1","content":[{"type":"text","text":"done"}]}',
        '{"type":"command_response","id":"c1","action":"display","display":"ok"}',
        '{"type":"event_intercept_response","id":"i1"}',
        '{"type":"shutdown_ack"}',
        '',
      ].join('\n'),
    );
    expect(stderr).toBe('');
  });

  it('ignores a cancel from a host that did not negotiate it (and logs it)', async () => {
    const release = gate();
    let signal: AbortSignal | undefined;
    const ext = defineExtension({ name: 'c' }).tool('wait', {}, async (_args, ctx) => {
      signal = ctx.signal;
      await release.promise;
      return 'finished';
    });
    const host = start(ext);
    await host.handshake();
    host.send({ type: 'tool_call', id: 'w1', name: 'wait', args: {} });
    host.send({ type: 'cancel', id: 'w1', reason: 'timeout' });
    await host.waitForStderr('"cancel" was not negotiated');
    expect(signal?.aborted).toBe(false);
    release.open();
    expect(await host.answer('w1')).toMatchObject({ content: [{ type: 'text', text: 'finished' }] });
  });
});

describe('cancel', () => {
  it('aborts the tool handler signal with a TimeoutError; a failure afterwards is not answered', async () => {
    const started = gate<RequestContext>();
    const ext = defineExtension({ name: 'c' })
      .tool('wait', {}, async (_args, ctx) => {
        started.open(ctx);
        throw await aborted(ctx.signal);
      })
      .tool('ping', {}, () => 'pong');
    const host = start(ext);
    await host.handshake(ALL);
    host.send({ type: 'tool_call', id: 'w1', name: 'wait', args: {} });
    const ctx = await started.promise;
    host.send({ type: 'cancel', id: 'w1', reason: 'timeout' });
    const reason = await aborted(ctx.signal);
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('TimeoutError');
    expect((reason as DOMException).message).toContain('timeout');
    await host.waitForStderr('tool "wait" stopped after the host cancelled it (timeout)');
    expect(await host.callTool('ping', {})).toMatchObject({ content: [{ type: 'text', text: 'pong' }] });
    expect(host.received.filter((f) => f.id === 'w1')).toEqual([]);
    // A second cancel, and one for an id never seen, are ignored silently.
    host.send({ type: 'cancel', id: 'w1', reason: 'aborted' });
    host.send({ type: 'cancel', id: 'nope', reason: 'aborted' });
    expect(await host.callTool('ping', {})).toMatchObject({ content: [{ type: 'text', text: 'pong' }] });
    expect(host.stderr).not.toContain('nope');
  });

  it('still answers a handler that returns after the cancel (the host drops it)', async () => {
    const ext = defineExtension({ name: 'c' }).command('long', async (_args, ctx) => {
      const reason = (await aborted(ctx.signal)) as DOMException;
      return display(`gave up: ${reason.name}`);
    });
    const host = start(ext);
    await host.handshake(ALL);
    host.send({ type: 'command_invoked', id: 'c1', name: 'long', args: '' });
    host.send({ type: 'cancel', id: 'c1', reason: 'aborted' });
    expect(await host.answer('c1')).toEqual({ type: 'command_response', id: 'c1', action: 'display', display: 'gave up: AbortError' });
  });

  it('reaches an interceptor, and a cancel before ready waits for its request', async () => {
    const ext = defineExtension({ name: 'c' }).intercept('tool_call', async (_input, ctx) => {
      await aborted(ctx.signal);
      return { block: true, reason: 'cancelled' };
    });
    const host = start(ext);
    await host.waitForType('hello');
    // Both arrive with the ack, before ready: the request is handled first, then its cancel.
    host.sendRaw(
      [
        JSON.stringify({ ...HELLO_ACK, ...ALL }),
        JSON.stringify({ type: 'event_intercept', id: 'i1', event: 'tool_call', tool_id: 'x', tool_name: 'bash', tool_args: {} }),
        JSON.stringify({ type: 'cancel', id: 'i1', reason: 'aborted' }),
        '',
      ].join('\n'),
    );
    expect(await host.answer('i1')).toMatchObject({ block: true, reason: 'cancelled' });
  });

  it('aborts pending handlers when the extension stops, cancel negotiated or not', async () => {
    for (const ack of [ALL, {}]) {
      const started = gate<AbortSignal>();
      const ext = defineExtension({ name: 'c' }).tool('wait', {}, async (_args, ctx) => {
        started.open(ctx.signal);
        await aborted(ctx.signal);
        return 'stopped';
      });
      const host = start(ext);
      await host.handshake(ack);
      host.send({ type: 'tool_call', id: 'w1', name: 'wait', args: {} });
      const signal = await started.promise;
      await host.shutdown();
      expect(signal.aborted).toBe(true);
    }
  });
});

describe("zot's tool_cancel", () => {
  it('reaches the handler as a cancel does when "tool_cancel" was declared or "cancel" negotiated', async () => {
    for (const [capabilities, ack] of [[['tools', 'tool_cancel'], {}], [undefined, ALL]] as const) {
      const ext = defineExtension({ name: 'z', capabilities }).tool('wait', {}, async (_args, ctx) => {
        const reason = (await aborted(ctx.signal)) as DOMException;
        return `gave up: ${reason.name}`;
      });
      const host = start(ext);
      await host.handshake(ack);
      host.send({ type: 'tool_call', id: '7', name: 'wait', args: {} });
      host.send({ type: 'tool_cancel', id: '7' });
      expect(await host.answer('7')).toMatchObject({ content: [{ type: 'text', text: 'gave up: AbortError' }] });
    }
  });

  it('is ignored otherwise, and for an unknown, finished or malformed id', async () => {
    const release = gate();
    const ext = defineExtension({ name: 'z' })
      .tool('wait', {}, async (_args, ctx) => {
        await release.promise;
        return ctx.signal.aborted ? 'aborted' : 'finished';
      })
      .tool('ping', {}, () => 'pong');
    const host = start(ext);
    const { hello } = await host.handshake();
    expect(hello.capabilities).not.toContain('tool_cancel');
    host.send({ type: 'tool_call', id: 'w', name: 'wait', args: {} });
    host.send({ type: 'tool_cancel', id: 'w' });
    host.send({ type: 'tool_cancel', id: 'nope' });
    host.send({ type: 'tool_cancel' });
    expect(await host.callTool('ping', {})).toMatchObject({ content: [{ text: 'pong' }] });
    release.open();
    expect(await host.answer('w')).toMatchObject({ content: [{ type: 'text', text: 'finished' }] });
    expect(host.stderr).toContain('invalid tool_cancel frame');
    expect(host.stderr).not.toContain('nope');
  });
});

describe('progress', () => {
  it('sends progress for the pending request only, validated, and nothing after the answer', async () => {
    let late: RequestContext | undefined;
    const ext = defineExtension({ name: 'p' }).tool('work', {}, (_args, ctx) => {
      expect(ctx.progress({ message: 'starting' })).toBe(true);
      expect(ctx.progress({ progress: 1, total: 4 })).toBe(true);
      expect(ctx.progress({ message: 'm'.repeat(5000), progress: 2 })).toBe(true);
      expect(() => ctx.progress({ progress: Number.NaN })).toThrow(TypeError);
      expect(() => ctx.progress({ total: Infinity })).toThrow(/finite/);
      expect(() => ctx.progress({ message: 3 as never })).toThrow(/string/);
      late = ctx;
      return 'done';
    });
    const host = start(ext);
    await host.handshake(ALL);
    const answer = await host.callTool('work', {});
    const id = answer.id;
    expect(late?.progress({ message: 'too late' })).toBe(false);
    const sent = host.received.filter((f) => f.type === 'progress');
    expect(sent).toEqual([
      { type: 'progress', id, message: 'starting' },
      { type: 'progress', id, progress: 1, total: 4 },
      { type: 'progress', id, message: 'm'.repeat(1000), progress: 2 },
    ]);
    // Every progress frame precedes the answer.
    expect(host.received.indexOf(answer)).toBeGreaterThan(host.received.indexOf(sent[2]!));
  });

  it('is a no-op without the capability and in interceptors', async () => {
    const results: boolean[] = [];
    const ext = defineExtension({ name: 'p' })
      .command('c', (_args, ctx) => {
        results.push(ctx.progress({ message: 'x' }));
      })
      .intercept('turn_start', (_input, ctx) => {
        results.push(ctx.progress({ message: 'x' }));
      });
    const negotiated = start(ext);
    await negotiated.handshake({ capabilities: ['cancel', 'trace'] });
    await negotiated.command('c');
    const ext2 = defineExtension({ name: 'p2' }).intercept('turn_start', (_input, ctx) => {
      results.push(ctx.progress({ message: 'x' }));
    });
    const full = start(ext2);
    await full.handshake(ALL);
    await full.intercept({ event: 'turn_start', step: 1 });
    expect(results).toEqual([false, false]);
    expect([...negotiated.received, ...full.received].filter((f) => f.type === 'progress')).toEqual([]);
  });

  it('drops progress frames while the output is backed up (flood)', async () => {
    const toExt = new PassThrough();
    let lines = 0;
    let unblock!: () => void;
    const blocked = new Promise<void>((resolve) => {
      unblock = resolve;
    });
    let sawReady = false;
    const output = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, callback) {
        lines += chunk.toString().split('\n').length - 1;
        // Once ready went out, the host stops reading until the flood is over.
        if (sawReady) void blocked.then(() => callback());
        else callback();
        if (chunk.toString().includes('"ready"')) sawReady = true;
      },
    });
    const sent: boolean[] = [];
    const flooded = gate();
    const ext = defineExtension({ name: 'flood' }).tool('spam', {}, (_args, ctx) => {
      for (let i = 0; i < 10_000; i++) sent.push(ctx.progress({ progress: i }));
      flooded.open();
      return 'done';
    });
    const done = ext.run({ input: toExt, output, stderr: new PassThrough() });
    toExt.write(`${JSON.stringify({ ...HELLO_ACK, ...ALL })}\n`);
    toExt.write(`${JSON.stringify({ type: 'tool_call', id: 's1', name: 'spam', args: {} })}\n`);
    await flooded.promise;
    const accepted = sent.filter(Boolean).length;
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(65);
    unblock();
    toExt.end();
    await done;
    expect(lines).toBeLessThan(80);
  });
});

describe('trace context', () => {
  it('hands traceparent and tracestate to tools, commands and interceptors; _meta stays out of inputs', async () => {
    const seen: { traceparent: string | undefined; tracestate: string | undefined; raw?: unknown; args?: unknown }[] = [];
    const ext = defineExtension({ name: 't' })
      .tool('t', {}, (args, ctx) => {
        seen.push({ traceparent: ctx.traceparent, tracestate: ctx.tracestate, args });
        return 'ok';
      })
      .command('c', (_args, ctx) => {
        seen.push({ traceparent: ctx.traceparent, tracestate: ctx.tracestate });
      })
      .intercept('turn_start', (input, ctx) => {
        seen.push({ traceparent: ctx.traceparent, tracestate: ctx.tracestate, raw: input.raw });
      });
    const host = start(ext);
    await host.handshake(ALL);
    const _meta = { traceparent: TRACEPARENT, tracestate: 'congo=t61rcWkgMzE' };
    host.send({ type: 'tool_call', id: 'a', name: 't', args: { x: 1 }, _meta });
    await host.answer('a');
    host.send({ type: 'command_invoked', id: 'b', name: 'c', args: '', _meta: { traceparent: TRACEPARENT } });
    await host.answer('b');
    host.send({ type: 'event_intercept', id: 'c', event: 'turn_start', step: 2, _meta });
    await host.answer('c');
    // Malformed: wrong version, upper-case hex, not a string; tracestate without a valid traceparent.
    for (const [id, traceparent] of [['d', TRACEPARENT.replace(/^00/, '01')], ['e', TRACEPARENT.toUpperCase()], ['f', 42]] as const) {
      host.send({ type: 'tool_call', id, name: 't', args: {}, _meta: { traceparent, tracestate: 'a=b' } });
      await host.answer(id);
    }
    expect(seen).toEqual([
      { traceparent: TRACEPARENT, tracestate: 'congo=t61rcWkgMzE', args: { x: 1 } },
      { traceparent: TRACEPARENT, tracestate: undefined },
      { traceparent: TRACEPARENT, tracestate: 'congo=t61rcWkgMzE', raw: { type: 'event_intercept', id: 'c', event: 'turn_start', step: 2 } },
      { traceparent: undefined, tracestate: undefined, args: {} },
      { traceparent: undefined, tracestate: undefined, args: {} },
      { traceparent: undefined, tracestate: undefined, args: {} },
    ]);
  });

  it('leaves ctx.traceparent undefined when trace was not negotiated', async () => {
    let got: string | undefined = 'unset';
    const ext = defineExtension({ name: 't' }).tool('t', {}, (_args, ctx) => {
      got = ctx.traceparent;
      return 'ok';
    });
    const host = start(ext);
    await host.handshake({ capabilities: ['cancel', 'progress'] });
    host.send({ type: 'tool_call', id: 'a', name: 't', args: {}, _meta: { traceparent: TRACEPARENT } });
    await host.answer('a');
    expect(got).toBeUndefined();
  });
});
