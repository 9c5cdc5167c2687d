// reload(): stops everything, rediscovers (explicit paths remembered), respawns, resets deferred
// activations and the cached system prompt, fires toolsChanged; old calls settle at once.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExtensionHost } from '../../src/host/host.js';
import type { StartReport } from '../../src/host/types.js';
import { fixture } from '../helpers/fixtures.js';
import { isAlive } from '../helpers/processes.js';
import { type Recorder, hostKit, textOf } from '../helpers/host.js';

const kit = hostKit();
const cwd = path.join(kit.dir, 'project');

function projectExtension(dir: string, name: string, exec: string): void {
  const full = path.join(cwd, '.zot/extensions', dir);
  mkdirSync(full, { recursive: true });
  writeFileSync(path.join(full, 'extension.json'), JSON.stringify({ name, exec }));
}

describe('reload()', () => {
  let host: ExtensionHost;
  let rec: Recorder;
  let before: StartReport;
  let after: StartReport;
  let oldPids: Map<string, number>;
  const states: string[] = [];
  const settleOrder: string[] = [];
  let inFlight: ReturnType<ExtensionHost['callTool']>;
  let inFlightCommand: ReturnType<ExtensionHost['runCommand']>;
  let toolsChangedMark: number;
  let promptBefore: Awaited<ReturnType<ExtensionHost['prepareSystemPrompt']>>;

  beforeAll(async () => {
    projectExtension('hello', 'hello-sh', path.join(fixture('extensions/hello-sh'), 'hello.sh'));
    ({ host, rec } = kit.create({
      cwd,
      discover: true,
      explicit: [fixture('extensions/kitchen'), fixture('extensions/weather'), fixture('intercept/prompt-append-a')],
    }));
    host.on('extension:state', (c) => states.push(`${c.name}:${c.previous ?? '-'}->${c.state}`));
    before = await host.start();
    oldPids = new Map(host.extensions().map((e) => [e.name, e.pid!]));

    // State that a reload must reset.
    expect((await host.callTool('enable_forecast', {})).activatedTools).toEqual(['forecast']);
    await host.prepareSystemPrompt({ systemPrompt: 'base' });
    promptBefore = await host.prepareSystemPrompt({ systemPrompt: 'base' });
    expect((await host.runCommand('/panel')).handled).toBe(true);
    // A new project extension appears while running: only a rediscovery finds it.
    projectExtension('todo', 'todo', path.join(fixture('extensions/todo'), 'todo.mjs'));

    inFlight = host.callTool('hang', {});
    inFlightCommand = host.runCommand('/noreply');
    void inFlight.then(() => settleOrder.push('call'));
    // kitchen echoes this as a notify, but only after the reload has begun: it must be dropped.
    expect(host.emit({ event: 'custom_thing', tag: 'before-reload' })).toBe(1);
    states.length = 0;
    toolsChangedMark = rec.mark();
    after = await host.reload().finally(() => settleOrder.push('reload'));
  });

  it('respawns every extension (new pids), keeps explicit paths and finds new ones', async () => {
    expect(before.loaded.map((l) => l.name)).toEqual(['kitchen', 'weather', 'prompt-append-a', 'hello-sh']);
    expect(after.failed).toEqual([]);
    expect(after.loaded.map((l) => [l.name, l.source])).toEqual([
      ['kitchen', 'explicit'],
      ['weather', 'explicit'],
      ['prompt-append-a', 'explicit'],
      ['hello-sh', 'project'],
      ['todo', 'project'],
    ]);
    for (const [name, pid] of oldPids) {
      const now = host.extensions().find((e) => e.name === name)!;
      expect(now.state).toBe('ready');
      expect(now.pid).not.toBe(pid);
      expect(await isAlive(pid)).toBe(false);
    }
  });

  it('settles calls in flight on the old processes at once, before the reload finishes', async () => {
    const result = await inFlight;
    expect(result).toMatchObject({ isError: true, extension: 'kitchen' });
    expect(result.failure!.code).toBe('PROCESS_EXITED');
    const outcome = await inFlightCommand;
    expect(outcome.handled && outcome.failure?.code).toBe('PROCESS_EXITED');
    expect(settleOrder).toEqual(['call', 'reload']);
  });

  it('moves the old extensions to stopped, then starts the new ones', () => {
    expect(states.filter((s) => s.startsWith('kitchen:'))).toEqual(['kitchen:ready->stopped', 'kitchen:-->starting', 'kitchen:starting->ready']);
    expect(states.filter((s) => s.endsWith('->exited') || s.endsWith('->failed'))).toEqual([]);
  });

  it('drops whatever an old process sends once the reload has begun', () => {
    expect(rec.of('notify').filter((n) => n.message.includes('before-reload'))).toEqual([]);
    expect(host.extensions().every((e) => e.error === undefined)).toBe(true);
  });

  it('closes panels of the old processes', () => {
    expect(rec.of('closePanel')).toEqual([{ extension: 'kitchen', panelId: 'kitchen-panel', by: 'exit' }]);
    expect(host.openPanels()).toEqual([]);
  });

  it('resets deferred activations and fires toolsChanged with the rebuilt list', () => {
    expect(host.tools().some((t) => t.name === 'forecast')).toBe(false);
    const announced = rec.since(toolsChangedMark, 'toolsChanged');
    expect(announced.length).toBeGreaterThan(0);
    expect(announced.at(-1)).toEqual(host.tools());
    // One registration per name: nothing left over from the old processes.
    const names = host.tools().map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('resets the cached system prompt', async () => {
    expect(promptBefore).toMatchObject({ cached: true, systemPrompt: 'base\n[prompt-append-a]' });
    const prompt = await host.prepareSystemPrompt({ systemPrompt: 'base' });
    expect(prompt).toMatchObject({ cached: false, systemPrompt: 'base\n[prompt-append-a]' });
  });

  it('routes to the new processes', async () => {
    expect(textOf(await host.callTool('echo', { n: 1 }))).toBe('{"n":1}');
    expect(await host.runCommand('/todo')).toMatchObject({ handled: true, extension: 'todo', action: 'open_panel' });
    expect((await host.callTool('forecast', { city: 'Bern' })).failure?.code).toBe('UNKNOWN_TOOL');
  });

  it('serializes with stop(): a stop right after a reload leaves no process', async () => {
    const reloading = host.reload();
    const stopping = host.stop();
    const report = await reloading;
    await stopping;
    expect(report.loaded).toHaveLength(5);
    for (const ext of report.loaded) expect(await isAlive(ext.pid!)).toBe(false);
    expect(host.extensions()).toEqual([]);
  });
});
