// zot's human-in-the-loop pattern (issue 30): a tool opens a panel by itself (spontaneous open_panel)
// and waits for the user's keys; register_tool.interactive takes the default deadline off its calls,
// and the documented bounds (signal, explicit timeoutMs, the user's close + grace, stop) still end them.
import { afterEach, describe, expect, it } from 'vitest';
import { createGate, PASSPHRASE } from '../../fixtures/sdk/gate/gate.js';
import { defineExtension, text } from '../../src/sdk/index.js';
import { createTestHost, type TestHost, type TestHostOptions } from '../../src/testing/index.js';
import { fixture } from '../helpers/fixtures.js';
import { textOf } from '../helpers/host.js';
import { SPAWN_WAIT_MS } from '../helpers/wait.js';

let t: TestHost | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function gateHost(options: Partial<TestHostOptions> = {}): Promise<TestHost> {
  t = await createTestHost({ extensions: [createGate()], ...options });
  return t;
}

describe('approve_action: y / n / esc / the user closing the panel', () => {
  it('lists the tool as interactive, opens its panel from inside the call, re-renders on other keys, answers "approved" on y', async () => {
    const host = await gateHost();
    expect(host.host.tools().find((tool) => tool.name === 'approve_action')).toMatchObject({ interactive: true, extension: 'gate' });
    const opened = host.nextOpenPanel('gate');
    const result = host.callTool('approve_action', { action: 'rm -rf build/' });
    expect(await opened).toEqual({ extension: 'gate', panelId: 'approve-1', title: 'Approval required', lines: ['  Action:  rm -rf build/'], footer: 'y approve · n deny · esc cancel' });
    expect(await host.pressKey('approve-1', 'rune', 'x')).toMatchObject({ kind: 'render', panel: { lines: ['  Action:  rm -rf build/', '', '  › press y or n'] } });
    expect(await host.pressKey('approve-1', 'rune', 'y')).toEqual({ kind: 'close', panelId: 'approve-1', by: 'extension', extension: 'gate' });
    const answer = await result;
    expect(answer.isError).toBe(false);
    expect(textOf(answer)).toBe('approved');
    expect(host.host.openPanels()).toEqual([]);
  });

  it('answers an error result on n and on esc', async () => {
    const host = await gateHost();
    for (const [key, typed] of [['rune', 'n'], ['esc', undefined]] as const) {
      const opened = host.nextOpenPanel('gate');
      const result = host.callTool('approve_action', { action: 'deploy' });
      const panel = await opened;
      await host.pressKey(panel.panelId, key, typed);
      const answer = await result;
      expect(answer).toMatchObject({ isError: true, failure: undefined });
      expect(textOf(answer)).toBe('denied by the user: deploy');
    }
  });

  it('answers an error result when the user closes the panel in the host', async () => {
    const host = await gateHost();
    const opened = host.nextOpenPanel('gate');
    const result = host.callTool('approve_action', { action: 'deploy' });
    expect(host.closePanel((await opened).panelId)).toBe(true);
    const answer = await result;
    expect(answer).toMatchObject({ isError: true, failure: undefined });
    expect(textOf(answer)).toBe('cancelled by the user: deploy');
  });
});

describe('secret: a masked passphrase that the model never sees', () => {
  it('reads runes and backspace, renders only the mask, and tells the model success or failure', async () => {
    const host = await gateHost();
    for (const [typed, expected] of [[PASSPHRASE, 'passphrase accepted'], ['nope', 'wrong passphrase']] as const) {
      const opened = host.nextOpenPanel('gate');
      const result = host.callTool('secret', {});
      const { panelId } = await opened;
      const renders: string[] = [];
      for (const ch of `${typed}!`) renders.push(...((await host.pressKey(panelId, 'rune', ch)) as { panel: { lines: string[] } }).panel.lines);
      renders.push(...((await host.pressKey(panelId, 'backspace')) as { panel: { lines: string[] } }).panel.lines);
      expect(renders.at(-2)).toBe(`  ${'•'.repeat(typed.length + 1)}`);
      expect(renders.at(-1)).toBe(`  ${'•'.repeat(typed.length)}`);
      expect(await host.pressKey(panelId, 'enter')).toMatchObject({ kind: 'close', by: 'extension' });
      const answer = await result;
      expect(textOf(answer)).toBe(expected);
      expect(answer.isError).toBe(expected !== 'passphrase accepted');
      expect(JSON.stringify([answer, host.record.panels])).not.toContain(typed);
    }
  });
});

describe('the bounds of an interactive call', () => {
  it('has no default deadline: timeouts.tool does not apply while the user decides', async () => {
    const host = await gateHost({ timeouts: { tool: 1 } });
    const opened = host.nextOpenPanel('gate');
    const result = host.callTool('approve_action', { action: 'slow human' });
    await host.pressKey((await opened).panelId, 'rune', 'x');
    await host.pressKey('approve-1', 'rune', 'y');
    expect(textOf(await result)).toBe('approved');
  });

  it('ends at an explicit timeoutMs of the caller, and on the caller\'s signal', async () => {
    const host = await gateHost();
    const timed = await host.callTool('approve_action', { action: 'a' }, { timeoutMs: 20 });
    expect(timed.failure?.code).toBe('TIMEOUT');
    const controller = new AbortController();
    const opened = host.nextOpenPanel((panel) => panel.panelId === 'approve-2');
    const aborted = host.callTool('approve_action', { action: 'b' }, { signal: controller.signal });
    await opened;
    controller.abort();
    expect((await aborted).failure?.code).toBe('ABORTED');
  });

  it('fails ABORTED after timeouts.interactiveGrace when the user closed its panel and no answer follows', async () => {
    // An extension that opens a panel and never answers, whatever the user does.
    const mute = defineExtension({ name: 'mute' }).tool('wait_forever', { interactive: true }, (_args, ctx) => {
      ctx.openPanel({ id: 'mute-1', lines: ['…'] });
      return new Promise<never>(() => undefined);
    });
    t = await createTestHost({ extensions: [mute], timeouts: { interactiveGrace: 30 } });
    const opened = t.nextOpenPanel('mute');
    const result = t.callTool('wait_forever', {});
    await opened;
    expect(t.closePanel('mute-1')).toBe(true);
    const answer = await result;
    expect(answer.failure?.code).toBe('ABORTED');
    expect(answer.failure?.message).toBe('tool wait_forever: the user closed panel "mute-1" and mute did not answer within 30 ms (timeouts.interactiveGrace)');
  });

  it('keeps waiting while another panel the call opened is still open, and a panel opened again re-arms it', async () => {
    const two = defineExtension({ name: 'two' }).tool('two_panels', { interactive: true }, (_args, ctx) =>
      new Promise((resolve) => {
        ctx.openPanel({ id: 'a', lines: ['a'] });
        ctx.openPanel({ id: 'b', lines: ['b'] }, { onKey: () => resolve(text('b answered')) });
      }),
    );
    t = await createTestHost({ extensions: [two], timeouts: { interactiveGrace: 1 } });
    const second = t.nextOpenPanel((panel) => panel.panelId === 'b');
    const result = t.callTool('two_panels', {});
    await second;
    expect(t.closePanel('a')).toBe(true);
    // "b" is open: no grace started; its key answers the call.
    expect(t.host.panelKey('b', 'enter')).toBe(true);
    expect(textOf(await result)).toBe('b answered');
  });

  it('settles when the host stops', async () => {
    const host = await gateHost();
    const opened = host.nextOpenPanel('gate');
    const result = host.callTool('approve_action', { action: 'a' });
    await opened;
    await host.host.stop();
    expect((await result).isError).toBe(true);
    expect((await result).failure).toBeDefined();
  });
});

describe('as a real subprocess', () => {
  it('runs approve_action end to end through the openPanel / renderPanel callbacks', async () => {
    t = await createTestHost({ extensions: [fixture('sdk/gate')], timeoutMs: SPAWN_WAIT_MS });
    const opened = t.nextOpenPanel('gate');
    const result = t.callTool('approve_action', { action: 'ship it' });
    const panel = await opened;
    expect(panel.lines).toEqual(['  Action:  ship it']);
    expect(await t.pressKey(panel.panelId, 'up')).toMatchObject({ kind: 'render' });
    expect(await t.pressKey(panel.panelId, 'rune', 'y')).toMatchObject({ kind: 'close', by: 'extension' });
    expect(textOf(await result)).toBe('approved');
  }, 20_000);

  it('runs the Python SDK fixture (gate-py) end to end: approve on y, secret accepted', async () => {
    t = await createTestHost({ extensions: [fixture('sdk/gate-py')], timeoutMs: SPAWN_WAIT_MS });
    expect(t.host.tools().map((tool) => [tool.name, tool.interactive])).toEqual([
      ['approve_action', true],
      ['secret', true],
    ]);
    let opened = t.nextOpenPanel('gate-py');
    const approved = t.callTool('approve_action', { action: 'ship it' });
    expect(await t.pressKey((await opened).panelId, 'rune', 'y')).toMatchObject({ kind: 'close', by: 'extension' });
    expect(textOf(await approved)).toBe('approved');
    opened = t.nextOpenPanel('gate-py');
    const secret = t.callTool('secret', {});
    const { panelId } = await opened;
    for (const ch of PASSPHRASE) await t.pressKey(panelId, 'rune', ch);
    await t.pressKey(panelId, 'enter');
    expect(textOf(await secret)).toBe('passphrase accepted');
  }, 20_000);
});
