import { describe, expectTypeOf, it } from 'vitest';
import {
  type CommandOutcome,
  type ErrorCode,
  ExtensionHost,
  type ExtensionHostOptions,
  type ExtensionInfo,
  type HostCallbacks,
  InterceptChain,
  ManifestDiscovery,
  type DiscoveryResult,
  type PreparedSystemPrompt,
  type StartReport,
  type ToolCallResult,
  type ToolInfo,
  type ToolResult,
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
    expectTypeOf(host.panelKey).parameter(1).toEqualTypeOf<'up' | 'down' | 'left' | 'right' | 'enter' | 'esc' | 'tab' | 'pageup' | 'pagedown' | 'home' | 'end' | 'backspace' | 'delete' | 'rune'>();
  });

  it('options compile with exactOptionalPropertyTypes-style explicit undefined', () => {
    const options: ExtensionHostOptions = { cwd: undefined, home: undefined, timeouts: { tool: undefined }, callbacks: { prompt: undefined } };
    expectTypeOf(options).toMatchTypeOf<ExtensionHostOptions>();
    expectTypeOf<HostCallbacks['prompt']>().toEqualTypeOf<((action: { text: string; command: string } & { extension: string }) => void) | undefined>();
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

  it('discovery and the test kit', () => {
    expectTypeOf(new ManifestDiscovery({ cwd: '/' }).discover).returns.toEqualTypeOf<Promise<DiscoveryResult>>();
    expectTypeOf(new ManifestDiscovery({ cwd: '/' }).home).toEqualTypeOf<string>();
    expectTypeOf(createTestHost).returns.toEqualTypeOf<Promise<TestHost>>();
  });
});
