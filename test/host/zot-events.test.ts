// zot's lifecycle events and event fields (issue 30; docs/protocol.md "zot versions"), over raw
// in-memory extensions that record the host's bytes: a snapshot-era extension sees exactly the bytes
// it saw before; one that declared a capability also gets session_id, cwd and sequence.
import { describe, expect, it } from 'vitest';
import type { ExtensionHost } from '../../src/index.js';
import { MEMORY_WAIT_MS, waitUntil } from '../helpers/wait.js';
import { memoryHosts, type WireExtension, wireExtension } from '../helpers/wire-extension.js';

const hosts = memoryHosts('zot-events-');

const ALL_EVENTS = { type: 'subscribe', events: ['session_start', 'turn_start', 'session_end', 'tool_result', 'custom_thing'] };

async function start(extensions: WireExtension[], options: { sessionId?: string } = { sessionId: 's-1' }): Promise<ExtensionHost> {
  const host = await hosts.start({ inMemory: extensions, ...options });
  expect(host.extensions().map((e) => e.state)).toEqual(extensions.map(() => 'ready'));
  return host;
}

const eventLines = (ext: WireExtension) => ext.lines.filter((line) => line.startsWith('{"type":"event"'));
const waitLines = (ext: WireExtension, n: number) => waitUntil(`${ext.name} got ${n} events`, () => eventLines(ext).length >= n, MEMORY_WAIT_MS);

describe('events to a snapshot-era extension', () => {
  it('are the bytes it saw before: no added fields, no hello_ack.capabilities (also with capability names the host does not know)', async () => {
    const plain = wireExtension('plain', { setup: [ALL_EVENTS] });
    const named = wireExtension('named', { capabilities: ['commands', 'tools', 'events'], setup: [ALL_EVENTS] });
    const h = await start([plain, named]);
    expect(h.emit({ event: 'session_start' })).toBe(2);
    h.emit({ event: 'turn_start', step: 1 });
    h.emit({ event: 'session_end', reason: 'shutdown' });
    h.emit({ event: 'custom_thing', n: [1] });
    await waitLines(plain, 4);
    await waitLines(named, 4);
    const expected = [
      '{"type":"event","event":"session_start"}',
      '{"type":"event","event":"turn_start","step":1}',
      '{"type":"event","event":"session_end","reason":"shutdown"}',
      '{"type":"event","event":"custom_thing","n":[1]}',
    ];
    expect(eventLines(plain)).toEqual(expected);
    expect(eventLines(named)).toEqual(expected);
    for (const ext of [plain, named]) expect(Object.keys(ext.frames('hello_ack')[0]!)).toEqual(['type', 'protocol_version', 'zot_version', 'provider', 'model', 'cwd', 'extension_dir', 'data_dir']);
  });

  it('still get the fields the embedder passes, as given', async () => {
    const plain = wireExtension('plain', { setup: [ALL_EVENTS] });
    const h = await start([plain]);
    h.emit({ event: 'turn_start', step: 2, session_id: 'mine', sequence: 7 });
    await waitLines(plain, 1);
    expect(eventLines(plain)).toEqual(['{"type":"event","event":"turn_start","step":2,"session_id":"mine","sequence":7}']);
  });
});

describe('events to an extension that declared a capability', () => {
  it("get zot's session_id, cwd and sequence after the event name; sequence counts every emit, also those nobody got", async () => {
    const ours = wireExtension('ours', { capabilities: ['cancel'], setup: [ALL_EVENTS] });
    const zot = wireExtension('zot', { capabilities: ['commands', 'tools', 'tool_cancel', 'call_tool'], setup: [ALL_EVENTS] });
    const h = await start([ours, zot]);
    expect(h.emit({ event: 'nobody_listens' })).toBe(0);
    h.emit({ event: 'turn_start', step: 1 });
    h.emit({ event: 'tool_result', tool_id: 't1', tool_name: 'read', status: 'completed', executed: true, result: { content: [{ type: 'text', text: 'hi' }], is_error: false } });
    await waitLines(ours, 2);
    await waitLines(zot, 2);
    const cwd = JSON.stringify(hosts.dir);
    const expected = [
      `{"type":"event","event":"turn_start","session_id":"s-1","cwd":${cwd},"sequence":2,"step":1}`,
      `{"type":"event","event":"tool_result","session_id":"s-1","cwd":${cwd},"sequence":3,"tool_id":"t1","tool_name":"read","status":"completed","executed":true,"result":{"content":[{"type":"text","text":"hi"}],"is_error":false}}`,
    ];
    expect(eventLines(ours)).toEqual(expected);
    expect(eventLines(zot)).toEqual(expected);
  });

  it("keeps the embedder's own values; without the sessionId option the session id is one random id per host", async () => {
    const ours = wireExtension('ours', { capabilities: ['progress'], setup: [ALL_EVENTS] });
    const h = await start([ours], {});
    h.emit({ event: 'session_start' });
    h.emit({ event: 'session_start', session_id: 'given', cwd: '/elsewhere', sequence: 99 });
    await waitLines(ours, 2);
    const [first, second] = ours.frames('event');
    expect(first).toMatchObject({ session_id: expect.stringMatching(/^[0-9a-f-]{36}$/), cwd: hosts.dir, sequence: 1 });
    expect(second).toEqual({ type: 'event', event: 'session_start', session_id: 'given', cwd: '/elsewhere', sequence: 99 });
  });
});

describe('hello_ack.capabilities', () => {
  it("lists what the host grants of ours, then zot's call_tool when declared; never tool_cancel (zot does not ack it); absent when nothing is granted", async () => {
    const zotOnly = wireExtension('zot-only', { capabilities: ['commands', 'tool_cancel', 'call_tool'] });
    const mixed = wireExtension('mixed', { capabilities: ['call_tool', 'cancel', 'trace'] });
    const cancelOnly = wireExtension('cancel-only', { capabilities: ['tool_cancel'] });
    await start([zotOnly, mixed, cancelOnly]);
    expect(zotOnly.frames('hello_ack')[0]!.capabilities).toEqual(['call_tool']);
    expect(mixed.frames('hello_ack')[0]!.capabilities).toEqual(['cancel', 'call_tool']);
    expect(cancelOnly.lines[0]).not.toContain('capabilities');
  });
});

describe("emit() checks zot's events and fields", () => {
  it('refuses a known event with a missing or wrong field, naming it, and numbers nothing for it', async () => {
    const ours = wireExtension('ours', { capabilities: ['cancel'], setup: [ALL_EVENTS] });
    const h = await start([ours]);
    const bad: { event: string; [field: string]: unknown }[] = [
      { event: 'session_end' },
      { event: 'session_start', sequence: -1 },
      { event: 'session_start', session_id: 5 },
      { event: 'tool_result', tool_id: 't', tool_name: 'n', status: 'completed', executed: 'yes', result: { content: [], is_error: false } },
      { event: 'tool_result', tool_id: 't', tool_name: 'n', status: 'completed', executed: true, result: { content: 'x', is_error: false } },
      { event: 'user_prompt_submit', image_count: 1.5 },
      { event: 'post_compact', compaction_id: 'c', message_count: 1, token_estimate: 0 },
    ];
    for (const event of bad) expect(() => h.emit(event), JSON.stringify(event)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => h.emit({ event: 'session_end' } as { event: string })).toThrow('emit: invalid event (session_end needs reason: a string, got nothing)');
    expect(() => h.emit({ event: 'session_start', sequence: 1.5 })).toThrow('session_start takes sequence: a non-negative integer, got a number');
    h.emit({ event: 'session_start' });
    await waitLines(ours, 1);
    expect(ours.frames('event')[0]).toMatchObject({ sequence: 1 });
  });
});

describe("zot's tool_cancel", () => {
  /** Registers `slow`, never answers its calls; `commands` too (a command that never answers). */
  const slow = (name: string, capabilities?: readonly string[]) =>
    wireExtension(name, { capabilities, setup: [{ type: 'register_tool', name: `${name}_slow`, schema: { type: 'object' } }, { type: 'register_command', name: `${name}_cmd` }] });

  it('reaches an extension that declared "tool_cancel" when a tool call is aborted or times out; ours goes to one that negotiated "cancel"; a plain one gets neither', async () => {
    const zot = slow('zot', ['tool_cancel']);
    const both = slow('both', ['cancel', 'tool_cancel']);
    const plain = slow('plain');
    const h = await start([zot, both, plain]);
    for (const ext of [zot, both, plain]) {
      const controller = new AbortController();
      const aborted = h.callTool(`${ext.name}_slow`, {}, { signal: controller.signal });
      await waitUntil('tool_call written', () => ext.frames('tool_call').length === 1, MEMORY_WAIT_MS);
      controller.abort();
      expect((await aborted).failure?.code).toBe('ABORTED');
      const timedOut = await h.callTool(`${ext.name}_slow`, {}, { timeoutMs: 20 });
      expect(timedOut.failure?.code).toBe('TIMEOUT');
      // A command is not a tool call: zot's frame never names one.
      expect((await h.runCommand(`/${ext.name}_cmd`, { timeoutMs: 20 })).handled).toBe(true);
    }
    const [first, second] = zot.frames('tool_call').map((f) => f.id as string);
    await waitUntil('tool_cancel x2', () => zot.frames('tool_cancel').length === 2, MEMORY_WAIT_MS);
    await waitUntil('cancel x3', () => both.frames('cancel').length === 3, MEMORY_WAIT_MS);
    const cancels = (ext: WireExtension) => ext.lines.filter((line) => /"type":"(tool_)?cancel"/.test(line));
    expect(cancels(zot)).toEqual([`{"type":"tool_cancel","id":"${first}"}`, `{"type":"tool_cancel","id":"${second}"}`]);
    expect(both.frames('tool_cancel')).toEqual([]);
    expect(both.frames('cancel').map((f) => f.reason)).toEqual(['aborted', 'timeout', 'timeout']);
    expect(cancels(plain)).toEqual([]);
    // The late answer to a cancelled call is dropped quietly, as zot does (no UNKNOWN_ID).
    zot.send({ type: 'tool_result', id: first!, content: [{ type: 'text', text: 'late' }] });
    expect(await h.callTool('zot_slow', {}, { timeoutMs: 20 })).toMatchObject({ failure: { code: 'TIMEOUT' } });
    expect(h.diagnostics().filter((d) => d.code === 'UNKNOWN_ID')).toEqual([]);
  });

  it('bad input: a tool_result for an id never sent or cancelled long ago is an UNKNOWN_ID diagnostic, nothing else', async () => {
    const zot = slow('zot', ['tool_cancel']);
    const h = await start([zot]);
    zot.send({ type: 'tool_result', id: 'no-such-id', content: [] });
    zot.send({ type: 'tool_cancel', id: 'x' } as never);
    await waitUntil('two diagnostics', () => h.diagnostics().filter((d) => d.extension === 'zot').length >= 2, MEMORY_WAIT_MS);
    expect(h.diagnostics().map((d) => d.code)).toEqual(expect.arrayContaining(['UNKNOWN_ID', 'UNKNOWN_TYPE']));
    expect(h.extensions()[0]!.state).toBe('ready');
  });
});
