// Tools: the active list, results and every failure shape, deferred activation, late registration,
// and 300 concurrent calls across several extensions.
import { beforeAll, describe, expect, it } from 'vitest';
import { ExtensionHostError } from '../../src/errors.js';
import type { ExtensionHost } from '../../src/host/host.js';
import { fixture } from '../helpers/fixtures.js';
import { type Recorder, hostKit, textOf } from '../helpers/host.js';
import { nextEvent } from '../helpers/wait.js';

const kit = hostKit();
let host: ExtensionHost;
let rec: Recorder;

beforeAll(async () => {
  const started = await kit.start({
    explicit: [fixture('extensions/kitchen'), fixture('extensions/weather'), fixture('faults/trickle-ready'), fixture('faults/echo-py')],
  });
  ({ host, rec } = started);
  expect(started.report.failed).toEqual([]);
});

const CITY_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

describe('tools()', () => {
  it('lists active tools only, in load order, with the schema exactly as sent', () => {
    const tools = host.tools();
    expect(tools.map((t) => `${t.extension}/${t.name}`)).toEqual([
      ...['echo', 'slow', 'hang', 'crash', 'image', 'bad_result', 'fail', 'closeout'].map((n) => `kitchen/${n}`),
      'weather/weather', // forecast is deferred: hidden until activated
      'weather/enable_forecast',
      ...['t0', 't1', 't2', 't3', 't4', 't5'].map((n) => `trickle-ready/${n}`),
      // echo-py's echo loses to kitchen's (earlier in load order)
    ]);
    expect(tools.find((t) => t.name === 'weather')).toEqual({ name: 'weather', description: 'Get the current weather for a city.', schema: CITY_SCHEMA, extension: 'weather' });
    expect(tools.find((t) => t.name === 'slow')!.schema).toEqual({ type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] });
    expect(tools.find((t) => t.name === 'echo')).toEqual({ name: 'echo', description: 'Return the args as JSON text.', schema: { type: 'object' }, extension: 'kitchen' });
  });

  it('keeps the losing registration visible but inactive', () => {
    const echoPy = host.extensions().find((e) => e.name === 'echo-py')!;
    expect(echoPy.tools).toEqual([{ name: 'echo', description: 'Return the args as compact JSON text.', deferred: false, active: false }]);
  });
});

describe('callTool', () => {
  it('resolves the extension result', async () => {
    const args = { a: 1, nested: { b: [1, 'x'] }, text: 'héllo' };
    expect(await host.callTool('echo', args)).toEqual({
      content: [{ type: 'text', text: JSON.stringify(args) }],
      isError: false,
      extension: 'kitchen',
      activatedTools: [],
      failure: undefined,
    });
    expect(textOf(await host.callTool('weather', { city: 'Oslo' }))).toBe('Oslo: 16°C, fog');
  });

  it('without args sends {} (as the test kit does)', async () => {
    expect(await host.callTool('echo')).toMatchObject({ content: [{ type: 'text', text: '{}' }], isError: false, failure: undefined });
  });

  it('passes an error result through as isError without a host failure', async () => {
    expect(await host.callTool('fail', {})).toEqual({ content: [{ type: 'text', text: 'failed on purpose' }], isError: true, extension: 'kitchen', activatedTools: [], failure: undefined });
    const missing = await host.callTool('weather', {});
    expect(missing).toMatchObject({ isError: true, failure: undefined });
    expect(textOf(missing)).toBe('weather: missing city');
  });

  it('maps image blocks', async () => {
    const result = await host.callTool('image', {});
    expect(result).toMatchObject({ isError: false, content: [{ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }] });
  });

  it('turns a malformed result into isError with BAD_RESPONSE', async () => {
    const result = await host.callTool('bad_result', {});
    expect(result.isError).toBe(true);
    expect(result.extension).toBe('kitchen');
    expect(result.failure).toBeInstanceOf(ExtensionHostError);
    expect(result.failure!.code).toBe('BAD_RESPONSE');
    expect(textOf(result)).toBe(result.failure!.message);
  });

  it('turns an unknown tool into isError with UNKNOWN_TOOL', async () => {
    const result = await host.callTool('no_such_tool', {});
    expect(result).toMatchObject({ isError: true, extension: undefined, activatedTools: [] });
    expect(result.failure!.code).toBe('UNKNOWN_TOOL');
    expect(textOf(result)).toContain('no_such_tool');
  });

  it('refuses args that are not an object', async () => {
    const result = await host.callTool('echo', ['not', 'an', 'object'] as unknown as Record<string, unknown>);
    expect(result.isError).toBe(true);
    expect(result.failure!.code).toBe('INVALID_ARGUMENT');
  });

  it('times out a call that gets no answer (timeoutMs), naming the log', async () => {
    const result = await host.callTool('hang', {}, { timeoutMs: 50 });
    expect(result).toMatchObject({ isError: true, extension: 'kitchen' });
    expect(result.failure!.code).toBe('TIMEOUT');
    expect(result.failure!.logPath).toBe(host.extensions().find((e) => e.name === 'kitchen')!.logPath);
    expect(textOf(result)).toContain(result.failure!.logPath!);
  });

  it('aborts a call in flight, and one whose signal is already aborted', async () => {
    const controller = new AbortController();
    const pending = host.callTool('hang', {}, { signal: controller.signal });
    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ isError: true, extension: 'kitchen' });
    expect(result.failure!.code).toBe('ABORTED');
    expect((await host.callTool('echo', {}, { signal: AbortSignal.abort() })).failure!.code).toBe('ABORTED');
  });

  it('does not let a slow call delay another one', async () => {
    const slow = host.callTool('slow', { ms: 300 });
    const fast = await host.callTool('echo', { fast: true });
    expect(textOf(fast)).toBe('{"fast":true}');
    expect(textOf(await slow)).toBe('slept 300');
  });
});

describe('deferred tools', () => {
  it('hides a deferred tool until a result activates it, then announces it; unknown names are ignored', async () => {
    expect(host.tools().some((t) => t.name === 'forecast')).toBe(false);
    const hidden = await host.callTool('forecast', { city: 'Rome' });
    expect(hidden.failure!.code).toBe('UNKNOWN_TOOL');
    expect(textOf(hidden)).toContain('deferred');

    const changed = nextEvent(host, 'tools:changed', (tools) => tools.some((t) => t.name === 'forecast'));
    const mark = rec.mark();
    const enable = await host.callTool('enable_forecast', {});
    expect(enable).toEqual({ content: [{ type: 'text', text: 'Enabled forecast' }], isError: false, extension: 'weather', activatedTools: ['forecast'], failure: undefined });
    const tools = await changed;
    expect(tools.find((t) => t.name === 'forecast')).toEqual({ name: 'forecast', description: "Get tomorrow's forecast for a city.", schema: { type: 'object', properties: { city: { type: 'string' } } }, extension: 'weather' });
    expect(tools.some((t) => t.name === 'no_such_tool')).toBe(false);
    expect(rec.since(mark, 'toolsChanged')).toEqual([tools]);
    expect(textOf(await host.callTool('forecast', { city: 'Rome' }))).toBe('Rome: tomorrow 18°C, sun');
  });
});

describe('registrations after ready', () => {
  it('accepts a tool registered after ready and announces it', async () => {
    const changed = nextEvent(host, 'tools:changed', (tools) => tools.some((t) => t.name === 'late_tool'));
    expect(await host.runCommand('/latetool')).toMatchObject({ handled: true, action: 'noop' });
    const tools = await changed;
    expect(tools.find((t) => t.name === 'late_tool')).toEqual({ name: 'late_tool', description: 'registered after ready', schema: { type: 'object', properties: {} }, extension: 'kitchen' });
    expect(await rec.waitFor('toolsChanged', (list) => list.some((t) => t.name === 'late_tool'))).toEqual(tools);
    expect(textOf(await host.callTool('late_tool', {}))).toBe('late');
  });
});

describe('concurrency', () => {
  it('resolves 300 concurrent calls across several extensions, each to its own answer', async () => {
    const calls = Array.from({ length: 300 }, (_, i) => {
      switch (i % 3) {
        case 0:
          return { name: 'echo', args: { i, tag: `k${i}` }, expected: JSON.stringify({ i, tag: `k${i}` }), extension: 'kitchen' };
        case 1:
          return { name: `t${i % 6}`, args: {}, expected: `t${i % 6}`, extension: 'trickle-ready' };
        default:
          return { name: 'weather', args: { city: `city${i}` }, expected: `city${i}: 16°C, fog`, extension: 'weather' };
      }
    });
    const results = await Promise.all(calls.map((c) => host.callTool(c.name, c.args, { timeoutMs: 10_000 })));
    expect(results.map((r) => [r.extension, r.isError, textOf(r)])).toEqual(calls.map((c) => [c.extension, false, c.expected]));
  });
});
