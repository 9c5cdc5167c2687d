import { describe, expectTypeOf, it } from 'vitest';
import {
  type BuiltinToolCall,
  type BuiltinToolResult,
  type ExtensionToolCall,
  type CommandOutcome,
  type ErrorCode,
  ExtensionHost,
  ExtensionHostError,
  type ExtensionHostErrorJSON,
  type ExtensionHostOptions,
  type ExtensionInfo,
  type HostCallbacks,
  type InterceptPolicy,
  type McpServerConfig,
  type HostEvents,
  type NoteView,
  type PanelCallOptions,
  type PanelKeyName,
  type PanelView,
  InterceptChain,
  ManifestDiscovery,
  type DiscoveryResult,
  type PreparedSystemPrompt,
  type StartReport,
  type ToolCallResult,
  type ToolInfo,
  type ToolResult,
  type SandboxInfo,
  type SandboxOption,
  type SandboxPolicy,
  type ManifestSandbox,
  type TrustDecision,
  type TrustOption,
  type TrustRequest,
  type TrustState,
} from '../src/index.js';
import { createTestHost, type TestHost } from '../src/testing/index.js';

describe('public types', () => {
  it('ExtensionHost methods', () => {
    const host = new ExtensionHost({});
    expectTypeOf(host.start).returns.toEqualTypeOf<Promise<StartReport>>();
    expectTypeOf(host.reload).returns.toEqualTypeOf<Promise<StartReport>>();
    expectTypeOf(host.stop).returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf(host.extensions).returns.toEqualTypeOf<ExtensionInfo[]>();
    expectTypeOf(host.tools).returns.toEqualTypeOf<ToolInfo[]>();
    expectTypeOf(host.callTool).returns.toEqualTypeOf<Promise<ToolResult>>();
    expectTypeOf(host.runCommand).returns.toEqualTypeOf<Promise<CommandOutcome>>();
    expectTypeOf(host.runCommand).parameter(0).toEqualTypeOf<string | { name: string; args?: string | undefined }>();
    expectTypeOf(host.prepareSystemPrompt).returns.toEqualTypeOf<Promise<PreparedSystemPrompt>>();
    expectTypeOf(host.intercepts).toEqualTypeOf<InterceptChain>();
    expectTypeOf(host.intercepts.toolCall).returns.toEqualTypeOf<Promise<ToolCallResult>>();
    expectTypeOf(host.emit({ event: 'turn_start', step: 1 })).toEqualTypeOf<number>();
    // The spec's names (autocompleted), and any other name, forwarded as it is.
    expectTypeOf<'up' | 'down' | 'left' | 'right' | 'enter' | 'esc' | 'tab' | 'pageup' | 'pagedown' | 'home' | 'end' | 'backspace' | 'delete' | 'rune'>().toMatchTypeOf<Parameters<typeof host.panelKey>[1]>();
    expectTypeOf(host.panelKey).parameter(1).toEqualTypeOf<PanelKeyName | (string & {})>();
    expectTypeOf<'unknown'>().toMatchTypeOf<Parameters<typeof host.panelKey>[1]>();
  });

  it('panelKey / closePanel name a panel by (extension, panel id)', () => {
    const host = new ExtensionHost({});
    expectTypeOf(host.panelKey).parameters.toEqualTypeOf<[panelId: string, key: PanelKeyName | (string & {}), text?: string, options?: PanelCallOptions]>();
    expectTypeOf(host.closePanel).parameters.toEqualTypeOf<[panelId: string, options?: PanelCallOptions]>();
    expectTypeOf<PanelCallOptions['extension']>().toEqualTypeOf<string | undefined>();
    host.panelKey('main', 'up');
    host.panelKey('main', 'rune', 'x', { extension: 'todo' });
    host.closePanel('main', { extension: undefined });
    // @ts-expect-error extension is a name
    host.closePanel('main', { extension: 1 });
    expectTypeOf(host.openPanels).returns.toEqualTypeOf<{ panelId: string; extension: string }[]>();
  });

  it('options compile with exactOptionalPropertyTypes-style explicit undefined', () => {
    const options: ExtensionHostOptions = { cwd: undefined, home: undefined, timeouts: { tool: undefined }, callbacks: { prompt: undefined } };
    expectTypeOf(options).toMatchTypeOf<ExtensionHostOptions>();
    expectTypeOf<HostCallbacks['prompt']>().toEqualTypeOf<((action: { text: string; command: string } & { extension: string }) => void) | undefined>();
  });

  it('interceptPolicy and logMaxBytes', () => {
    expectTypeOf<ExtensionHostOptions['interceptPolicy']>().toEqualTypeOf<Readonly<Record<string, InterceptPolicy>> | undefined>();
    expectTypeOf<InterceptPolicy['onFailure']>().toEqualTypeOf<'allow' | 'block' | undefined>();
    expectTypeOf<ExtensionHostOptions['logMaxBytes']>().toEqualTypeOf<number | undefined>();
    const options: ExtensionHostOptions = { interceptPolicy: { guard: { onFailure: 'block' }, other: { onFailure: undefined } }, logMaxBytes: undefined };
    expectTypeOf(options).toMatchTypeOf<ExtensionHostOptions>();
    // @ts-expect-error onFailure is 'allow' | 'block'
    const wrong: InterceptPolicy = { onFailure: 'deny' };
    void wrong;
  });

  it('bounds of one extension: outbound buffer and stuck deadline', () => {
    const options: ExtensionHostOptions = { maxOutboundBytes: 1024 * 1024, timeouts: { stuck: 10_000 } };
    expectTypeOf(options).toMatchTypeOf<ExtensionHostOptions>();
    expectTypeOf<ExtensionHostOptions['maxOutboundBytes']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<NonNullable<ExtensionHostOptions['timeouts']>['stuck']>().toEqualTypeOf<number | undefined>();
  });

  it('results are discriminated and errors carry a code union', () => {
    const outcome = {} as CommandOutcome;
    if (outcome.handled) expectTypeOf(outcome.extension).toEqualTypeOf<string>();
    expectTypeOf<ErrorCode>().toMatchTypeOf<string>();
    expectTypeOf<'TIMEOUT'>().toMatchTypeOf<ErrorCode>();
  });

  it('a host is AsyncDisposable (`await using`); an error serialises to plain data', async () => {
    await using host = new ExtensionHost({ discover: false });
    expectTypeOf(host).toMatchTypeOf<AsyncDisposable>();
    expectTypeOf(host[Symbol.asyncDispose]).returns.toEqualTypeOf<Promise<void>>();
    const json = new ExtensionHostError('TIMEOUT', 'late').toJSON();
    expectTypeOf(json).toEqualTypeOf<ExtensionHostErrorJSON>();
    expectTypeOf(json.code).toEqualTypeOf<ErrorCode>();
    expectTypeOf(json.cause).toEqualTypeOf<string | undefined>();
  });

  it('every callback is also a typed event with the argument of the callback', () => {
    const host = new ExtensionHost({});
    type Arg<K extends keyof HostCallbacks> = Parameters<NonNullable<HostCallbacks[K]>>[0];
    host.on('prompt', (action) => expectTypeOf(action).toEqualTypeOf<Arg<'prompt'>>());
    host.on('submit', (action) => expectTypeOf(action).toEqualTypeOf<Arg<'submit'>>());
    host.on('insert', (action) => expectTypeOf(action).toEqualTypeOf<Arg<'insert'>>());
    host.on('display', (action) => expectTypeOf(action).toEqualTypeOf<Arg<'display'>>());
    host.on('notify', (note) => expectTypeOf(note).toEqualTypeOf<NoteView>());
    host.on('notes:clear', (origin) => expectTypeOf(origin).toEqualTypeOf<Arg<'clearNotes'>>());
    host.on('panel:open', (panel) => expectTypeOf(panel).toEqualTypeOf<PanelView>());
    host.on('panel:render', (panel) => expectTypeOf(panel).toEqualTypeOf<PanelView>());
    host.on('panel:close', (panel) => expectTypeOf(panel).toEqualTypeOf<Arg<'closePanel'>>());
    host.on('tools:changed', (tools) => expectTypeOf(tools).toEqualTypeOf<Arg<'toolsChanged'>>());
    host.on('warning', (warning) => expectTypeOf(warning).toEqualTypeOf<Arg<'warning'>>());
    // The frame tap as an event (issue 34): the option's entry.
    host.on('frame', (frame) => expectTypeOf(frame).toEqualTypeOf<Parameters<NonNullable<ExtensionHostOptions['frameTap']>>[0]>());
    expectTypeOf<HostEvents['panel:close']>().toEqualTypeOf<[panel: Arg<'closePanel'>]>();
    // @ts-expect-error not an event
    host.on('panel:opened', () => undefined);
  });

  it("zot's call_tool: the built-in tool callback, the 'tool:called' event, the option and the permission", () => {
    expectTypeOf<HostCallbacks['callBuiltinTool']>().toEqualTypeOf<((call: BuiltinToolCall) => BuiltinToolResult | Promise<BuiltinToolResult>) | undefined>();
    expectTypeOf<BuiltinToolCall>().toMatchTypeOf<{ extension: string; toolName: string; toolId: string; args: Record<string, unknown>; signal: AbortSignal }>();
    expectTypeOf<HostEvents['tool:called']>().toEqualTypeOf<[call: ExtensionToolCall]>();
    expectTypeOf<ExtensionToolCall['parentId']>().toEqualTypeOf<string | undefined>();
    const options: ExtensionHostOptions = { callToolConcurrency: 4, timeouts: { callTool: 1000 }, permissions: { default: { tools: true, callTool: false } }, callbacks: { callBuiltinTool: async () => ({ content: [{ type: 'text', text: 'x' }] }) } };
    expectTypeOf(options).toMatchTypeOf<ExtensionHostOptions>();
  });

  it('the start report lists late joiners and the searched directories', () => {
    expectTypeOf<StartReport['starting']>().toEqualTypeOf<{ name: string; source: ExtensionInfo['source']; logPath: string }[]>();
    expectTypeOf<ExtensionInfo['latePanelFrames']>().toEqualTypeOf<number>();
    expectTypeOf<NonNullable<ExtensionHostOptions['timeouts']>['helloJoin']>().toEqualTypeOf<number | undefined>();
  });

  it('workspace trust: the option, the question and the answer', () => {
    expectTypeOf<ExtensionHostOptions['trust']>().toEqualTypeOf<TrustOption | undefined>();
    expectTypeOf<TrustDecision>().toEqualTypeOf<'once' | 'always' | 'deny'>();
    expectTypeOf<ExtensionInfo['trust']>().toEqualTypeOf<TrustState>();
    expectTypeOf<TrustRequest['signal']>().toEqualTypeOf<AbortSignal>();
    expectTypeOf<TrustRequest['exec']>().toEqualTypeOf<{ command: string; args: string[] } | undefined>();
    new ExtensionHost({ trust: 'none' });
    new ExtensionHost({ trust: async (request) => (request.changed ? 'deny' : 'once'), timeouts: { trust: 30_000 } });
    // @ts-expect-error not an answer
    new ExtensionHost({ trust: () => 'yes' });
    expectTypeOf<'UNTRUSTED'>().toMatchTypeOf<ErrorCode>();
  });

  it('discovery and the test kit', () => {
    expectTypeOf(new ManifestDiscovery({ cwd: '/' }).discover).returns.toEqualTypeOf<Promise<DiscoveryResult>>();
    expectTypeOf(new ManifestDiscovery({ cwd: '/' }).home).toEqualTypeOf<string>();
    expectTypeOf(createTestHost).returns.toEqualTypeOf<Promise<TestHost>>();
  });

  it('the sandbox option and its report (issue 32)', () => {
    expectTypeOf<ExtensionHostOptions['sandbox']>().toEqualTypeOf<SandboxOption | undefined>();
    expectTypeOf<SandboxOption>().toEqualTypeOf<'off' | 'auto' | 'required' | SandboxPolicy>();
    expectTypeOf<SandboxPolicy['network']>().toEqualTypeOf<'none' | 'loopback' | 'all' | undefined>();
    expectTypeOf<ExtensionHostOptions['sandboxByExtension']>().toEqualTypeOf<Readonly<Record<string, SandboxOption>> | undefined>();
    expectTypeOf<ExtensionInfo['sandbox']>().toEqualTypeOf<SandboxInfo>();
    expectTypeOf<SandboxInfo['backend']>().toEqualTypeOf<'bwrap' | 'sandbox-exec' | 'none'>();
    expectTypeOf<'required'>().toMatchTypeOf<ManifestSandbox>();
    // @ts-expect-error a manifest cannot ask for less
    const off: ManifestSandbox = 'off';
    void off;
  });

  it('MCP servers as extensions (docs/mcp.md)', () => {
    expectTypeOf<ExtensionHostOptions['mcpServers']>().toEqualTypeOf<Readonly<Record<string, McpServerConfig>> | undefined>();
    expectTypeOf<{ command: 'node'; args: ['server.mjs']; env: { A: 'b' }; prefix: 'ev_' }>().toMatchTypeOf<McpServerConfig>();
    expectTypeOf<{ url: 'http://127.0.0.1/mcp'; headers: { Authorization: 'env:TOKEN' } }>().toMatchTypeOf<McpServerConfig>();
    expectTypeOf<{ args: ['x'] }>().not.toMatchTypeOf<McpServerConfig>();
    expectTypeOf<ToolInfo['annotations']>().toEqualTypeOf<Record<string, unknown> | undefined>();
    new ExtensionHost({ mcpServers: { everything: { command: 'node', args: ['server.mjs'], prefix: 'ev_' }, remote: { url: 'https://example.com/mcp' } } });
  });
});

