// zot's call_tool end to end (issue 30): SDK extensions run as real processes (fixtures/sdk/relay in
// TypeScript, fixtures/sdk/relay-py in Python, fixtures/sdk/greeter as the callee) under the host.
import { describe, expect, it } from 'vitest';
import { fixture } from '../helpers/fixtures.js';
import { hostKit, textOf } from '../helpers/host.js';
import { gate, nextEvent, SPAWN_WAIT_MS } from '../helpers/wait.js';

const kit = hostKit();

describe('call_tool with the SDKs', { timeout: 20_000 }, () => {
  it("calls another extension's tool from TS and Python, through each other; refuses a cycle; settles a pending call at stop()", async () => {
    const holding = gate();
    const { host, report } = await kit.start({
      explicit: [fixture('sdk/greeter'), fixture('sdk/relay'), fixture('sdk/relay-py')],
      timeouts: { hello: SPAWN_WAIT_MS },
      frameTap: ({ extension, direction, line }) => {
        if (extension === 'relay-py' && direction === 'out' && line.includes('"name":"hold"')) holding.open();
      },
    });
    expect(report.loaded.map((l) => l.name)).toEqual(['greeter', 'relay', 'relay-py']);
    expect(host.extensions().find((e) => e.name === 'relay')!.capabilities).toContain('call_tool');

    expect(textOf(await host.callTool('relay', { name: 'add', args: { a: 1, b: 2 } }))).toBe('relay: 3');
    expect(textOf(await host.callTool('relay_py', { name: 'add', args: { a: 2, b: 3 } }))).toBe('relay_py: 5');
    // Python -> TypeScript -> greeter: a chain of three, each inside its parent.
    const chained = nextEvent(host, 'tool:called', (c) => c.toolName === 'add', SPAWN_WAIT_MS);
    expect(textOf(await host.callTool('relay_py', { name: 'relay', args: { name: 'add', args: { a: 4, b: 5 } } }))).toBe('relay_py: relay: 9');
    expect(await chained).toMatchObject({ extension: 'relay', chain: ['relay_py', 'relay', 'add'], ranBy: 'greeter', isError: false });
    // Bad args reach the callee's validation: an error result, not a failure.
    const bad = await host.callTool('relay', { name: 'add', args: { a: 'x' } });
    expect(bad.isError).toBe(true);
    // relay's ping_back -> relay-py's bounce -> ping_back again: refused, and the refusal comes back.
    const cycle = await host.callTool('ping_back', {});
    expect(cycle).toMatchObject({ isError: true, content: [{ type: 'text', text: 'ping_back: bounce: tool call cycle detected' }] });

    // stop() with a call pending at relay-py's `hold`: everything settles, nothing hangs.
    const held = nextEvent(host, 'tool:called', (c) => c.toolName === 'hold', SPAWN_WAIT_MS);
    const pending = host.callTool('relay', { name: 'hold', args: {} });
    await holding.promise;
    await host.stop();
    expect((await held).isError).toBe(true);
    expect((await pending).isError).toBe(true);
  });
});
