// start(): parallel spawn, readiness (ready / idle / trickle), failures, skipped extensions,
// extensions() snapshots, state events, late registrations, stop().
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExtensionHostError } from '../../src/errors.js';
import type { ExtensionHost } from '../../src/host/host.js';
import type { ExtensionState, StartReport } from '../../src/host/types.js';
import { fixture } from '../helpers/fixtures.js';
import { isAlive } from '../helpers/processes.js';
import { type Recorder, hostKit, textOf } from '../helpers/host.js';
import { nextEvent } from '../helpers/wait.js';

const kit = hostKit();

function loadedOf(report: StartReport, name: string) {
  const entry = report.loaded.find((l) => l.name === name);
  if (entry === undefined) throw new Error(`${name} did not load: ${JSON.stringify(report.failed.map((f) => [f.name, f.error.message]))}`);
  return entry;
}

function writeManifest(dir: string, manifest: Record<string, unknown>): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'extension.json'), JSON.stringify(manifest));
  return dir;
}

describe('start() with a mix of readiness behaviours', () => {
  const names = ['legacy', 'trickle-ready', 'slow-hello', 'kitchen', 'weather', 'slow-register'];
  const dirs = [fixture('faults/legacy'), fixture('faults/trickle-ready'), fixture('faults/slow-hello'), fixture('extensions/kitchen'), fixture('extensions/weather'), fixture('faults/slow-register')];
  let host: ExtensionHost;
  let report: StartReport;
  const states: { name: string; state: ExtensionState; previous: ExtensionState | undefined }[] = [];

  beforeAll(async () => {
    ({ host } = kit.create({ explicit: dirs }));
    host.on('extension:state', (change) => states.push(change));
    report = await host.start();
  });

  it('loads every extension, in load order, with how it became ready', () => {
    expect(report.failed).toEqual([]);
    expect(report.loaded.map((l) => l.name)).toEqual(names);
    expect(Object.fromEntries(report.loaded.map((l) => [l.name, l.readyVia]))).toEqual({
      legacy: 'idle', // never sends ready: auto-readied after 250 ms without frames
      'trickle-ready': 'ready',
      'slow-hello': 'ready',
      kitchen: 'ready',
      weather: 'ready',
      'slow-register': 'ready', // silent for 400 ms after hello, yet not auto-readied
    });
    for (const loaded of report.loaded) {
      expect(loaded.source).toBe('explicit');
      expect(loaded.logPath).toBe(path.join(host.logDir, `ext-${loaded.name}.log`));
      expect(typeof loaded.pid).toBe('number');
    }
  });

  it('spawns in parallel: the whole start takes less than the sum of the ready times', () => {
    const sum = report.loaded.reduce((total, l) => total + l.readyMs, 0);
    expect(report.ms).toBeLessThan(sum);
  });

  it('does not cut a trickling ready short: every tool registered before ready is there', () => {
    const trickle = host.extensions().find((e) => e.name === 'trickle-ready')!;
    expect(trickle.readyVia).toBe('ready');
    expect(trickle.tools.map((t) => t.name)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
    expect(host.tools().filter((t) => t.extension === 'trickle-ready').map((t) => t.name)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
  });

  it('readies a never-ready extension at idle next to a slow one that does send ready', async () => {
    // 'idle', not 'grace': it was readied after 250 ms of quiet, not at the 3 s ready deadline.
    expect(loadedOf(report, 'legacy').readyVia).toBe('idle');
    expect(loadedOf(report, 'slow-hello').readyVia).toBe('ready');
    // legacy registered before hello_ack: that registration counts.
    const outcome = await host.runCommand('/legacy');
    expect(outcome).toMatchObject({ handled: true, extension: 'legacy', action: 'display', text: 'legacy ok' });
  });

  it('does not auto-ready an extension that is silent after hello (still reading hello_ack)', async () => {
    expect(loadedOf(report, 'slow-register').readyVia).toBe('ready');
    expect(await host.runCommand('/slow-register')).toMatchObject({ handled: true, text: 'slow but sure' });
  });

  it('readies an extension that says hello and nothing else at the ready grace', async () => {
    const { report: deaf } = await kit.start({ explicit: [fixture('faults/deaf')], timeouts: { ready: 300, shutdown: 100 } });
    expect(loadedOf(deaf, 'deaf').readyVia).toBe('grace');
  });

  it('emits starting -> ready for every extension', () => {
    for (const name of names) {
      expect(states.filter((s) => s.name === name)).toEqual([
        { name, state: 'starting', previous: undefined },
        { name, state: 'ready', previous: 'starting' },
      ]);
    }
  });

  it('describes each extension in extensions(): pid, log, capabilities, registrations, subscriptions', async () => {
    const list = host.extensions();
    expect(list.map((e) => [e.name, e.order, e.state])).toEqual(names.map((n, i) => [n, i, 'ready']));
    const kitchen = list.find((e) => e.name === 'kitchen')!;
    expect(kitchen).toMatchObject({
      dir: fixture('extensions/kitchen'),
      source: 'explicit',
      version: '0.1.0',
      capabilities: ['commands', 'tools', 'panels'],
      logPath: path.join(host.logDir, 'ext-kitchen.log'),
      readyVia: 'ready',
      error: undefined,
      subscriptions: {
        events: ['session_start', 'turn_start', 'turn_end', 'tool_call', 'tool_confirmation_requested', 'assistant_message', 'custom_thing'],
        intercept: [],
      },
    });
    expect(await isAlive(kitchen.pid!)).toBe(true);
    expect(kitchen.commands.map((c) => c.name)).toEqual(['ask', 'put', 'show', 'panel', 'bg', 'oops', 'blank', 'clear', 'ack', 'badlevel', 'latetool', 'big', 'foreign', 'badresponse', 'noreply']);
    expect(kitchen.commands.every((c) => c.active)).toBe(true);
    expect(kitchen.tools.map((t) => [t.name, t.deferred, t.active])).toEqual(
      ['echo', 'slow', 'hang', 'crash', 'image', 'bad_result', 'fail', 'closeout'].map((n) => [n, false, true]),
    );
    const weather = list.find((e) => e.name === 'weather')!;
    expect(weather.commands).toEqual([{ name: 'Weather', description: 'current weather for a city', active: true }]);
    expect(weather.tools.find((t) => t.name === 'forecast')).toEqual({ name: 'forecast', description: "Get tomorrow's forecast for a city.", deferred: true, active: true });
    expect(weather.subscriptions).toEqual({ events: [], intercept: [] });
  });

  it('returns a report of the running host when start() is called again, without respawning', async () => {
    const pids = host.extensions().map((e) => e.pid);
    const again = await host.start();
    expect(again.loaded.map((l) => l.name)).toEqual(names);
    expect(host.extensions().map((e) => e.pid)).toEqual(pids);
  });

  it('stop() is idempotent, ends every process and moves every extension to stopped', async () => {
    const pids = host.extensions().map((e) => e.pid!);
    const mark = states.length;
    await Promise.all([host.stop(), host.stop()]);
    await host.stop();
    for (const pid of pids) expect(await isAlive(pid)).toBe(false);
    expect(states.slice(mark)).toEqual(names.map((name) => ({ name, state: 'stopped', previous: 'ready' })));
    expect(host.tools()).toEqual([]);
    expect(host.commands()).toEqual([]);
    expect(await host.runCommand('/legacy')).toMatchObject({ handled: false, name: 'legacy', args: '', failure: { code: 'NOT_STARTED', message: '/legacy: the host is stopped' } });
    const result = await host.callTool('echo', {});
    expect(result.isError).toBe(true);
    // The tool existed: the host being stopped is the reason, not an unknown name.
    expect(result.failure?.code).toBe('NOT_STARTED');
    expect(result.content).toEqual([{ type: 'text', text: 'tool echo: the host is stopped' }]);
  });
});

describe('before start() and with await using', () => {
  it('callTool and runCommand before start() both answer NOT_STARTED; the command is not handled (the agent falls back)', async () => {
    const { host } = kit.create({ explicit: [fixture('extensions/hello-sh')] });
    expect(await host.callTool('echo', {})).toMatchObject({ isError: true, extension: undefined, failure: { code: 'NOT_STARTED', message: 'tool echo: the host is not started' } });
    expect(await host.callTool('echo')).toMatchObject({ isError: true, failure: { code: 'NOT_STARTED' } });
    const outcome = await host.runCommand('/hello-sh');
    expect(outcome).toMatchObject({ handled: false, name: 'hello-sh', args: '', failure: { code: 'NOT_STARTED', message: '/hello-sh: the host is not started' } });
    expect(outcome.failure).toBeInstanceOf(ExtensionHostError);
  });

  it('[Symbol.asyncDispose]() stops the host and its processes', async () => {
    const { host } = kit.create({ explicit: [fixture('extensions/hello-sh')] });
    const report = await host.start();
    const pid = report.loaded[0]!.pid!;
    expect(await isAlive(pid)).toBe(true);
    const dispose: typeof Symbol.asyncDispose = (Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose')) as typeof Symbol.asyncDispose;
    await host[dispose]();
    expect(await isAlive(pid)).toBe(false);
    expect((await host.callTool('echo', {})).failure?.code).toBe('NOT_STARTED');
  });
});

describe('registrations after a pause', () => {
  let host: ExtensionHost;
  let rec: Recorder;
  let report: StartReport;
  const sequence: string[] = [];

  beforeAll(async () => {
    ({ host, rec } = kit.create({ explicit: [fixture('faults/pause-registration')] }));
    host.on('extension:state', (c) => sequence.push(`${c.name}:${c.state}`));
    host.on('tools:changed', (tools) => sequence.push(`tools:${tools.map((t) => t.name).join(',')}`));
    report = await host.start();
  });

  it('auto-readies at idle, then accepts later registrations and announces them through toolsChanged', async () => {
    expect(loadedOf(report, 'pause-registration').readyVia).toBe('idle');
    const commandsChanged = nextEvent(host, 'commands:changed', (commands) => commands.some((c) => c.name === 'late'));
    const announced = await rec.waitFor('toolsChanged', (tools) => tools.some((t) => t.name === 'after_pause'));
    expect(announced).toEqual([{ name: 'after_pause', description: 'registered after the pause', schema: { type: 'object', properties: {} }, extension: 'pause-registration' }]);
    await commandsChanged;
    // Ready came first: the pause (600 ms) is longer than the idle auto-ready (250 ms).
    expect(sequence.indexOf('pause-registration:ready')).toBeLessThan(sequence.indexOf('tools:after_pause'));
    expect(host.commands().map((c) => c.name)).toEqual(['early', 'late']);
    expect(await host.runCommand('/late')).toMatchObject({ handled: true, action: 'display', text: 'late' });
    expect(textOf(await host.callTool('after_pause', {}))).toBe('after_pause');
  });
});

describe('start() with extensions that fail', () => {
  let report: StartReport;
  let host: ExtensionHost;
  let rec: Recorder;
  const states: string[] = [];

  beforeAll(async () => {
    const broken = writeManifest(path.join(kit.dir, 'broken-exec'), { name: 'broken-exec', exec: './missing.sh' });
    ({ host, rec } = kit.create({
      explicit: [
        fixture('faults/crash-before-hello'),
        fixture('faults/not-hello'),
        fixture('faults/silent'),
        broken,
        path.join(kit.dir, 'no-such-dir'),
        fixture('extensions/hello-sh'),
      ],
      // helloJoin at hello: no late join, so the silent one fails within start().
      timeouts: { hello: 1500, helloJoin: 1500 },
    }));
    host.on('extension:state', (c) => states.push(`${c.name}:${c.previous ?? '-'}->${c.state}`));
    report = await host.start(); // must resolve: a bad extension never makes start() throw
  });

  it('reports each failure with a typed error and the log path, and loads the rest', () => {
    expect(report.loaded.map((l) => l.name)).toEqual(['hello-sh']);
    const failed = Object.fromEntries(report.failed.map((f) => [f.name, f]));
    // The explicit path that does not exist comes first: it never started (issue 33 #12).
    expect(Object.keys(failed)).toEqual(['no-such-dir', 'crash-before-hello', 'not-hello', 'silent', 'broken-exec']);
    expect(failed['no-such-dir']).toMatchObject({ source: 'explicit', logPath: undefined, path: path.join(kit.dir, 'no-such-dir'), error: { code: 'MANIFEST_INVALID' } });
    const codes = { 'crash-before-hello': 'EXITED_BEFORE_HELLO', 'not-hello': 'BAD_HELLO', silent: 'HELLO_TIMEOUT', 'broken-exec': 'SPAWN_FAILED' };
    for (const [name, code] of Object.entries(codes)) {
      const entry = failed[name]!;
      expect(entry.error).toBeInstanceOf(ExtensionHostError);
      expect(entry.error.code).toBe(code);
      expect(entry.logPath).toBe(path.join(host.logDir, `ext-${name}.log`));
      expect(entry.error.logPath).toBe(entry.logPath);
    }
    expect(failed['crash-before-hello']!.error.message).toContain('boom: missing config');
    expect(failed['broken-exec']!.error.message).toContain('missing.sh');
  });

  it('keeps a missing explicit path as a discovery diagnostic', () => {
    expect(report.diagnostics.some((d) => 'path' in d && typeof d.path === 'string' && d.path.includes('no-such-dir'))).toBe(true);
  });

  it('shows failed extensions in extensions() with their error, and emits starting -> failed', () => {
    const info = Object.fromEntries(host.extensions().map((e) => [e.name, e]));
    expect(info['silent']).toMatchObject({ state: 'failed', readyVia: undefined, commands: [], tools: [] });
    expect(info['silent']!.error?.code).toBe('HELLO_TIMEOUT');
    expect(info['hello-sh']!.state).toBe('ready');
    for (const name of ['crash-before-hello', 'not-hello', 'silent', 'broken-exec']) {
      expect(states.filter((s) => s.startsWith(`${name}:`))).toEqual([`${name}:-->starting`, `${name}:starting->failed`]);
    }
  });

  it('reports each failure through the warning callback with the log path', () => {
    const warnings = rec.of('warning');
    for (const name of ['crash-before-hello', 'not-hello', 'silent', 'broken-exec']) {
      const warning = warnings.find((w) => w.extension === name);
      expect(warning?.logPath).toBe(path.join(host.logDir, `ext-${name}.log`));
      expect(warning?.error).toBeInstanceOf(ExtensionHostError);
    }
  });
});

describe('start() with discovery: disabled, shadowed and theme-only extensions', () => {
  let report: StartReport;
  let host: ExtensionHost;

  beforeAll(async () => {
    const cwd = path.join(kit.dir, 'project');
    const home = path.join(kit.dir, 'discovery-home');
    const helloExec = path.join(fixture('extensions/hello-sh'), 'hello.sh');
    writeManifest(path.join(cwd, '.zot/extensions/hello-sh'), { name: 'hello-sh', exec: helloExec });
    writeManifest(path.join(cwd, '.zot/extensions/off'), { name: 'off', exec: helloExec, enabled: false });
    writeManifest(path.join(home, 'extensions/weather'), { name: 'weather', exec: path.join(fixture('extensions/weather'), 'weather.py') });
    writeFileSync(path.join(writeManifest(path.join(home, 'extensions/theme-only'), { name: 'theme-only' }), 'theme.json'), '{}');
    ({ host } = kit.create({ cwd, home, discover: true, explicit: [fixture('extensions/hello-sh')] }));
    report = await host.start();
  });

  it('loads the explicit and discovered ones and lists the others as skipped with the reason', () => {
    expect(report.failed).toEqual([]);
    expect(report.loaded.map((l) => [l.name, l.source])).toEqual([
      ['hello-sh', 'explicit'],
      ['weather', 'global'],
    ]);
    expect(report.skipped).toEqual([
      { name: 'hello-sh', dir: path.join(kit.dir, 'project/.zot/extensions/hello-sh'), reason: 'shadowed' },
      { name: 'off', dir: path.join(kit.dir, 'project/.zot/extensions/off'), reason: 'disabled' },
      { name: 'theme-only', dir: path.join(kit.dir, 'discovery-home/extensions/theme-only'), reason: 'theme' },
    ]);
    expect(host.extensions().map((e) => [e.name, e.dir])).toEqual([
      ['hello-sh', fixture('extensions/hello-sh')],
      ['weather', path.join(kit.dir, 'discovery-home/extensions/weather')],
    ]);
  });
});

describe('stop()', () => {
  it('resolves on a host that never started, and again after that', async () => {
    const { host } = kit.create({ explicit: [fixture('extensions/kitchen')] });
    await host.stop();
    await host.stop();
    expect(host.extensions()).toEqual([]);
  });
});

describe('where start() looked', () => {
  it('lists the searched directories, and says so in a diagnostic when it found nothing', async () => {
    const cwd = path.join(kit.dir, 'empty-project');
    const home = path.join(kit.dir, 'empty-home');
    mkdirSync(cwd, { recursive: true });
    const { host } = kit.create({ cwd, home, discover: true, explicit: [path.join(kit.dir, 'nothing-here')] });
    const report = await host.start();
    const searched = [path.join(kit.dir, 'nothing-here'), path.join(cwd, '.zot/extensions'), path.join(home, 'extensions')];
    expect(report.loaded).toEqual([]);
    expect(report.searched).toEqual(searched);
    const none = report.diagnostics.find((d) => d.code === 'NO_EXTENSIONS');
    expect(none).toMatchObject({ severity: 'info', message: `no extensions found; searched ${searched.join(', ')}` });
    await host.stop();
  });

  it('names the explicit paths only with discover: false, and reports nothing when something was found', async () => {
    const { host, report } = await kit.start({ explicit: [fixture('extensions/hello-sh')] });
    expect(report.searched).toEqual([fixture('extensions/hello-sh')]);
    expect(report.diagnostics.filter((d) => d.code === 'NO_EXTENSIONS')).toEqual([]);
    await host.stop();
  });
});
