// emit() sends to each event's ready subscribers as they are now, though it keeps them listed per
// event between emits: a subscription after ready, a crash, and the restart after it.
import { describe, expect, it } from 'vitest';
import { fixture } from '../helpers/fixtures.js';
import { hostKit } from '../helpers/host.js';
import { nextEvent } from '../helpers/wait.js';

const kit = hostKit();

describe('emit() and changing subscribers', () => {
  it('reaches an extension that subscribes after ready, from the next emit on', { timeout: 20_000 }, async () => {
    const { host } = await kit.start({ explicit: [fixture('faults/registration-flood'), fixture('extensions/kitchen')] });
    expect(host.emit({ event: 'custom_0' })).toBe(0);
    expect(host.emit({ event: 'custom_thing' })).toBe(1);
    // One subscribe frame with custom_0 .. custom_2, then the command's answer.
    await host.runCommand('/flood events 3');
    expect(host.emit({ event: 'custom_0' })).toBe(1);
    expect(host.emit({ event: 'custom_2' })).toBe(1);
    expect(host.emit({ event: 'custom_3' })).toBe(0);
    expect(host.emit({ event: 'custom_thing' })).toBe(1);
  });

  it('leaves out an extension that crashed, and sends to it again once it restarted', { timeout: 20_000 }, async () => {
    const { host } = await kit.start({ explicit: [fixture('extensions/kitchen')], restart: { backoffMs: [0], jitter: 0 } });
    expect(host.emit({ event: 'turn_start', step: 1 })).toBe(1);
    const restarting = nextEvent(host, 'extension:state', (c) => c.name === 'kitchen' && c.state === 'restarting');
    const ready = nextEvent(host, 'extension:state', (c) => c.name === 'kitchen' && c.state === 'ready' && c.previous === 'starting');
    await host.callTool('crash', {});
    await restarting;
    expect(host.emit({ event: 'turn_start', step: 2 })).toBe(0);
    await ready;
    expect(host.emit({ event: 'turn_start', step: 3 })).toBe(1);
  });
});
