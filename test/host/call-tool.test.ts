// zot's call_tool / call_tool_cancel (issue 30; docs/protocol.md "zot versions"), over raw in-memory
// extensions: the negotiation, zot's checks and texts in zot's order, chains (cycles, depth), the
// intercept chain's originExtension, built-in tools, bounds (concurrency, deadline, result size),
// cancellation, and every pending request settling when either side goes away.
import { describe, expect, it } from 'vitest';
import type { ExtensionHost, ExtensionHostOptions, ExtensionToolCall, ToolCallInput } from '../../src/index.js';
import { MEMORY_WAIT_MS, nextEvent, waitUntil } from '../helpers/wait.js';
import { memoryHosts, type WireExtension, type WireFrame, wireExtension } from '../helpers/wire-extension.js';

const hosts = memoryHosts('call-tool-');
const CALLER = ['call_tool'];

/** An extension with tool `echo` that answers with its args as text. */
const echo = (name = 'echo-ext', extra: WireFrame[] = []) =>
  wireExtension(name, {
    setup: [{ type: 'register_tool', name: 'echo' }, ...extra],
    answer: (f) => (f.type === 'tool_call' && f.name === 'echo' ? { type: 'tool_result', id: f.id, content: [{ type: 'text', text: `echo ${JSON.stringify(f.args)}` }] } : undefined),
  });

/** An extension with tool `slow` that never answers (it declares zot's tool_cancel). */
const slow = () => wireExtension('slow-ext', { capabilities: ['tool_cancel'], setup: [{ type: 'register_tool', name: 'slow' }] });

async function start(extensions: WireExtension[], options: Partial<ExtensionHostOptions> = {}): Promise<ExtensionHost> {
  const host = await hosts.start({ inMemory: extensions, ...options });
  expect(host.extensions().map((e) => [e.name, e.state])).toEqual(extensions.map((e) => [e.name, 'ready']));
  return host;
}

/** Sends `frame` from `ext` and resolves the host's answer to it (`'tool:called'`). */
async function ask(host: ExtensionHost, ext: WireExtension, frame: Record<string, unknown>): Promise<{ reply: WireFrame; call: ExtensionToolCall }> {
  const called = nextEvent(host, 'tool:called', (c) => c.extension === ext.name && c.requestId === frame.id, MEMORY_WAIT_MS);
  ext.send({ type: 'call_tool', ...frame });
  const call = await called;
  const reply = ext.frames('tool_result').find((f) => f.id === frame.id);
  return { reply: reply!, call };
}

const error = (id: string, name: string, text: string) => ({ type: 'tool_result', id, name, content: [{ type: 'text', text }], is_error: true });

describe('negotiation', () => {
  it('hello_ack lists call_tool only for an extension that declared it; a snapshot-era extension keeps its bytes and is answered "did not opt in"', async () => {
    const plain = wireExtension('plain');
    const caller = wireExtension('caller', { capabilities: ['tools', 'call_tool'] });
    const both = wireExtension('both', { capabilities: ['cancel', 'call_tool'] });
    const h = await start([plain, caller, both, echo()]);
    expect(Object.keys(plain.frames('hello_ack')[0]!)).toEqual(['type', 'protocol_version', 'zot_version', 'provider', 'model', 'cwd', 'extension_dir', 'data_dir']);
    expect(caller.frames('hello_ack')[0]!.capabilities).toEqual(['call_tool']);
    expect(both.frames('hello_ack')[0]!.capabilities).toEqual(['cancel', 'call_tool']);
    const { reply } = await ask(h, plain, { id: '1', name: 'echo', args: {} });
    expect(plain.lines.at(-1)).toBe('{"type":"tool_result","id":"1","name":"echo","content":[{"type":"text","text":"extension did not opt in to call_tool"}],"is_error":true}');
    expect(reply).toEqual(error('1', 'echo', 'extension did not opt in to call_tool'));
  });
});

describe('call_tool', () => {
  it("runs another extension's tool and answers zot's tool_result (no is_error when it worked); the host reports it", async () => {
    const caller = wireExtension('caller', { capabilities: CALLER });
    const h = await start([caller, echo()]);
    const { reply, call } = await ask(h, caller, { id: 'sdk-1', name: 'echo', args: { city: 'Berlin' } });
    expect(caller.lines.at(-1)).toBe('{"type":"tool_result","id":"sdk-1","name":"echo","content":[{"type":"text","text":"echo {\\"city\\":\\"Berlin\\"}"}]}');
    expect(reply.is_error).toBeUndefined();
    expect(call).toMatchObject({ extension: 'caller', requestId: 'sdk-1', toolName: 'echo', parentId: undefined, chain: ['echo'], ranBy: 'echo-ext', isError: false, truncated: false, error: undefined });
    expect(call.toolId).toMatch(/^ext-call-\d+$/);
  });

  it("answers zot's error texts in zot's order; an empty or repeated id and wrong types get no answer (a diagnostic)", async () => {
    const caller = wireExtension('caller', { capabilities: CALLER, setup: [{ type: 'register_tool', name: 'hidden', deferred: true }] });
    const h = await start([caller, echo(), slow()]);
    const cases: [Record<string, unknown>, string][] = [
      [{ id: 'a', name: 'nope', args: {} }, 'no extension tool named nope'],
      [{ id: 'b', name: 'hidden', args: {} }, 'tool hidden is deferred and has not been activated'],
      [{ id: 'c', name: 'echo', args: [1] }, 'call_tool requires a name and JSON object args'],
      [{ id: 'd', name: 'echo' }, 'call_tool requires a name and JSON object args'],
      [{ id: 'e', args: {} }, 'call_tool requires a name and JSON object args'],
      [{ id: 'f', name: 'echo', args: null }, 'call_tool requires a name and JSON object args'],
      [{ id: 'g', name: 'echo', args: {}, parent_id: 'never-sent' }, 'unknown or expired parent tool call'],
      [{ id: 'h', name: 'read', args: {} }, 'tool read is built into the agent, which offers its tools to no extension (no callBuiltinTool callback)'],
    ];
    for (const [frame, text] of cases) expect((await ask(h, caller, frame)).reply).toEqual(error(frame.id as string, (frame.name as string | undefined) ?? '', text));
    // No answer: no id, an empty id, a number for a name (zot cannot read the frame), an id in flight.
    const pending = ask(h, caller, { id: 'busy', name: 'slow', args: {} });
    for (const frame of [{ name: 'echo', args: {} }, { id: '', name: 'echo', args: {} }, { id: 'x', name: 5, args: {} }, { id: 'busy', name: 'echo', args: {} }]) caller.send({ type: 'call_tool', ...frame });
    caller.send({ type: 'call_tool_cancel', id: 'busy' });
    expect((await pending).reply).toEqual(error('busy', 'slow', 'cancelled by call_tool_cancel'));
    expect(caller.frames('tool_result').map((f) => f.id)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'busy']);
    const codes = h.diagnostics().filter((d) => d.extension === 'caller').map((d) => d.code);
    expect(codes).toEqual(['CALL_TOOL_DROPPED', 'CALL_TOOL_DROPPED', 'INVALID_FRAME', 'CALL_TOOL_DROPPED']);
  });

  it('requires parent_id while a tool call to the extension is in flight, and carries it (the child ends with its parent)', async () => {
    let parent = '';
    const target = slow();
    const caller = wireExtension('caller', {
      capabilities: CALLER,
      setup: [{ type: 'register_tool', name: 'outer' }],
      answer: (f) => {
        if (f.type === 'tool_call') parent = f.id as string;
        return undefined;
      },
    });
    const h = await start([caller, echo(), target]);
    const outer = h.callTool('outer', {});
    await waitUntil('outer reached caller', () => parent !== '', MEMORY_WAIT_MS);
    expect((await ask(h, caller, { id: '1', name: 'echo', args: {} })).reply).toEqual(error('1', 'echo', 'parent_id is required while an extension tool is active'));
    expect((await ask(h, caller, { id: '2', name: 'outer', args: {}, parent_id: parent })).reply).toEqual(error('2', 'outer', 'tool call cycle detected'));
    const ok = await ask(h, caller, { id: '3', name: 'echo', args: { n: 1 }, parent_id: parent });
    expect(ok.call).toMatchObject({ parentId: parent, chain: ['outer', 'echo'], isError: false });
    // A child still running when its parent answers is ended with it.
    const child = ask(h, caller, { id: '4', name: 'slow', args: {}, parent_id: parent });
    await waitUntil('slow was called', () => target.frames('tool_call').length === 1, MEMORY_WAIT_MS);
    caller.send({ type: 'tool_result', id: parent, content: [{ type: 'text', text: 'done' }] });
    expect((await outer).content).toEqual([{ type: 'text', text: 'done' }]);
    expect((await child).reply).toEqual(error('4', 'slow', `call_tool slow: its parent tool call ${parent} ended`));
    // Once it ended, its id is no parent any more.
    expect((await ask(h, caller, { id: '5', name: 'echo', args: {}, parent_id: parent })).reply).toEqual(error('5', 'echo', 'unknown or expired parent tool call'));
  });

  it('an extension calling itself through another gets "tool call cycle detected" back, not a hang; chains stop at depth 4', async () => {
    // Each tool t<n> asks for `next(n)` inside its own call, and answers with what that answer says.
    const relay = (name: string, tools: string[], next: (tool: string) => string) => {
      const parents = new Map<string, string>();
      let seq = 0;
      const ext: WireExtension = wireExtension(name, {
        capabilities: CALLER,
        setup: tools.map((t) => ({ type: 'register_tool', name: t })),
        answer: (f) => {
          if (f.type === 'tool_call') {
            const id = `${name}-${++seq}`;
            parents.set(id, f.id as string);
            return { type: 'call_tool', id, name: next(f.name as string), args: {}, parent_id: f.id };
          }
          if (f.type === 'tool_result' && parents.has(f.id as string)) return { type: 'tool_result', id: parents.get(f.id as string), content: f.content, is_error: f.is_error };
          return undefined;
        },
      });
      return ext;
    };
    const a = relay('a-ext', ['a'], () => 'b');
    const b = relay('b-ext', ['b'], () => 'a');
    const deep = relay('deep-ext', ['d1', 'd2', 'd3', 'd4'], (t) => `d${Number(t.slice(1)) + 1}`);
    const h = await start([a, b, deep]);
    const cycle = await h.callTool('a', {});
    expect(cycle).toMatchObject({ isError: true, content: [{ type: 'text', text: 'tool call cycle detected' }] });
    const depth = await h.callTool('d1', {});
    expect(depth).toMatchObject({ isError: true, content: [{ type: 'text', text: 'tool call depth limit reached' }] });
    expect(deep.frames('tool_call').map((f) => f.name)).toEqual(['d1', 'd2', 'd3', 'd4']);
  });

  it('goes through the intercept chain with originExtension (extension interceptors get origin_extension); a block is the error text', async () => {
    const guard = wireExtension('guard', {
      setup: [{ type: 'subscribe', intercept: ['tool_call'] }],
      answer: (f) => (f.type === 'event_intercept' ? { type: 'event_intercept_response', id: f.id, ...((f.tool_args as { block?: boolean }).block === true ? { block: true, reason: 'not that' } : {}) } : undefined),
    });
    const caller = wireExtension('caller', { capabilities: CALLER });
    const h = await start([guard, caller, echo()]);
    const seen: ToolCallInput[] = [];
    h.intercepts.add({ name: 'rewrite', toolCall: (input) => (seen.push(input), { modifiedArgs: { ...input.args, by: 'rewrite' } }) });
    const ok = await ask(h, caller, { id: '1', name: 'echo', args: { n: 1 } });
    expect(ok.reply.content).toEqual([{ type: 'text', text: 'echo {"n":1,"by":"rewrite"}' }]);
    expect(seen).toEqual([{ toolId: ok.call.toolId, toolName: 'echo', args: { n: 1 }, originExtension: 'caller' }]);
    expect(guard.frames('event_intercept')[0]).toEqual({ type: 'event_intercept', event: 'tool_call', tool_id: ok.call.toolId, tool_name: 'echo', tool_args: { n: 1 }, origin_extension: 'caller', id: expect.any(String) });
    expect((await ask(h, caller, { id: '2', name: 'echo', args: { block: true } })).reply).toEqual(error('2', 'echo', 'not that'));
    // The agent's own calls carry no origin (the snapshot's bytes).
    await h.intercepts.toolCall({ toolId: 't', toolName: 'echo', args: {} });
    expect(guard.lines.at(-1)).not.toContain('origin_extension');
  });

  it("runs the agent's built-in tools through callBuiltinTool (signal, origin, checked result)", async () => {
    const caller = wireExtension('caller', { capabilities: CALLER });
    const calls: unknown[] = [];
    const h = await start([caller], {
      callbacks: {
        // The agent's own tools (builtinTools), for extensions that call them with zot's call_tool.
        callBuiltinTool: async ({ toolName, toolId, args, signal, extension }) => {
          calls.push({ toolName, toolId, args, signal: signal instanceof AbortSignal, extension });
          if (args.bad === true) return { nope: 1 } as never;
          if (args.throw === true) throw new Error('disk on fire');
          return { content: [{ type: 'text', text: `read ${String(args.path)}`, format: 'markdown' }, { type: 'text', text: '' }] };
        },
      },
    });
    const ok = await ask(h, caller, { id: '1', name: 'read', args: { path: 'go.mod' } });
    expect(ok.reply).toEqual({ type: 'tool_result', id: '1', name: 'read', content: [{ type: 'text', text: 'read go.mod', format: 'markdown' }] });
    expect(ok.call.ranBy).toBe('built-in');
    expect(calls).toEqual([{ extension: 'caller', toolName: 'read', toolId: ok.call.toolId, args: { path: 'go.mod' }, signal: true }]);
    expect((await ask(h, caller, { id: '2', name: 'read', args: { throw: true } })).reply).toEqual(error('2', 'read', 'tool read failed: disk on fire'));
    expect((await ask(h, caller, { id: '3', name: 'read', args: { bad: true } })).reply.is_error).toBe(true);
  });

  it('bounds the answer as zot does: 128 blocks, 256 KiB (text cut at a UTF-8 boundary), truncated set', async () => {
    const caller = wireExtension('caller', { capabilities: CALLER });
    const big = wireExtension('big', {
      setup: [{ type: 'register_tool', name: 'many' }, { type: 'register_tool', name: 'long' }],
      answer: (f) =>
        f.type !== 'tool_call'
          ? undefined
          : { type: 'tool_result', id: f.id, content: f.name === 'many' ? Array.from({ length: 200 }, (_, i) => ({ type: 'text', text: `b${i}` })) : [{ type: 'text', text: `${'x'.repeat(256 * 1024 - 1)}é tail` }] },
    });
    const h = await start([caller, big]);
    const many = await ask(h, caller, { id: '1', name: 'many', args: {} });
    expect([(many.reply.content as unknown[]).length, many.reply.truncated, many.call.truncated]).toEqual([128, true, true]);
    const long = (await ask(h, caller, { id: '2', name: 'long', args: {} })).reply;
    expect(long.truncated).toBe(true);
    expect((long.content as { text: string }[])[0]!.text).toBe('x'.repeat(256 * 1024 - 1));
  });

  it('refuses a caller without the call_tool permission (once diagnosed), bounds concurrency per extension and applies the deadline', async () => {
    const caller = wireExtension('caller', { capabilities: CALLER });
    const denied = wireExtension('denied', { capabilities: CALLER });
    const target = slow();
    const h = await start([caller, denied, target, echo()], {
      callToolConcurrency: 2,
      timeouts: { callTool: 100 },
      permissions: { byExtension: { denied: { commands: true } } },
    });
    expect((await ask(h, denied, { id: '1', name: 'echo', args: {} })).reply).toEqual(error('1', 'echo', `call_tool refused: the host's permissions for denied do not include "call_tool"`));
    expect(h.diagnostics().filter((d) => d.extension === 'denied').map((d) => d.code)).toEqual(['PERMISSION_DENIED']);
    const first = ask(h, caller, { id: 's1', name: 'slow', args: {} });
    const second = ask(h, caller, { id: 's2', name: 'slow', args: {} });
    expect((await ask(h, caller, { id: 's3', name: 'echo', args: {} })).reply).toEqual(error('s3', 'echo', 'too many call_tool requests in flight (at most 2 per extension)'));
    expect((await first).reply).toEqual(error('s1', 'slow', 'call_tool slow timed out after 100 ms'));
    expect((await second).reply.is_error).toBe(true);
    // The target was told (zot's tool_cancel), and the caller has room again.
    await waitUntil('tool_cancel reached the target', () => target.frames('tool_cancel').length === 2, MEMORY_WAIT_MS);
    expect((await ask(h, caller, { id: 's4', name: 'echo', args: {} })).reply.is_error).toBeUndefined();
  });

  it('bad input: a flood of refused requests is answered and bounded; call_tool_cancel for unknown or another extension\'s ids changes nothing', async () => {
    const caller = wireExtension('caller', { capabilities: CALLER });
    const other = wireExtension('other', { capabilities: CALLER });
    const h = await start([caller, other, slow(), echo()], { callToolConcurrency: 4 });
    const held = ask(h, caller, { id: 'mine', name: 'slow', args: {} });
    other.send({ type: 'call_tool_cancel', id: 'mine' });
    other.send({ type: 'call_tool_cancel', id: '' });
    other.send({ type: 'call_tool_cancel' });
    caller.send({ type: 'call_tool_cancel', id: 'unknown' });
    caller.send({ type: 'call_tool_cancel', id: 7 });
    const last = nextEvent(h, 'tool:called', (c) => c.requestId === 'f999', MEMORY_WAIT_MS);
    for (let i = 0; i < 1000; i++) caller.send({ type: 'call_tool', id: `f${i}`, name: 'slow', args: {} });
    await last;
    const refused = caller.frames('tool_result').filter((f) => String(f.id).startsWith('f'));
    // Three ran (with `mine`, four in flight); the rest were refused at once.
    expect(refused.length).toBe(997);
    expect(caller.frames('tool_result').some((f) => f.id === 'mine')).toBe(false);
    caller.send({ type: 'call_tool_cancel', id: 'mine' });
    expect((await held).reply).toEqual(error('mine', 'slow', 'cancelled by call_tool_cancel'));
  });
});

describe('settling when either side goes away', () => {
  it('the target restarting answers the caller; the caller restarting cancels its calls at the target; stop() settles the rest', async () => {
    const caller = wireExtension('caller', { capabilities: CALLER });
    const gone = wireExtension('gone', { capabilities: CALLER });
    const target = slow();
    const h = await start([caller, gone, target]);
    // The target goes away: the caller is answered at once.
    const first = ask(h, caller, { id: 't', name: 'slow', args: {} });
    await waitUntil('the target got the call', () => target.frames('tool_call').length === 1, MEMORY_WAIT_MS);
    await h.restart('slow-ext');
    expect((await first).reply).toMatchObject({ id: 't', is_error: true });
    // The caller goes away: its call is cancelled at the target.
    const orphan = nextEvent(h, 'tool:called', (c) => c.extension === 'gone', MEMORY_WAIT_MS);
    gone.send({ type: 'call_tool', id: 'o', name: 'slow', args: {} });
    await waitUntil('the target got the call', () => target.frames('tool_call').length === 2, MEMORY_WAIT_MS);
    await h.restart('gone');
    expect((await orphan).error).toBe('gone ended');
    await waitUntil('tool_cancel reached the target', () => target.frames('tool_cancel').length === 1, MEMORY_WAIT_MS);
    // stop() while a call is pending: it settles, stop() does not wait for it.
    const pending = nextEvent(h, 'tool:called', (c) => c.requestId === 'p', MEMORY_WAIT_MS);
    caller.send({ type: 'call_tool', id: 'p', name: 'slow', args: {} });
    await waitUntil('the target got the third call', () => target.frames('tool_call').length === 3, MEMORY_WAIT_MS);
    await h.stop();
    expect((await pending).isError).toBe(true);
  });
});
