// ExtensionHostOptions.frameTap: every line both ways, as `zot-ext run --trace` prints them; a tap
// that throws is a CALLBACK_THREW diagnostic and the call it saw still completes. host.on('frame')
// gets the same lines, from the moment it listens, redacted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrameTapEntry } from '../../src/host/types.js';
import { fixture } from '../helpers/fixtures.js';
import { hostKit } from '../helpers/host.js';

const kit = hostKit();

describe('frameTap', { timeout: 15_000 }, () => {
  it('sees the handshake and a tool call both ways, without the LF, with the extension and a time', async () => {
    const seen: FrameTapEntry[] = [];
    const { host } = kit.create({ explicit: [fixture('extensions/weather')], frameTap: (f) => seen.push(f) });
    await host.start();
    const result = await host.callTool('weather', { city: 'Oslo' });
    expect(result.isError).toBe(false);
    const kinds = seen.map((f) => `${f.direction} ${(JSON.parse(f.line) as { type: string }).type}`);
    expect(kinds.slice(0, 2)).toEqual(['in hello', 'out hello_ack']);
    expect(kinds).toContain('out tool_call');
    expect(kinds).toContain('in tool_result');
    for (const f of seen) {
      expect(f.extension).toBe('weather');
      expect(f.line.endsWith('\n')).toBe(false);
      expect(typeof f.at).toBe('number');
    }
  });

  it('a tap that throws is CALLBACK_THREW, and the call still gets its answer', async () => {
    const { host } = kit.create({
      explicit: [fixture('extensions/weather')],
      frameTap: () => {
        throw new Error('tap broke');
      },
    });
    await host.start();
    const result = await host.callTool('weather', { city: 'Oslo' });
    expect(result).toMatchObject({ isError: false, extension: 'weather' });
    expect(host.diagnostics().some((d) => d.code === 'CALLBACK_THREW' && d.message.includes('frameTap threw: tap broke'))).toBe(true);
  });

  it('is an option the constructor checks', () => {
    expect(() => kit.create({ frameTap: 'yes' as never })).toThrow(/frameTap/);
  });
});

describe("host.on('frame')", { timeout: 15_000 }, () => {
  const SECRET = 'zt-frame-secret-0123456789';
  const saved = process.env.ZOT_TEST_TOKEN;
  beforeAll(() => {
    process.env.ZOT_TEST_TOKEN = SECRET;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.ZOT_TEST_TOKEN;
    else process.env.ZOT_TEST_TOKEN = saved;
  });

  it('sees the lines both ways while it listens (a listener added after start too), and none after off()', async () => {
    const { host } = kit.create({ explicit: [fixture('extensions/weather')] });
    await host.start();
    const seen: FrameTapEntry[] = [];
    const listener = (f: FrameTapEntry) => seen.push(f);
    host.on('frame', listener);
    await host.callTool('weather', { city: 'Oslo' });
    expect(seen.map((f) => `${f.direction} ${(JSON.parse(f.line) as { type: string }).type}`)).toEqual(['out tool_call', 'in tool_result']);
    expect(seen[0]).toMatchObject({ extension: 'weather', direction: 'out' });
    host.off('frame', listener);
    await host.callTool('weather', { city: 'Oslo' });
    expect(seen).toHaveLength(2);
  });

  it('gets the lines redacted, as frameTap does; a throwing listener is LISTENER_THREW and the call completes', async () => {
    const tapped: FrameTapEntry[] = [];
    const { host } = kit.create({ explicit: [fixture('faults/env-dump')], env: 'minimal', envAllow: ['ZOT_TEST_*'], frameTap: (f) => tapped.push(f) });
    await host.start();
    const heard: FrameTapEntry[] = [];
    host.on('frame', (f) => heard.push(f));
    host.on('frame', () => {
      throw new Error('listener broke');
    });
    await host.runCommand('/leak');
    expect(heard.length).toBeGreaterThan(0);
    expect(heard).toEqual(tapped.slice(-heard.length));
    expect(JSON.stringify(heard)).not.toContain(SECRET);
    expect(heard.some((f) => f.line.includes('***'))).toBe(true);
    expect(host.diagnostics().some((d) => d.code === 'LISTENER_THREW' && d.message.includes('listener broke'))).toBe(true);
  });
});
