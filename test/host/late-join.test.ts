// The hello deadline: start() waits for hello only up to timeouts.hello; an extension still silent
// then is reported `starting` and joins later, up to timeouts.helloJoin (zot has no hello deadline,
// and a launcher on a cold cache takes seconds). fixtures/faults/slow-hello says hello after 700 ms.
import { describe, expect, it } from 'vitest';
import { ExtensionHostError } from '../../src/errors.js';
import type { ExtensionState } from '../../src/host/types.js';
import { fixture } from '../helpers/fixtures.js';
import { hostKit } from '../helpers/host.js';
import { nextEvent } from '../helpers/wait.js';

const kit = hostKit();

describe('an extension that says hello after start() went on', () => {
  it('is reported starting, then joins: state event, commands:changed, and its command works', async () => {
    // slow-hello waits 700 ms before its hello: a 50 ms bound leaves it behind on any machine.
    const { host, rec } = kit.create({ explicit: [fixture('faults/slow-hello')], timeouts: { hello: 50, helloJoin: 10_000 } });
    const states: string[] = [];
    host.on('extension:state', (c) => states.push(`${c.name}:${c.state}`));
    const joined = nextEvent(host, 'extension:state', (c) => c.name === 'slow-hello' && c.state === 'ready');
    const commandsChanged = nextEvent(host, 'commands:changed', (commands) => commands.some((c) => c.name === 'slow-hello'));
    const report = await host.start();
    expect(report.loaded).toEqual([]);
    expect(report.failed).toEqual([]);
    expect(report.starting).toEqual([{ name: 'slow-hello', source: 'explicit', logPath: host.extensions()[0]!.logPath }]);
    expect(host.extensions()[0]!.state).toBe('starting');
    // Until it joins, it owns nothing the agent can see.
    expect(host.commands()).toEqual([]);
    expect(await host.runCommand('/slow-hello')).toEqual({ handled: false, name: 'slow-hello', args: '' });

    await joined;
    await commandsChanged;
    expect(host.commands().map((c) => c.name)).toContain('slow-hello');
    expect(await host.runCommand('/slow-hello')).toMatchObject({ handled: true, extension: 'slow-hello', text: 'hello from slow-hello' });
    expect(states.filter((s) => s.startsWith('slow-hello:'))).toEqual(['slow-hello:starting', 'slow-hello:ready']);
    expect(await rec.waitFor('notify', (n) => n.extension === 'slow-hello')).toMatchObject({ message: 'slow-hello ready' });
    expect((await host.start()).starting).toEqual([]);
    await host.stop();
  });

  it('announces the tools of a late joiner through toolsChanged once it is ready', async () => {
    const { host, rec } = kit.create({ explicit: [fixture('extensions/weather')], timeouts: { hello: 0, helloJoin: 10_000 } });
    const report = await host.start();
    // No process says hello within a 0 ms timer.
    expect(report.starting.map((s) => s.name)).toEqual(['weather']);
    expect(host.tools()).toEqual([]);
    const tools = await rec.waitFor('toolsChanged', (t) => t.length > 0);
    expect(tools.map((t) => t.name)).toEqual(['weather', 'enable_forecast']);
    expect(host.extensions()[0]!.state).toBe('ready');
    await host.stop();
  });

  it('fails with HELLO_TIMEOUT at helloJoin when it never says hello in time: state event and a warning', async () => {
    const { host, rec } = kit.create({ explicit: [fixture('faults/slow-hello')], timeouts: { hello: 50, helloJoin: 300 } });
    const failed = nextEvent(host, 'extension:state', (c) => c.name === 'slow-hello' && c.state === 'failed');
    const report = await host.start();
    expect(report.starting.map((s) => s.name)).toEqual(['slow-hello']);
    const change: { previous: ExtensionState | undefined } = await failed;
    expect(change.previous).toBe('starting');
    const warning = await rec.waitFor('warning', (w) => w.extension === 'slow-hello');
    expect(warning.error).toBeInstanceOf(ExtensionHostError);
    expect(warning.error?.code).toBe('HELLO_TIMEOUT');
    expect(warning.message).toContain('300 ms');
    expect(host.extensions()[0]).toMatchObject({ state: 'failed', error: { code: 'HELLO_TIMEOUT' } });
    await host.stop();
  });

  it('is stopped quietly when the host stops before it joins (no failure, no warning, no process)', async () => {
    const { host, rec } = kit.create({ explicit: [fixture('faults/silent')], timeouts: { hello: 50, helloJoin: 60_000, shutdown: 100 } });
    const report = await host.start();
    expect(report.starting.map((s) => s.name)).toEqual(['silent']);
    const mark = rec.mark();
    await host.stop(); // the leak check of test/setup.ts asserts the process is gone
    expect(host.extensions()).toEqual([]);
    expect(rec.since(mark, 'warning')).toEqual([]);
  });

  it('fails at hello, inside start(), when helloJoin is not longer than hello', async () => {
    const { host } = kit.create({ explicit: [fixture('faults/slow-hello')], timeouts: { hello: 100, helloJoin: 100 } });
    const report = await host.start();
    expect(report.starting).toEqual([]);
    expect(report.failed.map((f) => [f.name, f.error.code])).toEqual([['slow-hello', 'HELLO_TIMEOUT']]);
    await host.stop();
  });
});
