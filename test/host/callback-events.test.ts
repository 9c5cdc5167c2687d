// Every callback is also a typed host event with the same argument: a second observer (a logger, a
// web UI) listens without wrapping the callbacks, and a host with no callbacks at all still tells it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExtensionHost } from '../../src/host/host.js';
import type { HostEvents } from '../../src/host/types.js';
import { fixture } from '../helpers/fixtures.js';
import { type Recorder, hostKit } from '../helpers/host.js';
import { nextEvent } from '../helpers/wait.js';

const kit = hostKit();
const EVENTS = ['prompt', 'submit', 'insert', 'display', 'notify', 'notes:clear', 'panel:open', 'panel:render', 'panel:close'] as const;
type Seen = { event: (typeof EVENTS)[number]; arg: unknown };

function listenAll(host: ExtensionHost): Seen[] {
  const seen: Seen[] = [];
  for (const event of EVENTS) (host.on as (name: string, fn: (arg: unknown) => void) => void)(event, (arg) => seen.push({ event, arg }));
  return seen;
}

describe('callbacks as events', () => {
  let host: ExtensionHost;
  let rec: Recorder;
  let seen: Seen[];

  beforeAll(async () => {
    ({ host, rec } = kit.create({ explicit: [fixture('extensions/kitchen'), fixture('extensions/todo')] }));
    seen = listenAll(host);
    const report = await host.start();
    expect(report.failed).toEqual([]);
  });

  it('emits each callback as its event, with the very argument the callback got, after it', async () => {
    await host.runCommand('/ask why');
    await host.runCommand('/put here');
    await host.runCommand('/show this');
    const submitted = nextEvent(host, 'submit');
    await host.runCommand('/bg job');
    await submitted;
    const cleared = nextEvent(host, 'notes:clear');
    await host.runCommand('/clear');
    await cleared;
    const byEvent = (event: Seen['event']) => seen.filter((s) => s.event === event).map((s) => s.arg);
    expect(byEvent('prompt')).toEqual([{ extension: 'kitchen', command: 'ask', text: 'Q: why' }]);
    expect(byEvent('prompt')[0]).toBe(rec.of('prompt')[0]);
    expect(byEvent('insert')).toEqual([{ extension: 'kitchen', command: 'put', text: 'here' }]);
    expect(byEvent('display')).toEqual([{ extension: 'kitchen', command: 'show', text: 'this' }]);
    expect(byEvent('submit')).toEqual([{ extension: 'kitchen', text: 'job' }]);
    expect(byEvent('notify')).toEqual([{ extension: 'kitchen', level: 'info', message: 'working: job' }]);
    expect(byEvent('notify')[0]).toBe(rec.of('notify')[0]);
    expect(byEvent('notes:clear')).toEqual([{ extension: 'kitchen' }]);
  });

  it('emits the panel callbacks as panel:open, panel:render and panel:close', async () => {
    await host.runCommand('/todo');
    const rendered = nextEvent(host, 'panel:render');
    host.panelKey('todos-main', 'down');
    await rendered;
    const closed = nextEvent(host, 'panel:close');
    host.panelKey('todos-main', 'esc');
    await closed;
    const panels = seen.filter((s) => s.event.startsWith('panel:'));
    expect(panels.map((s) => s.event)).toEqual(['panel:open', 'panel:render', 'panel:close']);
    expect(panels[0]!.arg).toBe(rec.of('openPanel')[0]);
    expect(panels[1]!.arg).toBe(rec.of('renderPanel')[0]);
    expect(panels[2]!.arg).toEqual({ extension: 'todo', panelId: 'todos-main', by: 'extension' });
  });

  it('contains a listener that throws: recorded as LISTENER_THREW, the callback and other listeners still run', async () => {
    const others: string[] = [];
    const throwing = () => {
      throw new Error('listener broke');
    };
    host.on('display', throwing);
    host.on('display', (d) => others.push(d.text));
    const mark = rec.mark();
    const outcome = await host.runCommand('/show again');
    host.off('display', throwing);
    expect(outcome).toMatchObject({ handled: true, action: 'display', failure: undefined });
    expect(rec.since(mark, 'display').map((d) => d.text)).toEqual(['again']);
    expect(host.diagnostics().filter((d) => d.code === 'LISTENER_THREW').map((d) => d.message)).toContain("a listener of 'display' threw: listener broke");
  });
});

describe('a host without callbacks', () => {
  let host: ExtensionHost;
  const notes: HostEvents['notify'][0][] = [];
  afterAll(() => host.stop());

  it('still emits every action as an event', async () => {
    ({ host } = kit.create({ explicit: [fixture('extensions/hello-sh')], omit: ['prompt', 'submit', 'insert', 'display', 'notify', 'clearNotes', 'openPanel', 'renderPanel', 'closePanel', 'toolsChanged', 'warning'] }));
    host.on('notify', (note) => notes.push(note));
    const noted = nextEvent(host, 'notify');
    await host.start();
    await noted;
    const displayed = nextEvent(host, 'display');
    await host.runCommand('/hello-sh');
    expect(await displayed).toEqual({ extension: 'hello-sh', command: 'hello-sh', text: 'hello from sh' });
    expect(notes).toEqual([{ extension: 'hello-sh', level: 'success', message: 'hello-sh ready' }]);
  });
});
