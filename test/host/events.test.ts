// emit() to subscribers, notes (notify / clear_notes), display, submit, and a smoke test of the
// extension-backed intercept chain.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExtensionHostError } from '../../src/errors.js';
import type { ExtensionHost } from '../../src/host/host.js';
import type { HostWarning } from '../../src/host/types.js';
import { EVENT_NAMES } from '../../src/protocol/names.js';
import { fixture } from '../helpers/fixtures.js';
import { type Recorder, hostKit } from '../helpers/host.js';

const kit = hostKit();
let host: ExtensionHost;
let rec: Recorder;

/** The event frames an extension echoed back (kitchen: `notify "event <frame as received>"`). */
function echoed(extension: string): Record<string, unknown>[] {
  return rec
    .of('notify')
    .filter((n) => n.extension === extension && n.message.startsWith('event '))
    .map((n) => JSON.parse(n.message.slice('event '.length)) as Record<string, unknown>);
}

beforeAll(async () => {
  // A second kitchen under another manifest name: two subscribers for the same events.
  const twoDir = path.join(kit.dir, 'kitchen-two');
  mkdirSync(twoDir, { recursive: true });
  writeFileSync(path.join(twoDir, 'extension.json'), JSON.stringify({ name: 'kitchen-two', exec: path.join(fixture('extensions/kitchen'), 'kitchen.mjs') }));
  const started = await kit.start({
    explicit: [fixture('extensions/kitchen'), twoDir, fixture('extensions/hello-sh'), fixture('extensions/guard'), fixture('extensions/weather')],
  });
  ({ host, rec } = started);
  expect(started.report.failed).toEqual([]);
});

describe('emit()', () => {
  it('sends an event to its subscribers only and returns how many got it, without waiting for them', async () => {
    const sent = host.emit({ event: 'session_start' });
    expect(sent).toBe(2);
    expect(echoed('kitchen')).toEqual([]); // returned before any extension answered
    await rec.waitFor('notify', (n) => n.extension === 'kitchen-two' && n.message.includes('session_start'));
    await rec.waitFor('notify', (n) => n.extension === 'kitchen' && n.message.includes('session_start'));
    expect(echoed('kitchen')).toEqual([{ type: 'event', event: 'session_start' }]);
    expect(host.emit({ event: 'nobody_listens', x: 1 })).toBe(0);
  });

  it('delivers every known event with its fields, and custom events as given, in the order emitted', async () => {
    const events: { event: string; [field: string]: unknown }[] = [
      { event: 'turn_start', step: 1 },
      { event: 'tool_call', tool_id: 'c1', tool_name: 'bash', tool_args: { command: 'ls', n: [1, 2] } },
      { event: 'tool_confirmation_requested', tool_id: 'c1', tool_name: 'bash', tool_preview: 'ls' },
      { event: 'assistant_message', text: 'hello "world"\nline two' },
      { event: 'custom_thing', payload: { nested: [true, null] }, note: 'passes through' },
      { event: 'turn_end', stop: 'end_turn' },
    ];
    for (let step = 2; step <= 30; step++) events.push({ event: 'turn_start', step });
    const before = { kitchen: echoed('kitchen').length, two: echoed('kitchen-two').length };
    for (const event of events) expect(host.emit(event)).toBe(2);
    await rec.waitFor('notify', (n) => n.extension === 'kitchen' && n.message.includes('"step":30'));
    await rec.waitFor('notify', (n) => n.extension === 'kitchen-two' && n.message.includes('"step":30'));
    const expected = events.map((e) => ({ type: 'event', ...e }));
    expect(echoed('kitchen').slice(before.kitchen)).toEqual(expected);
    expect(echoed('kitchen-two').slice(before.two)).toEqual(expected);
  });

  it('throws INVALID_ARGUMENT for a known event with wrong fields, and sends nothing', () => {
    for (const bad of [{ event: 'turn_start' }, { event: 'turn_start', step: 'one' }, { event: 'tool_call', tool_id: 'x' }]) {
      let thrown: unknown;
      try {
        host.emit(bad);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ExtensionHostError);
      expect((thrown as ExtensionHostError).code).toBe('INVALID_ARGUMENT');
    }
  });
});

describe('sendEvent() and emit() by name', () => {
  it('sendEvent() is emit({ event }) under a clear name', async () => {
    expect(host.sendEvent({ event: 'turn_start', step: 99 })).toBe(2);
    await rec.waitFor('notify', (n) => n.extension === 'kitchen' && n.message.includes('"step":99'));
    await rec.waitFor('notify', (n) => n.extension === 'kitchen-two' && n.message.includes('"step":99'));
    expect(echoed('kitchen').at(-1)).toEqual({ type: 'event', event: 'turn_start', step: 99 });
    expect(() => host.sendEvent({ event: 'turn_start', step: 'one' } as unknown as { event: string })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it("emit('<lifecycle event>', payload) as JavaScript writes it throws INVALID_ARGUMENT naming sendEvent, and sends nothing", async () => {
    const before = echoed('kitchen').length;
    const untyped = host.emit.bind(host) as (name: string, ...args: unknown[]) => unknown;
    for (const name of EVENT_NAMES) {
      let thrown: unknown;
      try {
        untyped(name, { event: name, step: 1 });
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ExtensionHostError);
      expect(thrown).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(`host.sendEvent({ event: '${name}'`) });
    }
    // Frames to one extension arrive in order: the marker is the first thing it got since.
    host.sendEvent({ event: 'turn_start', step: 777 });
    await rec.waitFor('notify', (n) => n.extension === 'kitchen' && n.message.includes('"step":777'));
    await rec.waitFor('notify', (n) => n.extension === 'kitchen-two' && n.message.includes('"step":777'));
    expect(echoed('kitchen').slice(before)).toEqual([{ type: 'event', event: 'turn_start', step: 777 }]);
  });

  it("emit(name, ...) of a host event, or of the embedder's own name, still reaches host.on() listeners", () => {
    const warnings: HostWarning[] = [];
    const own: unknown[] = [];
    const onWarning = (w: HostWarning) => warnings.push(w);
    const onOwn = (x: unknown) => own.push(x);
    host.on('warning', onWarning);
    const untyped = host as unknown as { on(name: string, fn: (x: unknown) => void): void; off(name: string, fn: (x: unknown) => void): void; emit(name: string, ...args: unknown[]): boolean };
    untyped.on('my-agent:saved', onOwn);
    try {
      expect(host.emit('warning', { message: 'from the embedder' })).toBe(true);
      expect(untyped.emit('my-agent:saved', 42)).toBe(true);
    } finally {
      host.off('warning', onWarning);
      untyped.off('my-agent:saved', onOwn);
    }
    expect(warnings).toEqual([{ message: 'from the embedder' }]);
    expect(own).toEqual([42]);
  });
});

describe('notes, display and submit', () => {
  it('passes notify through with its level and the extension name', async () => {
    expect(await rec.waitFor('notify', (n) => n.extension === 'hello-sh')).toEqual({ extension: 'hello-sh', level: 'success', message: 'hello-sh ready' });
  });

  it('shows an unknown level as info (the raw level in rawLevel), with a diagnostic', async () => {
    const mark = rec.mark();
    await host.runCommand('/badlevel');
    expect(rec.since(mark, 'notify')).toEqual([{ extension: 'kitchen', level: 'info', rawLevel: 'loud', message: 'x' }]);
    const diagnostic = host.diagnostics().find((d) => d.code === 'UNKNOWN_LEVEL');
    expect(diagnostic).toMatchObject({ extension: 'kitchen', severity: 'warning' });
    expect(diagnostic!.message).toContain('"loud"');
  });

  it('clears the notes of one extension', async () => {
    const mark = rec.mark();
    await host.runCommand('/clear');
    expect(rec.since(mark, 'clearNotes')).toEqual([{ extension: 'kitchen' }]);
  });

  it('submits text from an extension, after its notify and before the command answer', async () => {
    const mark = rec.mark();
    const outcome = await host.runCommand('/bg deploy now');
    expect(outcome).toMatchObject({ handled: true, action: 'noop' });
    expect(rec.calls.slice(mark)).toEqual([
      { kind: 'notify', arg: { extension: 'kitchen', level: 'info', message: 'working: deploy now' } },
      { kind: 'submit', arg: { extension: 'kitchen', text: 'deploy now' } },
    ]);
  });

  it('ignores a whitespace-only submit', async () => {
    const mark = rec.mark();
    // The submit frame comes before the response on the same stream: it was handled by now.
    expect(await host.runCommand('/blank')).toMatchObject({ handled: true, action: 'noop' });
    expect(rec.since(mark, 'submit')).toEqual([]);
  });

  it('ignores submit entirely when the agent has no submit callback', async () => {
    const { host: printHost, rec: printRec } = await kit.start({ explicit: [fixture('extensions/kitchen')], omit: ['submit'] });
    const outcome = await printHost.runCommand('/bg quietly');
    expect(outcome).toMatchObject({ handled: true, action: 'noop', failure: undefined });
    expect(printRec.of('notify')).toEqual([{ extension: 'kitchen', level: 'info', message: 'working: quietly' }]);
    expect(printRec.of('warning')).toEqual([]);
    expect(printHost.diagnostics()).toEqual([]);
    await printHost.stop();
  });
});

describe('intercepts (smoke: the chain itself is tested elsewhere)', () => {
  it('asks the guard extension and applies its block and rewrite', async () => {
    const blocked = await host.intercepts.toolCall({ toolId: 'c1', toolName: 'bash', args: { command: 'rm -rf /' } });
    expect(blocked).toMatchObject({ block: true, blockedBy: 'guard', reason: 'refused: matches danger pattern "rm -rf"' });
    const rewritten = await host.intercepts.toolCall({ toolId: 'c2', toolName: 'bash', args: { command: 'ls' } });
    expect(rewritten).toMatchObject({ block: false, modified: true, args: { command: 'echo GUARDED: ls' } });
    const allowed = await host.intercepts.toolCall({ toolId: 'c3', toolName: 'read', args: { path: 'x' } });
    expect(allowed).toMatchObject({ block: false, modified: false, args: { path: 'x' } });
    expect(host.extensions().find((e) => e.name === 'guard')!.subscriptions).toEqual({ events: [], intercept: ['tool_call'] });
  });
});

describe('hello name mismatch', () => {
  it('uses the manifest name and records a diagnostic', () => {
    const diagnostic = host.diagnostics().find((d) => d.code === 'HELLO_NAME_MISMATCH');
    expect(diagnostic).toMatchObject({ extension: 'kitchen-two' });
    expect(host.extensions().map((e) => e.name)).toContain('kitchen-two');
  });
});
