// zot's call_tool on the TypeScript SDK side (ctx.callTool), against a fake host: the declaration, the
// request with its parent, the answer, give-ups that send call_tool_cancel, bad input, the stop; and
// the continuous-mode fields a tool handler gets (ctx.operationKey, ctx.reconcile).
import { describe, expect, it } from 'vitest';
import { type CallToolResult, defineExtension, display, ExtensionSdkError, type ToolContext } from '../../src/sdk/index.js';
import { gate } from '../helpers/wait.js';
import { useFakeHosts } from './harness.js';

const start = useFakeHosts();
const OFFERED = { capabilities: ['call_tool'] };

/** An extension whose tool `relay` calls `args.name` (default echo) and answers how it went. */
function relay(callTools = true) {
  const results: (CallToolResult | string)[] = [];
  const ext = defineExtension({ name: 'relay', callTools })
    .tool('relay', {}, async (args, ctx) => {
      try {
        const r = await ctx.callTool(typeof args.name === 'string' ? args.name : 'echo', (args.args as Record<string, unknown> | undefined) ?? { x: 1 }, { timeoutMs: typeof args.timeoutMs === 'number' ? args.timeoutMs : undefined });
        results.push(r);
        return `${r.isError ? 'error' : 'ok'}:${r.text}`;
      } catch (err) {
        const code = (err as ExtensionSdkError).code;
        results.push(code);
        return `${code}: ${(err as Error).message}`;
      }
    })
    .command('ask', async (_args, ctx) => display((await ctx.callTool('echo', {})).text));
  return { ext, results };
}

describe('ctx.callTool', () => {
  it('declares call_tool, sends the request with its parent tool call, and resolves the answer (unknown blocks dropped)', async () => {
    const { ext, results } = relay();
    const host = start(ext);
    const { hello } = await host.handshake(OFFERED);
    expect(hello.capabilities).toEqual(['commands', 'tools', 'call_tool', 'cancel', 'progress', 'trace']);
    host.send({ type: 'tool_call', id: 't1', name: 'relay', args: {} });
    expect(await host.waitForType('call_tool')).toEqual({ type: 'call_tool', id: 'sdk-1', name: 'echo', args: { x: 1 }, parent_id: 't1' });
    host.send({ type: 'tool_result', id: 'sdk-1', name: 'echo', content: [{ type: 'text', text: 'hi', format: 'markdown' }, { type: 'resource' }], truncated: true });
    expect(await host.answer('t1')).toMatchObject({ content: [{ type: 'text', text: 'ok:hi' }] });
    expect(results[0]).toEqual({ content: [{ type: 'text', text: 'hi', format: 'markdown' }], isError: false, truncated: true, text: 'hi' });
    // From a command there is no parent; an error result is a result.
    host.send({ type: 'command_invoked', id: 'c1', name: 'ask', args: '' });
    expect(await host.waitFor((f) => f.type === 'call_tool' && f.id === 'sdk-2')).not.toHaveProperty('parent_id');
    host.send({ type: 'tool_result', id: 'sdk-2', name: 'echo', content: [{ type: 'text', text: 'refused' }], is_error: true });
    expect(await host.answer('c1')).toMatchObject({ action: 'display', display: 'refused' });
  });

  it('is unavailable when not declared, or when the host does not offer it (no frame goes out)', async () => {
    const undeclared = start(relay(false).ext);
    expect((await undeclared.handshake(OFFERED)).hello.capabilities).not.toContain('call_tool');
    expect(await undeclared.callTool('relay', {})).toMatchObject({ content: [{ text: expect.stringMatching(/^CALL_TOOL_UNAVAILABLE: ctx.callTool: the extension did not declare "call_tool"/) }] });
    const plain = start(relay().ext);
    await plain.handshake();
    expect(await plain.callTool('relay', {})).toMatchObject({ content: [{ text: 'CALL_TOOL_UNAVAILABLE: ctx.callTool: the host does not offer call_tool (not in hello_ack.capabilities)' }] });
    expect(plain.received.filter((f) => f.type === 'call_tool')).toEqual([]);
  });

  it('sends call_tool_cancel on its deadline and when the handler is cancelled; bad input and late or unknown answers', async () => {
    const { ext, results } = relay();
    const host = start(ext);
    await host.handshake({ capabilities: ['call_tool', 'cancel'] });
    expect(await host.callTool('relay', { timeoutMs: 20 })).toMatchObject({ content: [{ text: 'TIMEOUT: ctx.callTool("echo") timed out after 20 ms' }] });
    expect(host.received.filter((f) => f.type === 'call_tool_cancel')).toEqual([{ type: 'call_tool_cancel', id: 'sdk-1' }]);
    host.send({ type: 'tool_result', id: 'sdk-1', name: 'echo', content: [] });
    host.send({ type: 'tool_result', id: 'never', name: 'echo', content: [] });
    await host.waitForStderr('ignored a tool_result for no call_tool in flight ("never")');
    // The host cancels the handler: its signal aborts the call, which the host is told of.
    host.send({ type: 'tool_call', id: 't2', name: 'relay', args: {} });
    await host.waitFor((f) => f.type === 'call_tool' && f.id === 'sdk-2');
    host.send({ type: 'cancel', id: 't2', reason: 'aborted' });
    expect(await host.waitFor((f) => f.type === 'call_tool_cancel' && f.id === 'sdk-2')).toBeDefined();
    expect(await host.callTool('relay', { name: '' })).toMatchObject({ content: [{ text: 'INVALID_ARGUMENT: ctx.callTool: the tool name must be a non-empty string' }] });
    expect(await host.callTool('relay', { args: [1] })).toMatchObject({ content: [{ text: 'INVALID_ARGUMENT: ctx.callTool: args must be a JSON object' }] });
    expect(results).toEqual(['TIMEOUT', 'ABORTED', 'INVALID_ARGUMENT', 'INVALID_ARGUMENT']);
  });

  it('rejects STOPPED when the run stops with a call in flight', async () => {
    const failed = gate<string>();
    const ext = defineExtension({ name: 'relay', callTools: true }).tool('relay', {}, (_args, ctx) =>
      ctx.callTool('echo', {}, { signal: new AbortController().signal }).then(
        () => 'answered',
        (err: ExtensionSdkError) => (failed.open(err.code), 'x'),
      ),
    );
    const host = start(ext);
    await host.handshake(OFFERED);
    host.send({ type: 'tool_call', id: 't1', name: 'relay', args: {} });
    await host.waitForType('call_tool');
    await host.shutdown();
    expect(await failed.promise).toBe('STOPPED');
  });
});

describe('continuous mode', () => {
  it('hands operation_key and reconcile to the tool handler, only when sent', async () => {
    const seen: [string | undefined, true | undefined][] = [];
    const ext = defineExtension({ name: 'charge' }).tool('charge', {}, (_args, ctx: ToolContext) => {
      seen.push([ctx.operationKey, ctx.reconcile]);
      return ctx.reconcile === true ? { content: 'not yet', structuredContent: { state: 'not_started' } } : 'charged';
    });
    const host = start(ext);
    await host.handshake();
    host.send({ type: 'tool_call', id: '1', name: 'charge', args: {}, operation_key: 'op-1', reconcile: true });
    expect(await host.answer('1')).toMatchObject({ structured_content: { state: 'not_started' } });
    host.send({ type: 'tool_call', id: '2', name: 'charge', args: {} });
    await host.answer('2');
    expect(seen).toEqual([['op-1', true], [undefined, undefined]]);
  });
});
