import { describe, expect, it } from 'vitest';
import { defineExtension, openPanel } from '../../src/sdk/index.js';
import { gate } from '../helpers/wait.js';
import { useFakeHosts } from './harness.js';

const start = useFakeHosts();

describe('panels', () => {
  it('opens a panel from a command, re-renders it on keys and closes it', async () => {
    const ext = defineExtension({ name: 'todos' });
    const items = ['ship panel api', 'persist state'];
    let cursor = 0;
    const view = () => ({ title: 'Todos', lines: items.map((t, i) => `${i === cursor ? '>' : ' '} ${t}`), footer: 'esc close' });
    ext.command('todos', () => openPanel({ id: 'todos-main', ...view() }));
    ext.onPanelKey('todos-main', (key, _text, panel) => {
      if (key === 'down') cursor = Math.min(cursor + 1, items.length - 1);
      if (key === 'enter') panel.close();
      else panel.render(view());
    });
    const host = start(ext);
    const { hello } = await host.handshake();
    expect(hello.capabilities).toEqual(['commands', 'panels', 'cancel', 'progress', 'trace']);

    expect(await host.command('todos')).toMatchObject({
      action: 'open_panel',
      open_panel: { id: 'todos-main', title: 'Todos', lines: ['> ship panel api', '  persist state'], footer: 'esc close' },
    });
    host.send({ type: 'panel_key', panel_id: 'todos-main', key: 'down' });
    expect(await host.waitForType('panel_render')).toEqual({
      type: 'panel_render',
      panel_id: 'todos-main',
      title: 'Todos',
      lines: ['  ship panel api', '> persist state'],
      footer: 'esc close',
    });
    host.send({ type: 'panel_key', panel_id: 'todos-main', key: 'enter' });
    expect(await host.waitForType('panel_close')).toEqual({ type: 'panel_close', panel_id: 'todos-main' });
  });

  it('delivers the keys of one panel strictly in order, even when the first handler is slow', async () => {
    const ext = defineExtension({ name: 'ordered' });
    const first = gate();
    const log: string[] = [];
    const allDone = gate();
    ext.onPanelKey('p', async (key, text) => {
      const name = key === 'rune' ? `rune:${text}` : key;
      log.push(`start ${name}`);
      if (log.length === 1) await first.promise;
      log.push(`end ${name}`);
      if (name === 'rune:x') allDone.open();
    });
    ext.onPanelClose('p', () => {
      log.push('closed');
    });
    ext.command('probe', () => undefined);
    const host = start(ext);
    await host.handshake();

    host.send({ type: 'panel_key', panel_id: 'p', key: 'down' });
    host.send({ type: 'panel_key', panel_id: 'p', key: 'up' });
    host.send({ type: 'panel_key', panel_id: 'p', key: 'rune', text: 'x' });
    host.send({ type: 'panel_close', panel_id: 'p' });
    // The probe's answer proves every key line was read; only the first handler may have started.
    await host.command('probe');
    expect(log).toEqual(['start down']);

    first.open();
    await allDone.promise;
    await host.command('probe');
    expect(log).toEqual(['start down', 'end down', 'start up', 'end up', 'start rune:x', 'end rune:x', 'closed']);
  });

  it('does not hold one panel behind another panel, and survives a throwing key handler', async () => {
    const ext = defineExtension({ name: 'two' });
    const stuck = gate();
    const seen: string[] = [];
    ext.onPanelKey('a', async () => {
      await stuck.promise;
    });
    ext.onPanelKey('b', (key) => {
      seen.push(key);
      if (key === 'tab') throw new Error('bad key');
    });
    const host = start(ext);
    await host.handshake();
    host.send({ type: 'panel_key', panel_id: 'a', key: 'down' });
    host.send({ type: 'panel_key', panel_id: 'b', key: 'tab' });
    await host.waitForStderr('bad key');
    host.send({ type: 'panel_key', panel_id: 'b', key: 'up' });
    ext.command('probe', () => undefined);
    await host.command('probe');
    expect(seen).toEqual(['tab', 'up']);
    stuck.open();
  });

  it('hands a key name outside the spec’s list to the handler as it is (the host forwards it so)', async () => {
    const ext = defineExtension({ name: 'keys' });
    const seen: [string, string | undefined][] = [];
    const last = gate();
    ext.onPanelKey('p', (key, text) => {
      seen.push([key, text]);
      if (key === 'down') last.open();
    });
    const host = start(ext);
    await host.handshake();
    host.sendRaw('{"type":"panel_key","panel_id":"p","key":"unknown"}\n');
    host.sendRaw('{"type":"panel_key","panel_id":"p","key":"f13","text":"x"}\n');
    host.sendRaw('{"type":"panel_key","panel_id":"p","key":"down"}\n');
    await last.promise;
    expect(seen).toEqual([
      ['unknown', undefined],
      ['f13', 'x'],
      ['down', undefined],
    ]);
    expect(host.stderr).not.toContain('invalid panel_key frame');
  });

  it('renders and closes panels through ext.panel() and ctx.panel()', async () => {
    const ext = defineExtension({ name: 'push' });
    ext.command('refresh', (_args, ctx) => {
      ctx.panel('status').render({ lines: ['1 job running'] });
      return undefined;
    });
    const host = start(ext);
    await host.handshake();
    await host.command('refresh');
    ext.panel('status').render({ title: 'Jobs', lines: [], footer: 'done' });
    ext.panel('status').close();
    await host.waitForType('panel_close');
    expect(host.received.filter((f) => f.type.startsWith('panel_'))).toEqual([
      { type: 'panel_render', panel_id: 'status', lines: ['1 job running'] },
      { type: 'panel_render', panel_id: 'status', title: 'Jobs', lines: [], footer: 'done' },
      { type: 'panel_close', panel_id: 'status' },
    ]);
  });
});
