// zot's leniency, where an extension that works under zot must work here (fixtures/faults/lenient):
// unknown content blocks, empty results, empty prompts, renders for its own panel after it closed,
// key names outside the spec.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExtensionHost } from '../../src/host/host.js';
import { fixture } from '../helpers/fixtures.js';
import { type Recorder, hostKit } from '../helpers/host.js';
import { waitUntil } from '../helpers/wait.js';

const kit = hostKit();
let host: ExtensionHost;
let rec: Recorder;

beforeAll(async () => {
  const started = await kit.start({ explicit: [fixture('faults/lenient'), fixture('extensions/todo')] });
  ({ host, rec } = started);
  expect(started.report.failed).toEqual([]);
});

const lenient = () => host.extensions().find((e) => e.name === 'lenient')!;
const refused = () => host.diagnostics().filter((d) => d.code === 'PANEL_REFUSED');

describe('tool results', () => {
  it('keeps the other blocks and turns a block of an unknown type into a text placeholder', async () => {
    expect(await host.callTool('mixed', {})).toEqual({
      content: [
        { type: 'text', text: 'before' },
        { type: 'text', text: '[unsupported content block: audio]' },
        { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
        { type: 'text', text: '[unsupported content block: resource]' },
        { type: 'text', text: 'after' },
      ],
      isError: false,
      extension: 'lenient',
      activatedTools: [],
      failure: undefined,
    });
  });

  it('answers an empty or missing content with one short text (providers need one)', async () => {
    for (const tool of ['empty', 'nocontent']) {
      expect(await host.callTool(tool, {})).toMatchObject({ content: [{ type: 'text', text: '(extension returned no content)' }], isError: false, failure: undefined });
    }
    // Each result gets its own block: changing one never changes the next.
    const first = await host.callTool('empty', {});
    (first.content[0] as { text: string }).text = 'changed';
    expect((await host.callTool('empty', {})).content).toEqual([{ type: 'text', text: '(extension returned no content)' }]);
  });
});

describe('prompt actions', () => {
  it('ignores a prompt that is blank or missing: no callback, no failure, no warning', async () => {
    const mark = rec.mark();
    expect(await host.runCommand('/blankprompt')).toMatchObject({ handled: true, action: 'prompt', text: ' \t ', failure: undefined });
    expect(await host.runCommand('/noprompt')).toMatchObject({ handled: true, action: 'prompt', text: undefined, failure: undefined });
    expect(rec.since(mark, 'prompt')).toEqual([]);
    expect(rec.since(mark, 'warning')).toEqual([]);
    expect(host.diagnostics().filter((d) => d.code === 'BAD_RESPONSE')).toEqual([]);
  });
});

describe('panels', () => {
  it('drops renders and a close for its own panel after it closed, quietly, and counts them', async () => {
    await host.runCommand('/panel');
    expect(host.closePanel('lenient-panel')).toBe(true);
    const mark = rec.mark();
    await host.runCommand('/stale'); // three panel_render and a panel_close, all after the close
    expect(rec.since(mark, 'renderPanel')).toEqual([]);
    expect(rec.since(mark, 'closePanel')).toEqual([]);
    expect(refused()).toEqual([]);
    expect(lenient().latePanelFrames).toBe(4);
    // One line in its log per close, not one per frame (the host appends to the log asynchronously).
    const dropped = () => readFileSync(lenient().logPath, 'utf8').match(/after it closed: dropped/g)?.length ?? 0;
    await waitUntil('the log names the dropped render', () => dropped() > 0);
    expect(dropped()).toBe(1);
  });

  it('still refuses frames for a panel that was never open, and for another extension\'s closed panel', async () => {
    await host.runCommand('/stale');
    expect(lenient().latePanelFrames).toBe(8); // still its own closed panel
    await host.runCommand('/todo');
    host.panelKey('todos-main', 'esc');
    await rec.waitFor('closePanel', (p) => p.panelId === 'todos-main');
    await host.runCommand('/foreign'); // a render of todo's closed panel
    expect(refused().map((d) => d.message)).toEqual(['lenient: panel_render for panel "todos-main", which is not open; refused']);
    expect(lenient().latePanelFrames).toBe(8);
  });

  it('renders again once it reopens the panel', async () => {
    await host.runCommand('/panel');
    const mark = rec.mark();
    await host.runCommand('/stale');
    expect(rec.since(mark, 'renderPanel').map((p) => p.lines)).toEqual([['stale 0'], ['stale 1'], ['stale 2']]);
    expect(rec.since(mark, 'closePanel')).toEqual([{ extension: 'lenient', panelId: 'lenient-panel', by: 'extension' }]);
  });

  it('forwards a key name outside the spec as it is', async () => {
    await host.runCommand('/panel');
    expect(host.panelKey('lenient-panel', 'unknown')).toBe(true);
    expect(await rec.waitFor('notify', (n) => n.message.startsWith('key '))).toEqual({ extension: 'lenient', level: 'info', message: 'key unknown' });
  });
});
