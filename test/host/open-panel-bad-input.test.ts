// Bad input around zot's additions of issue 30 (spontaneous open_panel, register_tool.interactive,
// command_response tool_prompt): wrong types, a panel id another extension has open, floods, and
// open_panel without the panels scope. Each case ends with a marker note, so that every frame before
// it has been handled when the test looks (frames of one extension are handled in order).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ExtensionHostOptions, InMemoryExtension } from '../../src/host/types.js';
import { hostKit } from '../helpers/host.js';
import { collectFrames } from '../helpers/memory-extension.js';
import { MEMORY_WAIT_MS, waitUntil } from '../helpers/wait.js';

const kit = hostKit();
type Json = Record<string, unknown>;

/** An extension that writes the given frames, line by line, after hello_ack; then a marker note. */
function raw(name: string) {
  const toHost = new PassThrough();
  const fromHost = new PassThrough();
  const received = collectFrames(fromHost);
  const memory: InMemoryExtension = {
    name,
    connect: () => {
      toHost.write(`${JSON.stringify({ type: 'hello', name })}\n${JSON.stringify({ type: 'ready' })}\n`);
      return { input: fromHost, output: toHost, close: () => toHost.end() };
    },
  };
  const write = (...frames: (Json | string)[]) => {
    for (const frame of frames) toHost.write(`${typeof frame === 'string' ? frame : JSON.stringify(frame)}\n`);
  };
  return { memory, write, received };
}

async function start(options: ExtensionHostOptions, ...exts: ReturnType<typeof raw>[]) {
  return kit.start({ ...options, inMemory: exts.map((e) => e.memory) });
}

describe('spontaneous open_panel: bad input', () => {
  it('drops open_panel frames of the wrong shape (INVALID_FRAME), and register_tool / tool_prompt fields of the wrong type', async () => {
    const ext = raw('bad');
    const { host, rec } = await start({}, ext);
    ext.write(
      { type: 'open_panel' },
      { type: 'open_panel', panel: 'p' },
      { type: 'open_panel', panel: { id: '' } },
      { type: 'open_panel', panel: { id: 'p', lines: [1] } },
      { type: 'open_panel', panel: { id: 'p', title: 7 } },
      { type: 'register_tool', name: 'maybe', interactive: 'yes' },
      { type: 'notify', message: 'marker' },
    );
    await rec.waitFor('notify', (n) => n.message === 'marker');
    expect(rec.of('openPanel')).toEqual([]);
    expect(host.tools()).toEqual([]);
    const invalid = host.diagnostics().filter((d) => d.code === 'INVALID_FRAME' && d.extension === 'bad');
    expect(invalid.length).toBeGreaterThanOrEqual(5);
    expect(host.openPanels()).toEqual([]);
  });

  it('a command answering tool_prompt with tool_args that are no object fails BAD_RESPONSE', async () => {
    const ext = raw('prompter');
    const { host } = await start({}, ext);
    const registered = new Promise<void>((resolve) => host.once('commands:changed', () => resolve()));
    ext.write({ type: 'register_command', name: 'go' });
    await registered;
    const outcome = host.runCommand('/go');
    await waitUntil('the command_invoked frame', () => ext.received.some((f) => f.type === 'command_invoked'), MEMORY_WAIT_MS);
    const id = ext.received.find((f) => f.type === 'command_invoked')!.id as string;
    ext.write({ type: 'command_response', id, action: 'tool_prompt', prompt: 'p', tool_name: 'skill', tool_args: [1] });
    expect((await outcome) as Json).toMatchObject({ handled: true, action: 'noop', failure: { code: 'BAD_RESPONSE' } });
  });

  it('a panel id another extension has open: each has its own; keys need { extension }, and neither drives the other', async () => {
    const a = raw('alpha');
    const b = raw('beta');
    const { host, rec } = await start({}, a, b);
    a.write({ type: 'open_panel', panel: { id: 'shared', lines: ['a'] } });
    await rec.waitFor('openPanel', (p) => p.extension === 'alpha');
    b.write({ type: 'open_panel', panel: { id: 'shared', lines: ['b'] } });
    await rec.waitFor('openPanel', (p) => p.extension === 'beta');
    expect(host.openPanels()).toEqual([
      { panelId: 'shared', extension: 'alpha' },
      { panelId: 'shared', extension: 'beta' },
    ]);
    expect(() => host.panelKey('shared', 'up')).toThrow(/open in several extensions/);
    expect(host.panelKey('shared', 'up', undefined, { extension: 'beta' })).toBe(true);
    // beta closes its own; alpha's stays and is alpha's alone.
    b.write({ type: 'panel_close', panel_id: 'shared' }, { type: 'notify', message: 'marker' });
    await rec.waitFor('notify', (n) => n.extension === 'beta' && n.message === 'marker');
    expect(host.openPanels()).toEqual([{ panelId: 'shared', extension: 'alpha' }]);
    expect(rec.of('closePanel')).toEqual([{ extension: 'beta', panelId: 'shared', by: 'extension' }]);
    // A render of beta's now closed panel is dropped quietly; alpha never got beta's key.
    b.write({ type: 'panel_render', panel_id: 'shared', lines: ['late'] }, { type: 'notify', message: 'marker 2' });
    await rec.waitFor('notify', (n) => n.message === 'marker 2');
    expect(rec.of('renderPanel')).toEqual([]);
    await waitUntil("beta's panel_key", () => b.received.some((f) => f.type === 'panel_key'), MEMORY_WAIT_MS);
    expect(a.received.filter((f) => f.type === 'panel_key')).toEqual([]);
    expect(b.received.filter((f) => f.type === 'panel_key')).toEqual([{ type: 'panel_key', panel_id: 'shared', key: 'up' }]);
  });

  it('bounds a flood of open_panel frames (rateLimits.openPanel, 5 per window by default) with one RATE_LIMITED diagnostic', async () => {
    const ext = raw('flood');
    const { host, rec } = await start({ rateLimits: { windowMs: 60_000 } }, ext);
    ext.write(...Array.from({ length: 1000 }, (_, i) => ({ type: 'open_panel', panel: { id: `p${i}` } })), { type: 'notify', message: 'marker' });
    await rec.waitFor('notify', (n) => n.message === 'marker');
    expect(rec.of('openPanel').map((p) => p.panelId)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
    await host.stop();
    expect(host.diagnostics().filter((d) => d.code === 'RATE_LIMITED')).toEqual([expect.objectContaining({ extension: 'flood', message: expect.stringContaining('995 open_panel frames dropped: more than 5 within 60000 ms (rateLimits.openPanel)') })]);
  });

  it('refuses open_panel without the panels scope (one PERMISSION_DENIED, the rest counted)', async () => {
    const ext = raw('nopanels');
    const { host, rec } = await start({ permissions: { default: { notes: true } } }, ext);
    ext.write({ type: 'open_panel', panel: { id: 'p' } }, { type: 'open_panel', panel: { id: 'q' } }, { type: 'notify', message: 'marker' });
    await rec.waitFor('notify', (n) => n.message === 'marker');
    expect(rec.of('openPanel')).toEqual([]);
    expect(host.openPanels()).toEqual([]);
    expect(host.diagnostics().filter((d) => d.code === 'PERMISSION_DENIED')).toEqual([expect.objectContaining({ extension: 'nopanels', message: expect.stringContaining('a panel refused: its permissions do not include "panels"') })]);
  });
});
