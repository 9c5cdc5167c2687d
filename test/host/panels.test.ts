// Panels: open -> keys -> renders -> close (by the extension, by the host, by exit), and ownership:
// frames about another extension's panel are refused; another extension may open the same id as its own.
import { beforeAll, describe, expect, it } from 'vitest';
import { ExtensionHostError } from '../../src/errors.js';
import type { ExtensionHost } from '../../src/host/host.js';
import type { PanelKey } from '../../src/host/types.js';
import { fixture } from '../helpers/fixtures.js';
import { type Recorder, hostKit } from '../helpers/host.js';

const kit = hostKit();
let host: ExtensionHost;
let rec: Recorder;

const FOOTER = '↑/↓ navigate - x complete - esc close';
const todoView = (lines: string[]) => ({ extension: 'todo', panelId: 'todos-main', title: 'Todos', lines, footer: FOOTER });

beforeAll(async () => {
  const started = await kit.start({ explicit: [fixture('extensions/todo'), fixture('extensions/kitchen'), fixture('conflict/panel-thief')] });
  ({ host, rec } = started);
  expect(started.report.failed).toEqual([]);
});

describe('a panel from open to close', () => {
  it('opens a panel from a command response', async () => {
    const outcome = await host.runCommand('/todo');
    const view = todoView(['› □ ship panel api', '  □ persist state']);
    expect(outcome).toMatchObject({ handled: true, action: 'open_panel', panel: view });
    expect(rec.of('openPanel')).toEqual([view]);
    expect(host.openPanels()).toEqual([{ panelId: 'todos-main', extension: 'todo' }]);
  });

  it('sends keys to the owner and passes its renders on, in order', async () => {
    const mark = rec.mark();
    const keys: [PanelKey, string?][] = [['down'], ['rune', 'x'], ['up'], ['up'], ['left']];
    for (const [key, text] of keys) expect(host.panelKey('todos-main', key, text)).toBe(true);
    // todo ignores "left"; a last "down" marks the end of the sequence.
    expect(host.panelKey('todos-main', 'down')).toBe(true);
    await rec.waitFor('renderPanel', () => rec.since(mark, 'renderPanel').length === 5);
    expect(rec.since(mark, 'renderPanel')).toEqual([
      todoView(['  □ ship panel api', '› □ persist state']),
      todoView(['  □ ship panel api', '› ✓ persist state']),
      todoView(['› □ ship panel api', '  ✓ persist state']),
      todoView(['› □ ship panel api', '  ✓ persist state']), // clamped, rendered anyway
      todoView(['  □ ship panel api', '› ✓ persist state']),
    ]);
  });

  it('forwards a key name outside the spec (as zot does), refuses an empty one, and keys for a panel nobody owns', () => {
    expect(host.panelKey('todos-main', 'unknown')).toBe(true); // todo ignores it
    for (const key of ['', 7 as unknown as PanelKey]) {
      let thrown: unknown;
      try {
        host.panelKey('todos-main', key);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ExtensionHostError);
      expect((thrown as ExtensionHostError).code).toBe('INVALID_ARGUMENT');
    }
    expect(host.panelKey('no-such-panel', 'up')).toBe(false);
  });

  it("refuses a render of another extension's panel, with a diagnostic", async () => {
    const mark = rec.mark();
    expect(await host.runCommand('/foreign')).toMatchObject({ handled: true, extension: 'kitchen', action: 'noop' });
    expect(rec.since(mark, 'renderPanel')).toEqual([]);
    const refused = host.diagnostics().filter((d) => d.code === 'PANEL_REFUSED' && d.extension === 'kitchen');
    expect(refused).toHaveLength(1);
    expect(refused[0]!.message).toContain('belongs to todo');
  });

  // Issue 16: this used to refuse the second opener (BAD_RESPONSE, PANEL_REFUSED): the first one squatted the id.
  it('lets another extension open the same id as its own panel, beside the first', async () => {
    const mark = rec.mark();
    const outcome = await host.runCommand('/steal');
    const stolen = { extension: 'panel-thief', panelId: 'todos-main', title: 'Stolen', lines: ['mine now'], footer: undefined };
    expect(outcome).toMatchObject({ handled: true, extension: 'panel-thief', action: 'open_panel', panel: stolen, failure: undefined });
    expect(rec.since(mark, 'openPanel')).toEqual([stolen]);
    expect(host.openPanels()).toEqual([
      { panelId: 'todos-main', extension: 'todo' },
      { panelId: 'todos-main', extension: 'panel-thief' },
    ]);
    expect(() => host.panelKey('todos-main', 'up')).toThrow(/open in several extensions \(todo, panel-thief\); pass \{ extension \}/);
    expect(host.closePanel('todos-main', { extension: 'panel-thief' })).toBe(true);
    expect(host.openPanels()).toEqual([{ panelId: 'todos-main', extension: 'todo' }]);
    expect(host.diagnostics().filter((d) => d.code === 'PANEL_REFUSED' && d.extension === 'panel-thief')).toEqual([]);
  });

  it('closes when the extension sends panel_close (esc)', async () => {
    const mark = rec.mark();
    host.panelKey('todos-main', 'esc');
    expect(await rec.waitFor('closePanel')).toEqual({ extension: 'todo', panelId: 'todos-main', by: 'extension' });
    expect(rec.since(mark, 'closePanel')).toHaveLength(1);
    expect(host.openPanels()).toEqual([]);
    expect(host.panelKey('todos-main', 'up')).toBe(false);
  });

  it('reopens with the state the extension kept', async () => {
    const outcome = await host.runCommand('/todo');
    expect(outcome).toMatchObject({ panel: todoView(['  □ ship panel api', '› ✓ persist state']) });
  });

  it('closes from the host: tells the owner (panel_close) without calling closePanel back', async () => {
    const mark = rec.mark();
    expect(host.closePanel('todos-main')).toBe(true);
    expect(await rec.waitFor('notify', (n) => n.message === 'todo panel closed')).toEqual({ extension: 'todo', level: 'info', message: 'todo panel closed' });
    expect(rec.since(mark, 'closePanel')).toEqual([]);
    expect(host.openPanels()).toEqual([]);
    expect(host.closePanel('todos-main')).toBe(false);
  });

  it('lets another extension use the id once the panel is closed, and routes keys to the new owner', async () => {
    const outcome = await host.runCommand('/steal');
    expect(outcome).toMatchObject({ extension: 'panel-thief', panel: { extension: 'panel-thief', panelId: 'todos-main', title: 'Stolen', lines: ['mine now'] }, failure: undefined });
    host.panelKey('todos-main', 'enter');
    expect(await rec.waitFor('renderPanel', (p) => p.extension === 'panel-thief')).toEqual({ extension: 'panel-thief', panelId: 'todos-main', title: 'Stolen', lines: ['mine now', 'key enter'], footer: undefined });
    expect(host.closePanel('todos-main')).toBe(true);
  });
});

describe('a panel whose extension exits', () => {
  it('is closed with by: "exit"', async () => {
    expect(await host.runCommand('/panel')).toMatchObject({ panel: { extension: 'kitchen', panelId: 'kitchen-panel' } });
    const mark = rec.mark();
    const crash = await host.callTool('crash', {});
    expect(crash.failure?.code).toBe('PROCESS_EXITED');
    expect(await rec.waitFor('closePanel', (p) => p.panelId === 'kitchen-panel')).toEqual({ extension: 'kitchen', panelId: 'kitchen-panel', by: 'exit' });
    expect(rec.since(mark, 'closePanel')).toHaveLength(1);
    expect(host.openPanels()).toEqual([]);
  });
});
