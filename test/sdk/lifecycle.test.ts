import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { LineDecoder } from '../../src/protocol/decoder.js';
import { defineExtension, display, text } from '../../src/sdk/index.js';
import { gate } from '../helpers/wait.js';
import { FakeHost, HELLO_ACK, useFakeHosts } from './harness.js';

const start = useFakeHosts();

describe('lifecycle', () => {
  it('answers shutdown with shutdown_ack, resolves run() and calls exit(0)', async () => {
    const ext = defineExtension({ name: 'bye' });
    const exit = vi.fn();
    const host = new FakeHost(ext, { exit });
    await host.handshake();
    await host.shutdown();
    expect(host.received.at(-1)).toEqual({ type: 'shutdown_ack' });
    expect(exit).toHaveBeenCalledExactlyOnceWith(0);
  });

  it('resolves run() when its input ends (EOF), without calling process.exit', async () => {
    const ext = defineExtension({ name: 'orphan' });
    const exitSpy = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    try {
      const host = new FakeHost(ext);
      await host.handshake();
      await host.close();
      expect(exitSpy).not.toHaveBeenCalled();
    } finally {
      exitSpy.mockRestore();
    }
  });

  it('resolves on EOF even before the handshake completed', async () => {
    const host = new FakeHost(defineExtension({ name: 'early-eof' }));
    await host.waitForType('hello');
    await host.close();
    expect(host.received.map((f) => f.type)).toEqual(['hello']);
  });

  it('writes nothing after shutdown_ack and aborts the signal of handlers still running', async () => {
    const ext = defineExtension({ name: 'inflight' });
    const release = gate();
    const finished = gate();
    let signal: AbortSignal | undefined;
    ext.tool('long', {}, async (_args, ctx) => {
      signal = ctx.signal;
      await release.promise;
      ctx.notify('info', 'too late');
      finished.open();
      return 'too late';
    });
    const host = new FakeHost(ext);
    await host.handshake();
    host.send({ type: 'tool_call', id: 'long-1', name: 'long', args: {} });
    await host.shutdown();
    expect(signal?.aborted).toBe(true);
    release.open();
    await finished.promise;
    // Let the pending microtasks (the reply to the tool call) run; output is recorded synchronously.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(host.received.at(-1)).toEqual({ type: 'shutdown_ack' });
    expect(host.received.some((f) => f.id === 'long-1' || f.type === 'notify')).toBe(false);
  });

  it('reports bad input lines on stderr and keeps working', async () => {
    const ext = defineExtension({ name: 'robust' });
    ext.command('ping', () => display('pong'));
    const host = start(ext);
    await host.handshake();
    host.sendRaw('this is not json\n');
    host.sendRaw('[1,2,3]\n');
    host.sendRaw('{"type":"mystery"}\n');
    host.sendRaw('{"type":"panel_key","panel_id":"p","key":13}\n');
    expect(await host.command('ping')).toMatchObject({ display: 'pong' });
    expect(host.stderr).toContain('[robust] ignored input line: not JSON');
    expect(host.stderr).toContain('not a JSON object');
    expect(host.stderr).toContain('unknown frame type "mystery"');
    expect(host.stderr).toContain('invalid panel_key frame');
  });

  it('ignores a second hello_ack', async () => {
    const ext = defineExtension({ name: 'twice' });
    const hellos: string[] = [];
    ext.onHello((info) => {
      hellos.push(info.model);
    });
    const host = start(ext);
    await host.handshake();
    host.send({ ...HELLO_ACK, model: 'other' });
    await host.waitForStderr('ignored a second hello_ack');
    expect(hellos).toEqual(['claude-opus-4-7']);
    expect(host.received.filter((f) => f.type === 'ready')).toHaveLength(1);
  });

  it('sends notify, clear_notes and submit from handlers and from the extension', async () => {
    const ext = defineExtension({ name: 'notes' });
    ext.command('status', (_args, ctx) => {
      ctx.notify('warn', 'quota at 90%');
      ctx.clearNotes();
      ctx.submit('Summarize the workspace.');
      return undefined;
    });
    const host = start(ext);
    await host.handshake();
    await host.command('status');
    ext.notify('success', 'refreshed cache (12 entries)');
    ext.clearNotes();
    ext.submit('again');
    await host.waitFor((f) => f.type === 'submit' && f.text === 'again');
    expect(host.received.filter((f) => ['notify', 'clear_notes', 'submit'].includes(f.type))).toEqual([
      { type: 'notify', level: 'warn', message: 'quota at 90%' },
      { type: 'clear_notes' },
      { type: 'submit', text: 'Summarize the workspace.' },
      { type: 'notify', level: 'success', message: 'refreshed cache (12 entries)' },
      { type: 'clear_notes' },
      { type: 'submit', text: 'again' },
    ]);
  });

  it('holds notes sent before run() or during onHello until after ready', async () => {
    const ext = defineExtension({ name: 'early-notes' });
    ext.notify('info', 'before run');
    ext.onHello(() => ext.notify('info', 'during hello'));
    ext.command('x', () => undefined);
    const host = start(ext);
    await host.handshake();
    await host.waitFor((f) => f.type === 'notify' && f.message === 'during hello');
    expect(host.received.map((f) => f.type)).toEqual(['hello', 'register_command', 'ready', 'notify', 'notify']);
    expect(host.received.slice(3).map((f) => f.message)).toEqual(['before run', 'during hello']);
  });

  it('rejects a second concurrent run() and allows another run after the first ended', async () => {
    const ext = defineExtension({ name: 'again' });
    ext.command('ping', () => display('pong'));
    const first = new FakeHost(ext);
    await expect(ext.run({ input: new PassThrough(), output: new PassThrough() })).rejects.toMatchObject({
      code: 'ALREADY_RUNNING',
    });
    await first.handshake();
    await first.shutdown();
    const second = start(ext);
    await second.handshake();
    expect(await second.command('ping')).toMatchObject({ display: 'pong' });
  });

  it('stops when the output stream breaks (the host went away)', async () => {
    const ext = defineExtension({ name: 'broken-pipe' });
    const input = new PassThrough();
    const output = new PassThrough();
    const stderr = new PassThrough();
    const run = ext.run({ input, output, stderr });
    output.destroy(new Error('EPIPE'));
    await run;
    expect(String(stderr.read())).toContain('output closed (EPIPE)');
  });

  it('respects backpressure: never writes while the output needs draining, loses nothing', async () => {
    const ext = defineExtension({ name: 'chatty' });
    const count = 300;
    ext.onHello(() => {
      for (let i = 0; i < count; i++) ext.notify('info', `note ${i} ${'x'.repeat(40)}`);
    });
    ext.tool('t', {}, () => text('done'));
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 256 });
    let writesWhileFull = 0;
    let fullSeen = 0;
    const realWrite = output.write.bind(output);
    output.write = ((...args: Parameters<typeof output.write>) => {
      if (output.writableNeedDrain) writesWhileFull++;
      const ok = realWrite(...args);
      if (!ok) fullSeen++;
      return ok;
    }) as typeof output.write;
    const frames: Record<string, unknown>[] = [];
    const decoder = new LineDecoder((line) => frames.push(JSON.parse(line) as Record<string, unknown>), () => {});
    const run = ext.run({ input, output });
    input.write(`${JSON.stringify(HELLO_ACK)}\n`);
    input.write(`${JSON.stringify({ type: 'tool_call', id: 'last', name: 't', args: {} })}\n`);
    // Reading starts only now: the writer had to stop and wait for 'drain'.
    const allRead = new Promise<void>((resolve) => {
      output.on('data', (chunk: Buffer) => {
        decoder.push(chunk);
        if (frames.some((f) => f.id === 'last')) resolve();
      });
    });
    await allRead;
    input.end();
    await run;
    expect(fullSeen).toBeGreaterThan(0);
    expect(writesWhileFull).toBe(0);
    const notes = frames.filter((f) => f.type === 'notify').map((f) => String(f.message).split(' ')[1]);
    expect(notes).toEqual(Array.from({ length: count }, (_, i) => String(i)));
  });
});
