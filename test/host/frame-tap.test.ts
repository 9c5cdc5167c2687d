// ExtensionHostOptions.frameTap: every line both ways, as `zot-ext run --trace` prints them; a tap
// that throws is a CALLBACK_THREW diagnostic and the call it saw still completes.
import { describe, expect, it } from 'vitest';
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
