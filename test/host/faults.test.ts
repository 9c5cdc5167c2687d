// Faults never bring the host down: garbage frames, a crash mid-call, and agent callbacks that
// throw (the fault suite with one fixture per fault is test/faults/).
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExtensionHost } from '../../src/host/host.js';
import type { ExtensionState } from '../../src/host/types.js';
import { fixture } from '../helpers/fixtures.js';
import { type Recorder, hostKit, textOf } from '../helpers/host.js';
import { nextEvent } from '../helpers/wait.js';

const kit = hostKit();
const kitchen = fixture('extensions/kitchen');

describe('garbage on stdout', () => {
  it('counts every bad line as a diagnostic and keeps the extension working', async () => {
    const { host, report } = await kit.start({ explicit: [fixture('faults/garbage')] });
    expect(report.loaded).toMatchObject([{ name: 'garbage', readyVia: 'ready' }]);
    const codes = host
      .diagnostics()
      .filter((d) => d.extension === 'garbage')
      .map((d) => d.code);
    expect(codes).toEqual(['NOT_JSON', 'NOT_OBJECT', 'NOT_OBJECT', 'UNKNOWN_TYPE', 'INVALID_FRAME', 'UNKNOWN_ID']);
    const logPath = host.extensions()[0]!.logPath;
    for (const d of host.diagnostics().filter((d) => d.extension === 'garbage')) {
      expect(d.logPath).toBe(logPath);
      expect(d.message).toContain(logPath);
    }
    expect(host.commands()).toEqual([{ name: 'still-works', description: 'proves the stream survived the noise', extension: 'garbage' }]);
    expect(await host.runCommand('/still-works')).toMatchObject({ handled: true, action: 'display', text: 'ok' });
    await host.stop();
  });
});

/** Waits for one extension's next state change to `state`. */
function stateChange(host: ExtensionHost, name: string, state: ExtensionState) {
  return nextEvent(host, 'extension:state', (c) => c.name === name && c.state === state);
}

// A closed stdout and an oversized frame: test/faults/runtime.test.ts.

describe('a crash mid-call', () => {
  let host: ExtensionHost;
  let rec: Recorder;

  beforeAll(async () => {
    ({ host, rec } = await kit.start({ explicit: [kitchen, fixture('extensions/weather')] }));
  });

  it('settles every pending call with PROCESS_EXITED and removes the extension from the registries', async () => {
    const exit = nextEvent(host, 'extension:exit', (e) => e.name === 'kitchen');
    const state = stateChange(host, 'kitchen', 'exited');
    const changed = nextEvent(host, 'tools:changed', (tools) => !tools.some((t) => t.extension === 'kitchen'));
    const slow = host.callTool('slow', { ms: 60_000 });
    const noreply = host.runCommand('/noreply');
    const crash = await host.callTool('crash', {});

    expect(crash).toMatchObject({ isError: true, extension: 'kitchen' });
    expect(crash.failure).toMatchObject({ code: 'PROCESS_EXITED', exitCode: 7, extension: 'kitchen' });
    expect(textOf(crash)).toContain('code 7');
    const [slowResult, noreplyOutcome] = await Promise.all([slow, noreply]);
    expect(slowResult.failure?.code).toBe('PROCESS_EXITED');
    expect(noreplyOutcome.handled && noreplyOutcome.failure?.code).toBe('PROCESS_EXITED');

    expect(await exit).toMatchObject({ name: 'kitchen', code: 7, signal: null });
    expect(await state).toEqual({ name: 'kitchen', state: 'exited', previous: 'ready' });
    const tools = await changed;
    expect(tools.map((t) => t.name)).toEqual(['weather', 'enable_forecast']);
    expect(await rec.waitFor('toolsChanged', (list) => list.length === 2)).toEqual(tools);
    expect(host.commands().map((c) => c.name)).toEqual(['Weather']);
  });

  it('reports the crash through the warning callback with the log path, and in extensions()', async () => {
    const info = host.extensions().find((e) => e.name === 'kitchen')!;
    expect(info.state).toBe('exited');
    expect(info.error).toMatchObject({ code: 'PROCESS_EXITED', exitCode: 7 });
    expect(info.commands.every((c) => !c.active) && info.tools.every((t) => !t.active)).toBe(true);
    const warning = await rec.waitFor('warning', (w) => w.extension === 'kitchen');
    expect(warning).toMatchObject({ code: 'PROCESS_EXITED', logPath: info.logPath });
    expect(warning.message).toContain(info.logPath);
  });

  it('keeps the other extensions working; the dead one is gone from routing', async () => {
    expect(textOf(await host.callTool('weather', { city: 'Lima' }))).toBe('Lima: 16°C, fog');
    expect((await host.callTool('echo', {})).failure?.code).toBe('UNKNOWN_TOOL');
    expect(await host.runCommand('/ask hi')).toEqual({ handled: false, name: 'ask', args: 'hi' });
    expect(host.emit({ event: 'turn_start', step: 1 })).toBe(0);
  });
});

describe('callbacks that throw', () => {
  it('are reported and never break the host', async () => {
    const { host, rec } = await kit.start({
      explicit: [kitchen],
      callbacks: {
        display: () => {
          throw new Error('display broke');
        },
        notify: () => {
          throw new Error('notify broke');
        },
      },
    });
    const warned = nextEvent(host, 'warning', (w) => w.code === 'CALLBACK_THREW' && w.message.includes('display broke'));
    expect(await host.runCommand('/show still shown')).toMatchObject({ handled: true, action: 'display', text: 'still shown', failure: undefined });
    await warned;
    // notify throws while the frame is handled; the submit after it on the same stream still arrives.
    expect(await host.runCommand('/bg go')).toMatchObject({ handled: true, action: 'noop' });
    expect(rec.of('submit')).toEqual([{ extension: 'kitchen', text: 'go' }]);
    const threw = host.diagnostics().filter((d) => d.code === 'CALLBACK_THREW');
    expect(threw.map((d) => d.message)).toEqual(['callback display threw: display broke', 'callback notify threw: notify broke']);
    expect(textOf(await host.callTool('echo', { ok: 1 }))).toBe('{"ok":1}');
    await host.stop();
  });
});

describe('event listeners that throw', () => {
  it('never become uncaught exceptions, and a crash is still cleaned up completely', async () => {
    const { host } = await kit.start({ explicit: [fixture('faults/garbage'), kitchen] });
    for (const name of ['diagnostic', 'warning', 'extension:exit', 'extension:state', 'commands:changed', 'tools:changed'] as const) {
      host.on(name, () => {
        throw new Error(`${name} listener broke`);
      });
    }
    // A bad frame (diagnostic), then a crash (exit, state, warning, tools and commands changed).
    expect((await host.callTool('crash', {})).failure?.code).toBe('PROCESS_EXITED');
    const kitchenInfo = host.extensions().find((e) => e.name === 'kitchen')!;
    expect(kitchenInfo.state).toBe('exited');
    expect(host.tools().some((t) => t.extension === 'kitchen')).toBe(false);
    expect(host.commands().some((c) => c.extension === 'kitchen')).toBe(false);
    expect(host.diagnostics().filter((d) => d.code === 'LISTENER_THREW').map((d) => d.message)).toEqual(
      expect.arrayContaining([expect.stringContaining("'extension:exit'"), expect.stringContaining("'warning'")]),
    );
    expect(await host.runCommand('/still-works')).toMatchObject({ handled: true, text: 'ok' });
    await host.stop();
  });
});

describe('stop() during a start', () => {
  it('ends handshakes in progress instead of waiting for their deadlines', async () => {
    const { host } = kit.create({ explicit: [fixture('faults/silent'), kitchen], timeouts: { hello: 60_000, ready: 60_000 } });
    const starting = host.start();
    await nextEvent(host, 'extension:state', (c) => c.name === 'kitchen' && c.state === 'ready');
    await host.stop();
    const report = await starting;
    expect(report.failed).toEqual([]);
    expect(host.extensions()).toEqual([]);
  });
});

describe('embedder input the host must survive (review findings)', () => {
  it('emit with a payload that cannot be encoded throws a typed INVALID_ARGUMENT; runCommand takes non-string args', async () => {
    const { host } = await kit.start({ explicit: [fixture('extensions/kitchen')] });
    const cyclic: Record<string, unknown> = { event: 'turn_start', step: 1 };
    cyclic.self = cyclic;
    expect(() => host.emit(cyclic as { event: string })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('is cyclic') }));
    // @ts-expect-error not a field of turn_start (nor JSON): from JavaScript it throws
    expect(() => host.emit({ event: 'turn_start', step: 1, big: 10n })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    const outcome = await host.runCommand({ name: 'show', args: 42 as unknown as string });
    expect(outcome).toMatchObject({ handled: true, args: '42' });
    await host.stop();
  });

  it('a callback that throws on every frame warns once and its diagnostics name the extension (and are limited)', async () => {
    const warnings: string[] = [];
    const { host } = await kit.start({
      explicit: [fixture('extensions/kitchen')],
      callbacks: {
        display: () => {
          throw new Error('display broke');
        },
        warning: (w) => warnings.push(w.code ?? ''),
      },
    });
    const events: string[] = [];
    host.on('warning', (w) => events.push(w.code ?? ''));
    for (let i = 0; i < 20; i++) await host.runCommand(`/show ${i}`);
    expect(events.filter((c) => c === 'CALLBACK_THREW')).toHaveLength(1);
    const threw = host.diagnostics().filter((d) => d.code === 'CALLBACK_THREW');
    expect(threw.length).toBeLessThanOrEqual(6);
    expect(threw[0]).toMatchObject({ extension: 'kitchen' });
    await host.stop();
  });
});
