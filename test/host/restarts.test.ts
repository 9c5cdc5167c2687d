// Restarts against the real `crashy` fixture (fixtures/README.md): a crash loop stops at the limit
// with one diagnostic, registrations are carried over (toolsChanged only on a real change), calls
// fail fast with RESTARTING while it restarts, host.restart() works with and without a policy.
// Backoffs are 1 ms or, where a test needs the restarting state to last, 60 s ended by host.restart().
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCode, ExtensionHostError } from '../../src/errors.js';
import type { ExtensionHost } from '../../src/host/host.js';
import type { ExtensionHostOptions, HostDiagnostic, HostEvents, HostWarning } from '../../src/host/types.js';
import { fixture } from '../helpers/fixtures.js';
import { hostKit, textOf } from '../helpers/host.js';
import { nextEvent } from '../helpers/wait.js';

const kit = hostKit();
const CRASHY = fixture('faults/crashy');
type Change = HostEvents['extension:state'][0];

let files = 0;
/** A host over crashy with its own state file; `env` are CRASHY_* settings. */
function crashy(env: Record<string, string>, options: ExtensionHostOptions = {}) {
  const state = path.join(kit.dir, `crashy-state-${++files}`);
  const made = kit.create({ explicit: [CRASHY], env: { ...process.env, CRASHY_STATE: state, ...env }, timeouts: { shutdown: 500 }, ...options });
  const changes: Change[] = [];
  const diagnostics: HostDiagnostic[] = [];
  const warnings: HostWarning[] = [];
  made.host.on('extension:state', (c) => changes.push(c));
  made.host.on('diagnostic', (d) => diagnostics.push(d));
  made.host.on('warning', (w) => warnings.push(w));
  return { ...made, state, changes, diagnostics, warnings, starts: () => Number(readFileSync(state, 'utf8')) };
}

const arrow = (c: Change) => `${c.previous ?? '-'}->${c.state}`;
const readyAgain = (host: ExtensionHost, restarts: number) => nextEvent(host, 'extension:state', (c) => c.state === 'ready' && c.restarts === restarts);

describe('a crash loop', () => {
  it('restarts up to maxRestarts within the window, then stays down with one RESTART_LIMIT diagnostic', async () => {
    const { host, changes, diagnostics, warnings, starts } = crashy({ CRASHY_EXIT_AFTER_READY: 'all' }, { restart: { maxRestarts: 2, backoffMs: [1] } });
    const failed = nextEvent(host, 'extension:state', (c) => c.state === 'failed');
    await host.start();
    expect(await failed).toEqual({ name: 'crashy', state: 'failed', previous: 'ready', reason: 'restart limit', restarts: 2 });
    expect(changes.map(arrow)).toEqual([
      '-->starting',
      'starting->ready',
      'ready->restarting',
      'restarting->starting',
      'starting->ready',
      'ready->restarting',
      'restarting->starting',
      'starting->ready',
      'ready->failed',
    ]);
    expect(changes.map((c) => [c.reason, c.restarts])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
      ['crashed', 0],
      ['restart', 1],
      ['restart', 1],
      ['crashed', 1],
      ['restart', 2],
      ['restart', 2],
      ['restart limit', 2],
    ]);
    expect(starts()).toBe(3);
    const limit = diagnostics.filter((d) => d.code === 'RESTART_LIMIT');
    expect(limit).toHaveLength(1);
    expect(limit[0]).toMatchObject({ extension: 'crashy', severity: 'error', logPath: path.join(host.logDir, 'ext-crashy.log') });
    expect(limit[0]!.message).toContain('crashy exited with code 3; it was restarted 2 times within 180000 ms, the limit: it stays down until host.restart() or reload()');
    expect(warnings.filter((w) => w.code === 'RESTART_LIMIT')).toHaveLength(1);
    expect(warnings.filter((w) => w.code === ErrorCode.PROCESS_EXITED).map((w) => w.message.split(';')[1]?.trim())).toEqual([
      'restart 1 of 2 within 180000 ms in 1 ms',
      'restart 2 of 2 within 180000 ms in 1 ms',
    ]);
    const [info] = host.extensions();
    expect(info).toMatchObject({ state: 'failed', restarts: 2, error: { code: ErrorCode.PROCESS_EXITED } });
    expect(info!.tools).toEqual([{ name: 'starts', description: 'which start this is', deferred: false, active: false }]);
    expect(host.tools()).toEqual([]);
    expect(host.commands()).toEqual([]);
  });

  it('a restart attempt that exits before hello is one more crash; a first start that does is a load error', async () => {
    const { host, changes, starts } = crashy({ CRASHY_EXIT_BEFORE_HELLO: '2,3' }, { restart: { maxRestarts: 3, backoffMs: [1] } });
    await host.start();
    const back = readyAgain(host, 3);
    expect(await host.runCommand('/crash')).toMatchObject({ handled: true, failure: { code: ErrorCode.PROCESS_EXITED } });
    await back;
    expect(changes.map(arrow).slice(2)).toEqual(['ready->restarting', 'restarting->starting', 'starting->restarting', 'restarting->starting', 'starting->restarting', 'restarting->starting', 'starting->ready']);
    expect(starts()).toBe(4);
    expect(textOf(await host.callTool('starts', {}))).toBe('starts 4');

    const first = crashy({ CRASHY_EXIT_BEFORE_HELLO: '1' }, { restart: true });
    const report = await first.host.start();
    expect(report.failed.map((f) => [f.name, f.error.code])).toEqual([['crashy', ErrorCode.EXITED_BEFORE_HELLO]]);
    expect(first.changes.map(arrow)).toEqual(['-->starting', 'starting->failed']);
    expect(first.starts()).toBe(1);
  });
});

describe('registrations across a restart', () => {
  it('are carried over: toolsChanged and commands:changed fire only when the set really changed', async () => {
    const { host, rec } = crashy({ CRASHY_EXTRA_TOOL: '3' }, { restart: { maxRestarts: 3, backoffMs: [1] } });
    await host.start();
    const commandsChanged: string[][] = [];
    host.on('commands:changed', (commands) => commandsChanged.push(commands.map((c) => c.name)));
    const before = host.tools();
    expect(before.map((t) => t.name)).toEqual(['starts']);
    let mark = rec.mark();

    // Start 2 registers the same tool and command: nothing is announced.
    let back = readyAgain(host, 1);
    await host.runCommand('/crash');
    await back;
    expect(rec.since(mark, 'toolsChanged')).toEqual([]);
    expect(commandsChanged).toEqual([]);
    expect(host.tools()).toEqual(before);
    expect(host.commands()).toEqual([{ name: 'crash', description: 'exit with code 3', extension: 'crashy' }]);
    expect(textOf(await host.callTool('starts', {}))).toBe('starts 2');

    // Start 3 adds `extra`: one announcement with both.
    mark = rec.mark();
    back = readyAgain(host, 2);
    const added = nextEvent(host, 'tools:changed');
    await host.runCommand('/crash');
    await back;
    expect((await added).map((t) => t.name)).toEqual(['starts', 'extra']);
    expect(rec.since(mark, 'toolsChanged')).toHaveLength(1);
    expect(textOf(await host.callTool('extra', {}))).toBe('extra 3');

    // Start 4 registers `extra` no more: it goes, announced once; calling it is UNKNOWN_TOOL.
    mark = rec.mark();
    back = readyAgain(host, 3);
    const removed = nextEvent(host, 'tools:changed');
    await host.runCommand('/crash');
    await back;
    expect((await removed).map((t) => t.name)).toEqual(['starts']);
    expect(rec.since(mark, 'toolsChanged')).toHaveLength(1);
    expect((await host.callTool('extra', {})).failure?.code).toBe(ErrorCode.UNKNOWN_TOOL);
    expect(commandsChanged).toEqual([]);
    expect(host.extensions()[0]).toMatchObject({ state: 'ready', restarts: 3, tools: [{ name: 'starts', active: true }] });
  });
});

describe('while it restarts', () => {
  it('calls fail fast with RESTARTING in the backoff and the handshake; a fail-closed guard blocks; host.restart() ends the backoff', async () => {
    const { host, state, rec } = crashy({ CRASHY_HOLD_HELLO: '3', CRASHY_GUARD: '1' }, { restart: { backoffMs: [60_000] }, interceptPolicy: { crashy: { onFailure: 'block' } } });
    await host.start();
    expect((await host.intercepts.toolCall({ toolId: 't0', toolName: 'bash', args: {} })).block).toBe(false);
    const restarting = nextEvent(host, 'extension:state', (c) => c.state === 'restarting');
    const mark = rec.mark();
    await host.runCommand('/crash');
    expect(await restarting).toEqual({ name: 'crashy', state: 'restarting', previous: 'ready', reason: 'crashed', restarts: 0 });

    // Waiting out the (60 s) backoff.
    const assertRestarting = async () => {
      const tool = await host.callTool('starts', {});
      expect(tool).toMatchObject({ isError: true, extension: 'crashy', failure: { code: ErrorCode.RESTARTING, extension: 'crashy' } });
      expect(tool.failure?.message).toBe('tool starts: crashy is restarting; try again when it is ready');
      const command = await host.runCommand('/crash');
      expect(command).toMatchObject({ handled: true, extension: 'crashy', action: 'noop', failure: { code: ErrorCode.RESTARTING } });
      const guarded = await host.intercepts.toolCall({ toolId: 't1', toolName: 'bash', args: {} });
      expect(guarded).toMatchObject({ block: true, blockedBy: 'crashy' });
      // Still listed: the model's tool list does not flap.
      expect(host.tools().map((t) => t.name)).toEqual(['starts']);
      expect(host.commands().map((c) => c.name)).toEqual(['crash']);
    };
    await assertRestarting();
    expect(host.extensions()[0]).toMatchObject({ state: 'restarting', restarts: 0 });

    // host.restart() skips the backoff.
    const info = await host.restart('crashy');
    expect(info).toMatchObject({ name: 'crashy', state: 'ready', restarts: 1 });
    expect(textOf(await host.callTool('starts', {}))).toBe('starts 2');

    // By hand from ready; start 3 holds its hello: the handshake is part of the restart too.
    const starting = nextEvent(host, 'extension:state', (c) => c.state === 'starting' && c.restarts === 2);
    const restarted = host.restart('crashy');
    expect(await starting).toMatchObject({ previous: 'restarting', reason: 'manual restart' });
    await assertRestarting();
    writeFileSync(`${state}.go`, '');
    expect(await restarted).toMatchObject({ state: 'ready', restarts: 2 });
    expect(textOf(await host.callTool('starts', {}))).toBe('starts 3');
    expect((await host.intercepts.toolCall({ toolId: 't2', toolName: 'bash', args: {} })).block).toBe(false);
    expect(rec.since(mark, 'toolsChanged')).toEqual([]);
  });

  it('a guard that fails open lets calls pass while it restarts; stop() in the backoff ends it', async () => {
    const { host, changes } = crashy({ CRASHY_GUARD: '1' }, { restart: { backoffMs: [60_000] } });
    await host.start();
    const restarting = nextEvent(host, 'extension:state', (c) => c.state === 'restarting');
    await host.runCommand('/crash');
    await restarting;
    expect((await host.intercepts.toolCall({ toolId: 't1', toolName: 'bash', args: {} })).block).toBe(false);
    await host.stop();
    expect(changes.map(arrow).slice(-2)).toEqual(['ready->restarting', 'restarting->stopped']);
    expect((await host.callTool('starts', {})).failure?.code).toBe(ErrorCode.NOT_STARTED);
  });
});

describe('host.restart() without a policy', () => {
  it('brings back an exited extension and restarts a ready one; its errors are typed', async () => {
    const { host, rec, changes, starts } = crashy({});
    await expect(host.restart('crashy')).rejects.toMatchObject({ code: ErrorCode.NOT_STARTED });
    await host.start();
    const exited = nextEvent(host, 'extension:state', (c) => c.state === 'exited');
    await host.runCommand('/crash');
    await exited;
    // Dead until reload or restart: the spec's behaviour without a policy.
    expect(host.tools()).toEqual([]);
    expect((await host.callTool('starts', {})).failure?.code).toBe(ErrorCode.UNKNOWN_TOOL);

    const mark = rec.mark();
    const info = await host.restart('crashy');
    expect(info).toMatchObject({ state: 'ready', restarts: 1 });
    expect(rec.since(mark, 'toolsChanged').map((tools) => tools.map((t) => t.name))).toEqual([['starts']]);
    expect(textOf(await host.callTool('starts', {}))).toBe('starts 2');

    const pid = info.pid;
    const again = await host.restart('crashy');
    expect(again).toMatchObject({ state: 'ready', restarts: 2 });
    expect(again.pid).not.toBe(pid);
    expect(starts()).toBe(3);
    expect(rec.since(mark, 'toolsChanged')).toHaveLength(1);
    expect(changes.map(arrow).slice(2)).toEqual(['ready->exited', 'exited->restarting', 'restarting->starting', 'starting->ready', 'ready->restarting', 'restarting->starting', 'starting->ready']);

    const unknown = await host.restart('nope').catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(ExtensionHostError);
    expect(unknown).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, message: 'restart: no extension named "nope"' });
  });

  it('rejects with the start error when the new process fails, and leaves it failed', async () => {
    const { host } = crashy({ CRASHY_EXIT_BEFORE_HELLO: '2' });
    await host.start();
    const error = await host.restart('crashy').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.EXITED_BEFORE_HELLO, extension: 'crashy' });
    expect(host.extensions()[0]).toMatchObject({ state: 'failed', restarts: 1, tools: [] });
    expect(host.tools()).toEqual([]);
    expect(await host.restart('crashy')).toMatchObject({ state: 'ready', restarts: 2 });
    expect(host.tools().map((t) => t.name)).toEqual(['starts']);
  });
});
