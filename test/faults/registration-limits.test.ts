// An extension can register only so much: commands plus tools, their characters, and event names
// are bounded per extension; what is refused is a limited REGISTRATION_LIMIT diagnostic.
import { expect, it } from 'vitest';
import { MAX_DIAGNOSTIC_CHARS, boundedMessage } from '../../src/host/outlet.js';
import { MAX_EVENT_NAMES, MAX_REGISTRATIONS } from '../../src/host/registrations.js';
import { fixture } from '../helpers/fixtures.js';
import { hostKit } from '../helpers/host.js';

const kit = hostKit();
const start = () => kit.start({ explicit: [fixture('faults/registration-flood'), fixture('faults/echo-py')] });
const limited = (host: Awaited<ReturnType<typeof start>>['host']) => host.diagnostics().filter((d) => d.code === 'REGISTRATION_LIMIT' && d.extension === 'registration-flood');

it('commands beyond the limit are refused; the others keep answering', { timeout: 20_000 }, async () => {
  const { host } = await start();
  await host.runCommand(`/flood commands ${MAX_REGISTRATIONS + 2000}`);
  await expect.poll(() => limited(host).length).toBeGreaterThan(0);
  expect(host.commands().filter((c) => c.extension === 'registration-flood')).toHaveLength(MAX_REGISTRATIONS);
  expect(limited(host).length).toBeLessThanOrEqual(6); // the first 5, then summaries
  expect(limited(host)[0]!.logPath).toBe(host.extensions()[0]!.logPath);
  expect((await host.callTool('echo', { a: 1 })).isError).toBe(false);
});

it('tools past the character budget and event names past the limit are refused', { timeout: 20_000 }, async () => {
  const { host } = await start();
  await host.runCommand('/flood tools 24 1024'); // 24 x 1 MiB descriptions: over 16 Mi characters
  await expect.poll(() => limited(host).length).toBeGreaterThan(0);
  const tools = host.tools().filter((t) => t.extension === 'registration-flood');
  expect(tools.length).toBeGreaterThan(10);
  expect(tools.length).toBeLessThan(24);
  await host.runCommand(`/flood events ${MAX_EVENT_NAMES + 500}`);
  await expect.poll(() => limited(host).some((d) => d.message.includes('event names'))).toBe(true);
  expect(host.emit({ event: `custom_${MAX_EVENT_NAMES + 100}` })).toBe(0);
  expect(host.emit({ event: 'custom_1' })).toBe(1);
});

it('a diagnostic quoting what an extension sent is cut to a bounded length', () => {
  const message = boundedMessage(`level ${'x'.repeat(4 * 1024 * 1024)} is unknown`);
  expect(message.length).toBeLessThan(MAX_DIAGNOSTIC_CHARS + 100);
  expect(message).toMatch(/more characters cut\)$/);
  expect(boundedMessage('short')).toBe('short');
});
