// ctx.ask / ctx.openPanel (issue 30): a tool that waits for the user's keys in a panel it opens itself.
// The approve tool below is the one docs/writing-extensions.md shows ("Panels a tool opens").
import { afterEach, describe, expect, it } from 'vitest';
import { defineExtension, text, toolError } from '../../src/sdk/index.js';
import { createTestHost, type TestHost } from '../../src/testing/index.js';

let t: TestHost | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

function approver() {
  const ext = defineExtension({ name: 'approver' });
  ext.tool('approve', { description: 'Asks the user first.', interactive: true, schema: { type: 'object' } }, async (args, ctx) => {
    const answer = await ctx.ask({ title: 'Approve?', lines: [String(args.action)], footer: 'y / n' }, (key, typed, panel) => {
      if (key === 'rune' && (typed === 'y' || typed === 'n')) return typed;
      panel.render({ title: 'Approve?', lines: [String(args.action), 'press y or n'], footer: 'y / n' });
      return undefined; // not answered yet: keep waiting
    });
    // undefined: the user closed the panel, or the call was cancelled
    return answer === 'y' ? text('approved') : toolError('denied');
  });
  return ext;
}

describe('ctx.ask', () => {
  it('opens the panel from the tool call, waits for the answer, closes the panel', async () => {
    t = await createTestHost({ extensions: [approver()] });
    const opened = t.nextOpenPanel();
    const result = t.callTool('approve', { action: 'deploy' });
    const panel = await opened;
    expect(panel).toMatchObject({ panelId: 'panel-1', title: 'Approve?', lines: ['deploy'] });
    expect(await t.pressKey(panel.panelId, 'down')).toMatchObject({ kind: 'render', panel: { lines: ['deploy', 'press y or n'] } });
    expect(await t.pressKey(panel.panelId, 'rune', 'y')).toMatchObject({ kind: 'close', by: 'extension' });
    expect((await result).content).toEqual([{ type: 'text', text: 'approved' }]);
  });

  it('resolves undefined when the call is cancelled, and closes its panel', async () => {
    t = await createTestHost({ extensions: [approver()], capabilities: ['cancel'] });
    const opened = t.nextOpenPanel();
    const controller = new AbortController();
    const result = t.callTool('approve', { action: 'x' }, { signal: controller.signal });
    const panel = await opened;
    const closed = t.nextPanelFrame(panel.panelId);
    controller.abort();
    expect((await result).failure?.code).toBe('ABORTED');
    expect(await closed).toMatchObject({ kind: 'close', by: 'extension' });
  });
});

describe('ctx.openPanel', () => {
  it('registers the handlers before the frame goes out, refuses an id it has open, and drops the handlers at close', async () => {
    const keys: string[] = [];
    let duplicate: unknown;
    const ext = defineExtension({ name: 'opener' }).tool('open', { interactive: true }, (_args, ctx) =>
      new Promise((resolve) => {
        ctx.openPanel({ id: 'p', lines: ['a'] }, { onKey: (key) => void keys.push(key), onClose: () => resolve(text('closed')) });
        try {
          ctx.openPanel({ id: 'p' });
        } catch (err) {
          duplicate = err;
        }
      }),
    );
    t = await createTestHost({ extensions: [ext] });
    const opened = t.nextOpenPanel();
    const result = t.callTool('open', {});
    await opened;
    t.host.panelKey('p', 'up');
    t.closePanel('p');
    expect((await result).content).toEqual([{ type: 'text', text: 'closed' }]);
    expect(keys).toEqual(['up']);
    expect(duplicate).toMatchObject({ code: 'INVALID_DEFINITION', message: 'openPanel: panel "p" is already open' });
  });
});
