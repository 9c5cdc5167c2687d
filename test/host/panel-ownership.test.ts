// Panels are owned per extension (issue 16): main-a and main-b both use the panel id "main"; each
// pair (extension, id) is its own panel, keys and closes reach the one named, neither can drive the other's.
import { beforeAll, describe, expect, it } from 'vitest';
import { ExtensionHostError } from '../../src/errors.js';
import type { ExtensionHost } from '../../src/host/host.js';
import { fixture } from '../helpers/fixtures.js';
import { type Recorder, hostKit } from '../helpers/host.js';

const kit = hostKit();
let host: ExtensionHost;
let rec: Recorder;

const view = (extension: string, line: string) => ({ extension, panelId: 'main', title: extension, lines: [line], footer: undefined });
const refusals = (extension: string) => host.diagnostics().filter((d) => d.code === 'PANEL_REFUSED' && d.extension === extension);

function thrown(call: () => unknown): ExtensionHostError {
  try {
    call();
  } catch (err) {
    expect(err).toBeInstanceOf(ExtensionHostError);
    return err as ExtensionHostError;
  }
  throw new Error('did not throw');
}

beforeAll(async () => {
  const started = await kit.start({ explicit: [fixture('conflict/main-a'), fixture('conflict/main-b')] });
  ({ host, rec } = started);
  expect(started.report.failed).toEqual([]);
});

describe('two extensions with the panel id "main"', () => {
  it('refuses a frame for "main" from an extension that has not opened it, while the other has', async () => {
    expect(await host.runCommand('/main-a')).toMatchObject({ extension: 'main-a', action: 'open_panel', panel: view('main-a', 'main-a open') });
    const mark = rec.mark();
    expect(await host.runCommand('/main-b-poke')).toMatchObject({ extension: 'main-b', action: 'noop' });
    expect(rec.since(mark, 'renderPanel')).toEqual([]);
    expect(rec.since(mark, 'closePanel')).toEqual([]);
    expect(host.openPanels()).toEqual([{ panelId: 'main', extension: 'main-a' }]);
    const refused = refusals('main-b');
    expect(refused.map((d) => d.message)).toEqual([
      'main-b: panel_render for panel "main", which belongs to main-a; refused',
      'main-b: panel_close for panel "main", which belongs to main-a; refused',
    ]);
    // With one owner, the id alone is enough.
    expect(host.panelKey('main', 'down')).toBe(true);
    expect(await rec.waitFor('renderPanel', (p) => p.lines[0] === 'main-a key down')).toEqual(view('main-a', 'main-a key down'));
  });

  it('opens both, each its own panel', async () => {
    const mark = rec.mark();
    expect(await host.runCommand('/main-b')).toMatchObject({ extension: 'main-b', panel: view('main-b', 'main-b open'), failure: undefined });
    expect(rec.since(mark, 'openPanel')).toEqual([view('main-b', 'main-b open')]);
    expect(host.openPanels()).toEqual([
      { panelId: 'main', extension: 'main-a' },
      { panelId: 'main', extension: 'main-b' },
    ]);
  });

  it('throws INVALID_ARGUMENT naming both when panelKey or closePanel does not say whose "main"', () => {
    for (const call of [() => host.panelKey('main', 'up'), () => host.closePanel('main')]) {
      const err = thrown(call);
      expect(err.code).toBe('INVALID_ARGUMENT');
      expect(err.message).toContain('main-a, main-b');
      expect(err.message).toContain('{ extension }');
    }
    expect(thrown(() => host.panelKey('main', 'up', undefined, { extension: 7 as unknown as string })).code).toBe('INVALID_ARGUMENT');
    expect(host.openPanels()).toHaveLength(2);
  });

  it('sends keys to the extension named, and returns false for one without that panel', async () => {
    const mark = rec.mark();
    expect(host.panelKey('main', 'up', undefined, { extension: 'main-b' })).toBe(true);
    expect(host.panelKey('main', 'left', undefined, { extension: 'main-a' })).toBe(true);
    await rec.waitFor('renderPanel', () => rec.since(mark, 'renderPanel').length === 2);
    expect(rec.since(mark, 'renderPanel').sort((x, y) => x.extension.localeCompare(y.extension))).toEqual([view('main-a', 'main-a key left'), view('main-b', 'main-b key up')]);
    expect(host.panelKey('main', 'up', undefined, { extension: 'nobody' })).toBe(false);
    expect(host.closePanel('main', { extension: 'nobody' })).toBe(false);
  });

  it("an extension's own frames for \"main\" render and close only its panel", async () => {
    const mark = rec.mark();
    expect(await host.runCommand('/main-b-poke')).toMatchObject({ extension: 'main-b', action: 'noop' });
    expect(await rec.waitFor('closePanel', (p) => p.extension === 'main-b')).toEqual({ extension: 'main-b', panelId: 'main', by: 'extension' });
    expect(rec.since(mark, 'renderPanel')).toEqual([view('main-b', 'main-b poked')]);
    expect(host.openPanels()).toEqual([{ panelId: 'main', extension: 'main-a' }]);
    expect(refusals('main-b')).toHaveLength(2); // only the two of the first test
  });

  it("counts late frames for an extension's own closed \"main\" while the other's stays open", async () => {
    const late = () => host.extensions().find((e) => e.name === 'main-b')!.latePanelFrames;
    const before = late();
    const mark = rec.mark();
    expect(await host.runCommand('/main-b-poke')).toMatchObject({ action: 'noop' });
    // A later command's answer comes after both frames of the poke: they were seen.
    expect(await host.runCommand('/main-a-poke')).toMatchObject({ action: 'noop' });
    expect(late()).toBe(before + 2);
    expect(refusals('main-b')).toHaveLength(2);
    expect(rec.since(mark, 'renderPanel')).toEqual([view('main-a', 'main-a poked')]);
    expect(await rec.waitFor('closePanel', (p) => p.extension === 'main-a')).toEqual({ extension: 'main-a', panelId: 'main', by: 'extension' });
    expect(await host.runCommand('/main-a')).toMatchObject({ panel: view('main-a', 'main-a open') });
  });

  it('closes from the host the one named, telling only its extension', async () => {
    expect(await host.runCommand('/main-b')).toMatchObject({ panel: view('main-b', 'main-b open') });
    expect(host.openPanels()).toHaveLength(2);
    const mark = rec.mark();
    expect(host.closePanel('main', { extension: 'main-a' })).toBe(true);
    expect(await rec.waitFor('notify', (n) => n.message === 'main-a panel closed')).toMatchObject({ extension: 'main-a' });
    expect(host.openPanels()).toEqual([{ panelId: 'main', extension: 'main-b' }]);
    expect(rec.since(mark, 'notify').map((n) => n.message)).toEqual(['main-a panel closed']);
    expect(rec.since(mark, 'closePanel')).toEqual([]);
  });

  it('closes only the panels of the extension that exits', async () => {
    expect(await host.runCommand('/main-a')).toMatchObject({ panel: view('main-a', 'main-a open') });
    const mark = rec.mark();
    const exited = host.runCommand('/main-a-exit');
    expect(await rec.waitFor('closePanel', (p) => p.extension === 'main-a' && p.by === 'exit')).toEqual({ extension: 'main-a', panelId: 'main', by: 'exit' });
    expect(await exited).toMatchObject({ handled: true, extension: 'main-a' });
    expect(rec.since(mark, 'closePanel')).toHaveLength(1);
    expect(host.openPanels()).toEqual([{ panelId: 'main', extension: 'main-b' }]);
    expect(host.panelKey('main', 'down')).toBe(true);
    expect(await rec.waitFor('renderPanel', (p) => p.lines[0] === 'main-b key down')).toEqual(view('main-b', 'main-b key down'));
  });
});
