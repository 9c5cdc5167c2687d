// Commands: parsing, case-insensitive lookup, every action through the callbacks, error + action,
// unknown commands, host-side failures, and conflicts settled by load order (not arrival).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExtensionHost } from '../../src/host/host.js';
import type { StartReport } from '../../src/host/types.js';
import { fixture } from '../helpers/fixtures.js';
import { type Recorder, hostKit, textOf } from '../helpers/host.js';
import { nextEvent, waitUntil } from '../helpers/wait.js';

const kit = hostKit();

describe('runCommand', () => {
  let host: ExtensionHost;
  let rec: Recorder;

  beforeAll(async () => {
    let report: StartReport;
    ({ host, rec, report } = await kit.start({ explicit: [fixture('extensions/kitchen'), fixture('extensions/weather'), fixture('extensions/hello-sh')] }));
    expect(report.failed).toEqual([]);
  });

  it('lists commands in load order with their canonical spelling', () => {
    const commands = host.commands();
    expect(commands.slice(0, 3)).toEqual([
      { name: 'ask', description: 'prompt the model with "Q: <args>"', extension: 'kitchen' },
      { name: 'put', description: 'insert <args> into the editor', extension: 'kitchen' },
      { name: 'show', description: 'display <args>', extension: 'kitchen' },
    ]);
    expect(commands.slice(-2)).toEqual([
      { name: 'Weather', description: 'current weather for a city', extension: 'weather' },
      { name: 'hello-sh', description: 'say hi from sh', extension: 'hello-sh' },
    ]);
  });

  it('finds a command case-insensitively, trims args, and answers with the canonical name', async () => {
    const mark = rec.mark();
    const outcome = await host.runCommand('/weather   Paris  ');
    expect(outcome).toEqual({
      handled: true,
      name: 'Weather',
      args: 'Paris',
      extension: 'weather',
      action: 'prompt',
      text: "Show today's weather for Paris in one line.",
      panel: undefined,
      error: undefined,
      failure: undefined,
    });
    expect(rec.since(mark, 'prompt')).toEqual([{ extension: 'weather', command: 'Weather', text: "Show today's weather for Paris in one line." }]);
  });

  it('accepts { name, args } and keeps inner whitespace of args', async () => {
    const outcome = await host.runCommand({ name: 'WEATHER', args: '  New   York ' });
    expect(outcome).toMatchObject({ handled: true, name: 'Weather', args: 'New   York', text: "Show today's weather for New   York in one line." });
    expect(await host.runCommand({ name: '/weather' })).toMatchObject({ handled: true, args: '', text: "Show today's weather for Berlin in one line." });
  });

  it('applies prompt, insert, display, open_panel and noop through the callbacks', async () => {
    const mark = rec.mark();
    expect(await host.runCommand('/ask why not')).toMatchObject({ action: 'prompt', text: 'Q: why not' });
    expect(await host.runCommand('/put some text')).toMatchObject({ action: 'insert', text: 'some text' });
    expect(await host.runCommand('/show shown')).toMatchObject({ action: 'display', text: 'shown' });
    const panel = await host.runCommand('/panel');
    expect(panel).toMatchObject({ action: 'open_panel', panel: { extension: 'kitchen', panelId: 'kitchen-panel', title: 'Kitchen', lines: ['one'], footer: undefined } });
    expect(await host.runCommand('/hello-sh')).toMatchObject({ extension: 'hello-sh', action: 'display', text: 'hello from sh' });
    expect(await host.runCommand('/clear')).toMatchObject({ handled: true, action: 'noop', text: undefined, failure: undefined });
    expect(rec.calls.slice(mark).filter((c) => c.kind !== 'clearNotes')).toEqual([
      { kind: 'prompt', arg: { extension: 'kitchen', command: 'ask', text: 'Q: why not' } },
      { kind: 'insert', arg: { extension: 'kitchen', command: 'put', text: 'some text' } },
      { kind: 'display', arg: { extension: 'kitchen', command: 'show', text: 'shown' } },
      { kind: 'openPanel', arg: { extension: 'kitchen', panelId: 'kitchen-panel', title: 'Kitchen', lines: ['one'], footer: undefined } },
      { kind: 'display', arg: { extension: 'hello-sh', command: 'hello-sh', text: 'hello from sh' } },
    ]);
    expect(host.closePanel('kitchen-panel')).toBe(true);
    await rec.waitFor('notify', (n) => n.message === 'kitchen panel closed');
  });

  it('reports an error from the extension AND still runs the action', async () => {
    const mark = rec.mark();
    const outcome = await host.runCommand('/oops');
    expect(outcome).toMatchObject({ handled: true, action: 'display', text: 'partial', error: 'something failed', failure: undefined });
    expect(rec.calls.slice(mark)).toEqual([
      { kind: 'notify', arg: { extension: 'kitchen', level: 'error', message: 'something failed' } },
      { kind: 'display', arg: { extension: 'kitchen', command: 'oops', text: 'partial' } },
    ]);
  });

  it('returns "not handled" for an unknown command and calls nothing', async () => {
    const mark = rec.mark();
    expect(await host.runCommand('/nope  some args ')).toEqual({ handled: false, name: 'nope', args: 'some args' });
    expect(await host.runCommand({ name: 'also-nope' })).toEqual({ handled: false, name: 'also-nope', args: '' });
    expect(rec.calls.slice(mark)).toEqual([]);
  });

  it('turns a malformed response into a BAD_RESPONSE failure and a warning', async () => {
    const outcome = await host.runCommand('/badresponse');
    expect(outcome).toMatchObject({ handled: true, extension: 'kitchen', action: 'noop' });
    expect(outcome.handled && outcome.failure?.code).toBe('BAD_RESPONSE');
    const warning = await rec.waitFor('warning', (w) => w.code === 'BAD_RESPONSE' && w.message.includes('/badresponse'));
    expect(warning.extension).toBe('kitchen');
    expect(warning.logPath).toBe(host.extensions().find((e) => e.name === 'kitchen')!.logPath);
  });

  it('times out a command that never answers (timeoutMs) and aborts one through its signal', async () => {
    const timedOut = await host.runCommand('/noreply', { timeoutMs: 50 });
    expect(timedOut.handled && timedOut.failure?.code).toBe('TIMEOUT');
    const controller = new AbortController();
    const pending = host.runCommand('/noreply', { signal: controller.signal });
    controller.abort();
    const aborted = await pending;
    expect(aborted.handled && aborted.failure?.code).toBe('ABORTED');
    // The extension is still fine afterwards.
    expect(await host.runCommand('/show still here')).toMatchObject({ text: 'still here', failure: undefined });
  });
});

describe('conflicts: built-ins first, then load order, never arrival time', () => {
  let host: ExtensionHost;
  let report: StartReport;

  beforeAll(async () => {
    // first-slow is first in load order but says hello only after second-fast has written all of
    // its registrations (second-fast creates the CONFLICT_AFTER file, first-slow waits for it).
    ({ host, report } = await kit.start({
      explicit: [fixture('conflict/first-slow'), fixture('conflict/second-fast')],
      builtinCommands: ['help'],
      env: { ...process.env, CONFLICT_AFTER: path.join(kit.dir, 'second-fast-registered') },
    }));
  });

  it('really had the later-loaded extension register first', () => {
    const ms = Object.fromEntries(report.loaded.map((l) => [l.name, l.readyMs]));
    expect(ms['second-fast']).toBeLessThan(ms['first-slow']!);
  });

  it('gives a command to the earlier-loaded extension and sends its canonical spelling', async () => {
    expect(host.commands()).toEqual([
      { name: 'dup', description: 'dup of first-slow', extension: 'first-slow' },
      { name: 'fast-only', description: 'no conflict', extension: 'second-fast' },
    ]);
    // first-slow echoes the name it received: the canonical "dup", whatever the user typed.
    expect(await host.runCommand('/DUP')).toMatchObject({ handled: true, name: 'dup', extension: 'first-slow', text: 'first-slow /dup' });
  });

  it('gives a tool to the earlier-loaded extension; built-in tools always win', async () => {
    expect(host.tools()).toEqual([{ name: 'dup_tool', description: 'dup_tool of first-slow', schema: { type: 'object' }, extension: 'first-slow' }]);
    const result = await host.callTool('dup_tool', {});
    expect(result.extension).toBe('first-slow');
    expect(textOf(result)).toBe('first-slow');
    expect((await host.callTool('bash', { command: 'ls' })).failure?.code).toBe('UNKNOWN_TOOL');
  });

  it('leaves built-in commands to the agent (not handled)', async () => {
    expect(await host.runCommand('/HELP me')).toEqual({ handled: false, name: 'HELP', args: 'me' });
  });

  it('marks the losing registrations inactive in extensions()', () => {
    const fast = host.extensions().find((e) => e.name === 'second-fast')!;
    expect(fast.commands.map((c) => [c.name, c.active])).toEqual([
      ['DUP', false],
      ['Help', false],
      ['fast-only', true],
    ]);
    expect(fast.tools.map((t) => [t.name, t.active])).toEqual([
      ['dup_tool', false],
      ['bash', false],
    ]);
  });

  it('records every conflict as a diagnostic and in the losing extension log', async () => {
    const conflicts = host.diagnostics().filter((d) => d.code === 'REGISTRATION_CONFLICT');
    expect(conflicts.every((d) => d.extension === 'second-fast')).toBe(true);
    const messages = conflicts.map((d) => d.message).sort();
    expect(messages).toEqual(
      [
        'command /Help of second-fast is shadowed by a built-in',
        'command /dup of second-fast is shadowed by first-slow (earlier in load order)',
        'tool bash of second-fast is shadowed by a built-in',
        'tool dup_tool of second-fast is shadowed by first-slow (earlier in load order)',
      ].sort(),
    );
    const logPath = host.extensions().find((e) => e.name === 'second-fast')!.logPath;
    await waitUntil('the conflicts are in the log', async () => {
      const log = await readFile(logPath, 'utf8');
      return messages.every((m) => log.includes(m));
    });
  });
});

describe('commands registered after ready', () => {
  let host: ExtensionHost;

  beforeAll(async () => {
    let report: StartReport;
    ({ host, report } = await kit.start({ explicit: [fixture('faults/command-flood')] }));
    expect(report.failed).toEqual([]);
  });

  it('announces a burst of 5,000 registrations in one or a few commands:changed, with all of them', async () => {
    const emissions: number[] = [];
    host.on('commands:changed', (commands) => emissions.push(commands.length));
    const all = nextEvent(host, 'commands:changed', (commands) => commands.length === 5001);
    expect(await host.runCommand('/flood 5000')).toMatchObject({ handled: true, action: 'noop' });
    const announced = await all;
    expect(announced.map((c) => c.name)).toEqual(['flood', ...Array.from({ length: 5000 }, (_, i) => `c${i + 1}`)]);
    expect(host.commands()).toHaveLength(5001);
    // One per stdout chunk the registrations arrive in (a 64 KiB pipe read holds ~1,000), not one per command.
    expect(emissions.length).toBeGreaterThanOrEqual(1);
    expect(emissions.length).toBeLessThanOrEqual(50);
    expect(emissions.at(-1)).toBe(5001);
  });
});
