import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineExtension, display, type HostInfo } from '../../src/sdk/index.js';
import { HELLO_ACK, useFakeHosts } from './harness.js';

const start = useFakeHosts();

describe('handshake', () => {
  it('sends hello first, registrations only after hello_ack, one subscribe, then ready last', async () => {
    const ext = defineExtension({ name: 'weather', version: '1.0.0' });
    ext.command('weather', { description: 'current weather' }, () => display('sunny'));
    ext.tool('forecast', { description: 'forecast', schema: z.object({ city: z.string() }) }, () => 'rain');
    ext.on('turn_start', () => {});
    ext.on('turn_end', () => {});
    ext.intercept('tool_call', () => undefined);
    let seenAtHello: string[] = [];
    ext.onHello(() => {
      seenAtHello = host.received.map((f) => f.type);
    });
    const host = start(ext);

    const { hello, registrations } = await host.handshake();

    expect(host.received[0]).toBe(hello);
    expect(hello).toEqual({
      type: 'hello',
      name: 'weather',
      version: '1.0.0',
      capabilities: ['commands', 'tools', 'events', 'intercept', 'cancel', 'progress', 'trace'],
    });
    // onHello runs after hello_ack and before any registration is written.
    expect(seenAtHello).toEqual(['hello']);
    expect(registrations).toEqual([
      { type: 'register_command', name: 'weather', description: 'current weather' },
      {
        type: 'register_tool',
        name: 'forecast',
        description: 'forecast',
        schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
      { type: 'subscribe', events: ['turn_start', 'turn_end'], intercept: ['tool_call'] },
    ]);
    expect(host.received.at(-1)).toEqual({ type: 'ready' });
  });

  it('sends nothing but hello until hello_ack arrives', async () => {
    const ext = defineExtension({ name: 'quiet' });
    ext.command('x', () => undefined);
    ext.notify('info', 'queued before run');
    const host = start(ext);
    await host.waitForType('hello');
    host.send({ type: 'shutdown' });
    await host.done;
    expect(host.received.map((f) => f.type)).toEqual(['hello', 'shutdown_ack']);
  });

  it('uses explicit capabilities and omits version when not given', async () => {
    const ext = defineExtension({ name: 'caps', capabilities: ['commands', 'panels'] });
    const host = start(ext);
    const { hello, registrations } = await host.handshake();
    expect(hello).toEqual({ type: 'hello', name: 'caps', capabilities: ['commands', 'panels', 'cancel', 'progress', 'trace'] });
    expect(registrations).toEqual([]);
  });

  it('hands hello_ack to onHello handlers and exposes it as ext.host and ctx.host', async () => {
    const ext = defineExtension({ name: 'info' });
    const seen: HostInfo[] = [];
    ext.onHello((info) => {
      seen.push(info);
    });
    ext.command('where', (_args, ctx) => display(ctx.host.cwd));
    expect(ext.host).toBeUndefined();
    const host = start(ext);
    await host.handshake({ vendor_field: 42 });

    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual({
      protocolVersion: 1,
      zotVersion: '0.0.7',
      provider: 'anthropic',
      model: 'claude-opus-4-7',
      cwd: '/work/project',
      extensionDir: '/work/project/.zot/extensions/demo',
      dataDir: '/work/project/.zot/extensions/demo/data',
      raw: { ...HELLO_ACK, vendor_field: 42 },
    });
    expect(ext.host).toEqual(seen[0]);
    expect(await host.command('where')).toMatchObject({ action: 'display', display: '/work/project' });
  });

  it('announces what async onHello handlers register, in the same batch before ready', async () => {
    const ext = defineExtension({ name: 'dyn' });
    ext.onHello(async (info) => {
      await Promise.resolve();
      if (info.model.startsWith('claude')) ext.command('opus-only', () => display('hi'));
    });
    ext.onHello(() => {
      ext.tool('second', { description: 'from the second handler' }, () => 'ok');
    });
    const host = start(ext);
    const { registrations } = await host.handshake();
    expect(registrations.map((f) => [f.type, f.name])).toEqual([
      ['register_command', 'opus-only'],
      ['register_tool', 'second'],
    ]);
  });

  it('keeps going when an onHello handler throws', async () => {
    const ext = defineExtension({ name: 'oops' });
    ext.onHello(() => {
      throw new Error('config missing');
    });
    ext.command('still', () => display('here'));
    const host = start(ext);
    const { registrations } = await host.handshake();
    expect(registrations).toEqual([{ type: 'register_command', name: 'still' }]);
    expect(host.stderr).toContain('onHello handler failed');
    expect(host.stderr).toContain('config missing');
  });

  it('holds requests that arrive before ready and answers them after it, in order', async () => {
    const ext = defineExtension({ name: 'early' });
    const opened: Array<() => void> = [];
    ext.onHello(() => new Promise<void>((resolve) => opened.push(resolve)));
    ext.command('ping', () => display('pong'));
    const host = start(ext);
    await host.waitForType('hello');
    host.send(HELLO_ACK);
    host.send({ type: 'command_invoked', id: 'c1', name: 'ping', args: '' });
    // Once the garbage line after it is reported, the request has been read too (lines are handled
    // in order) while onHello is still pending: nothing may be answered before ready.
    host.sendRaw('not json\n');
    await host.waitForStderr('ignored input line');
    expect(host.received.map((f) => f.type)).toEqual(['hello']);
    opened[0]?.();
    const answer = await host.answer('c1');
    expect(answer).toMatchObject({ action: 'display', display: 'pong' });
    const types = host.received.map((f) => f.type);
    expect(types.indexOf('ready')).toBeLessThan(types.indexOf('command_response'));
  });

  it('sends registrations made after ready immediately', async () => {
    const ext = defineExtension({ name: 'late' });
    ext.command('enable', (_args, ctx) => {
      ext.tool('extra', { description: 'late tool' }, () => 'ok');
      ext.on('turn_end', () => {});
      ctx.notify('success', 'enabled');
      return display('done');
    });
    const host = start(ext);
    await host.handshake();
    await host.command('enable');
    const afterReady = host.received.slice(host.received.findIndex((f) => f.type === 'ready') + 1);
    expect(afterReady.map((f) => f.type)).toEqual(['register_tool', 'subscribe', 'notify', 'command_response']);
    expect(afterReady[1]).toEqual({ type: 'subscribe', events: ['turn_end'], intercept: [] });
  });
});
