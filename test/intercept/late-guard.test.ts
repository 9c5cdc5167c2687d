// A fail-closed guard (interceptPolicy onFailure 'block') that is still starting when start()
// returns (a late hello join) gates calls all the same: its step waits for it within the deadline,
// and blocks when it is not ready by then.
import { expect, it } from 'vitest';
import { fixture } from '../helpers/fixtures.js';
import { hostKit } from '../helpers/host.js';
import { nextEvent } from '../helpers/wait.js';

const kit = hostKit();
const RM = { toolId: 't1', toolName: 'bash', args: { command: 'rm -rf /' } };

it('a late fail-closed guard is waited for within the step deadline, then asked', async () => {
  // hello: 0 makes the guard a late joiner (like an npx launcher on a cold cache).
  const { host } = kit.create({ explicit: [fixture('extensions/guard')], timeouts: { hello: 0, helloJoin: 10_000, intercept: 8000 }, interceptPolicy: { guard: { onFailure: 'block' } } });
  const report = await host.start();
  expect(report.starting.map((s) => s.name)).toEqual(['guard']);
  const d = await host.intercepts.toolCall(RM);
  expect(d).toMatchObject({ block: true, blockedBy: 'guard' });
  expect(d.trace[0]).toMatchObject({ interceptor: 'guard', decision: 'block' });
  await host.stop();
});

it('a late fail-closed guard not ready by the step deadline blocks; one without the policy is not waited for', async () => {
  const { host } = kit.create({ explicit: [fixture('faults/slow-hello'), fixture('extensions/guard')], timeouts: { hello: 0, helloJoin: 10_000, intercept: 50 }, interceptPolicy: { 'slow-hello': { onFailure: 'block' } } });
  await host.start();
  const joined = nextEvent(host, 'extension:state', (c) => c.name === 'slow-hello' && c.state === 'ready', 10_000);
  const d = await host.intercepts.toolCall({ ...RM, args: { command: 'ls' } });
  expect(d).toMatchObject({ block: true, blockedBy: 'slow-hello' });
  expect(d.trace[0]).toMatchObject({ interceptor: 'slow-hello', decision: 'failure', failure: 'timeout', failurePolicy: 'block' });
  await joined;
  // Ready and not intercepting tool_call: no longer in the chain for it.
  expect((await host.intercepts.toolCall({ ...RM, args: { command: 'ls' } })).block).toBe(false);
  await host.stop();
});
