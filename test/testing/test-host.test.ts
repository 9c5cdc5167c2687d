import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineExtension, display, openPanel, prompt, text } from '../../src/sdk/index.js';
import { createTestHost, type TestHost } from '../../src/testing/index.js';
import { fixture } from '../helpers/fixtures.js';

function notesExtension() {
  const ext = defineExtension({ name: 'notes', version: '1.0.0' });
  let count = 0;
  ext.command('note', { description: 'count a note' }, (args, ctx) => {
    count++;
    ctx.notify('info', `noted ${args}`);
    return display(`notes: ${count}`);
  });
  ext.command('ask', { description: 'ask the model' }, (args) => prompt(`Q: ${args}`));
  ext.command('later', {}, (args, ctx) => {
    ctx.submit(args);
    return undefined;
  });
  ext.command('counter', {}, () => openPanel({ id: 'counter', title: 'Counter', lines: ['0'] }));
  let value = 0;
  ext.onPanelKey('counter', (key, _text, panel) => {
    if (key === 'esc') return panel.close();
    value += key === 'up' ? 1 : key === 'down' ? -1 : 0;
    panel.render({ title: 'Counter', lines: [String(value)] });
  });
  ext.tool('add', { description: 'add two numbers', schema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => text(String(a + b)));
  ext.intercept('tool_call', ({ toolName, args }) => (toolName === 'bash' && String(args.command).includes('sudo') ? { block: true, reason: 'no sudo' } : undefined));
  return ext;
}

describe('createTestHost with an in-process SDK extension and a real subprocess', () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await createTestHost({ extensions: [notesExtension(), fixture('extensions/weather')] });
  });
  afterAll(() => t.close());

  it('loads both: in-memory first, then the directory, in that load order', () => {
    expect(t.host.extensions().map((e) => [e.name, e.source, e.state])).toEqual([
      ['notes', 'memory', 'ready'],
      ['weather', 'explicit', 'ready'],
    ]);
    expect(t.host.extensions()[0]!.pid).toBeUndefined();
  });

  it('runs commands and records every callback', async () => {
    const note = t.nextNote('notes');
    const outcome = await t.command('/note milk');
    expect(outcome).toMatchObject({ handled: true, action: 'display', text: 'notes: 1' });
    expect(await note).toEqual({ extension: 'notes', level: 'info', message: 'noted milk' });
    await t.command('/ask why');
    expect(t.record.prompts.at(-1)).toEqual({ extension: 'notes', command: 'ask', text: 'Q: why' });
    const submitted = t.nextSubmit();
    await t.command('/later tomorrow');
    expect(await submitted).toEqual({ extension: 'notes', text: 'tomorrow' });
    await t.command('/weather Oslo');
    expect(t.record.prompts.at(-1)?.text).toBe("Show today's weather for Oslo in one line.");
  });

  it('calls tools, with zod validation errors answered as is_error', async () => {
    expect((await t.callTool('add', { a: 2, b: 3 })).content).toEqual([{ type: 'text', text: '5' }]);
    const bad = await t.callTool('add', { a: 'two' });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain('a');
    expect((await t.callTool('weather', { city: 'Rome' })).content).toEqual([{ type: 'text', text: 'Rome: 16°C, fog' }]);
  });

  it('asks the intercept chain', async () => {
    expect(await t.toolCall('bash', { command: 'sudo rm' })).toMatchObject({ block: true, reason: 'no sudo', blockedBy: 'notes' });
    expect(await t.toolCall('bash', { command: 'ls' })).toMatchObject({ block: false, modified: false });
  });

  it('presses panel keys and awaits each frame, in order', async () => {
    await t.command('/counter');
    expect(t.record.panels.opened.at(-1)).toMatchObject({ panelId: 'counter', lines: ['0'] });
    expect(await t.pressKey('counter', 'up')).toMatchObject({ kind: 'render', panel: { lines: ['1'] } });
    expect(await t.pressKey('counter', 'up')).toMatchObject({ kind: 'render', panel: { lines: ['2'] } });
    expect(await t.pressKey('counter', 'down')).toMatchObject({ kind: 'render', panel: { lines: ['1'] } });
    expect(await t.pressKey('counter', 'esc')).toEqual({ kind: 'close', panelId: 'counter', by: 'extension', extension: 'notes' });
    await expect(t.pressKey('counter', 'up')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('waits with a deadline, never forever', async () => {
    await expect(t.nextNote('nobody', { timeoutMs: 20 })).rejects.toMatchObject({ code: 'TIMEOUT', message: 'waited 20 ms for the next note' });
  });
});

function counterExtension(name: string, step: number) {
  const ext = defineExtension({ name, version: '1.0.0' });
  let value = 0;
  ext.command(`${name}-counter`, {}, () => openPanel({ id: 'counter', lines: ['0'] }));
  ext.onPanelKey('counter', (key, _text, panel) => {
    value += key === 'up' ? step : 0;
    panel.render({ lines: [String(value)] });
  });
  return ext;
}

describe('pressKey when two extensions have a panel of the same id', () => {
  it('needs { extension }, and resolves that extension\'s frame only', async () => {
    const t = await createTestHost({ extensions: [counterExtension('ones', 1), counterExtension('tens', 10)] });
    try {
      await t.command('/ones-counter');
      await t.command('/tens-counter');
      await expect(t.pressKey('counter', 'up')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(await t.pressKey('counter', 'up', undefined, { extension: 'tens' })).toMatchObject({ kind: 'render', panel: { extension: 'tens', lines: ['10'] } });
      expect(await t.pressKey('counter', 'up', undefined, { extension: 'ones' })).toMatchObject({ kind: 'render', panel: { extension: 'ones', lines: ['1'] } });
      await expect(t.pressKey('counter', 'up', undefined, { extension: 'nobody' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    } finally {
      await t.close();
    }
  });
});

describe('createTestHost failures', () => {
  it('rejects when an extension fails to load, after stopping the rest', async () => {
    await expect(createTestHost({ extensions: [fixture('faults/crash-before-hello'), notesExtension()] })).rejects.toMatchObject({
      code: 'EXITED_BEFORE_HELLO',
      extension: 'crash-before-hello',
    });
  });
});
