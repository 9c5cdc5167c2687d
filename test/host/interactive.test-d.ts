// Types of issue 30's host API: ToolInfo.interactive, timeouts.interactiveGrace, rateLimits.openPanel,
// the toolPrompt callback and event, CommandOutcome.toolPrompt; and the SDKs' ctx.ask / ctx.openPanel.
import { describe, expectTypeOf, it } from 'vitest';
import type { CommandOutcome, ExtensionHost, ExtensionHostOptions, HostEvents, ToolInfo, ToolPromptAction } from '../../src/index.js';
import type { OpenPanelHandlers, PanelHandle, RequestContext } from '../../src/sdk/index.js';

describe('interactive tools and tool_prompt, types', () => {
  it('ToolInfo.interactive is true or absent', () => {
    expectTypeOf<ToolInfo['interactive']>().toEqualTypeOf<true | undefined>();
    expectTypeOf<ReturnType<ExtensionHost['tools']>>().toEqualTypeOf<ToolInfo[]>();
  });

  it('takes timeouts.interactiveGrace and rateLimits.openPanel', () => {
    expectTypeOf<{ timeouts: { interactiveGrace: number }; rateLimits: { openPanel: number } }>().toMatchTypeOf<ExtensionHostOptions>();
  });

  it('hands tool_prompt to the toolPrompt callback and the tool:prompt event', () => {
    expectTypeOf<NonNullable<NonNullable<ExtensionHostOptions['callbacks']>['toolPrompt']>>().parameter(0).toEqualTypeOf<ToolPromptAction>();
    expectTypeOf<HostEvents['tool:prompt']>().toEqualTypeOf<[action: ToolPromptAction]>();
    expectTypeOf<ToolPromptAction>().toMatchTypeOf<{ extension: string; command: string; prompt: string; toolName: string; toolArgs: Record<string, unknown> }>();
    type Handled = Extract<CommandOutcome, { handled: true }>;
    expectTypeOf<Handled['toolPrompt']>().toEqualTypeOf<{ toolName: string; toolArgs: Record<string, unknown>; handled: boolean } | undefined>();
  });

  it('ctx.ask resolves the key handler\'s answer or undefined; ctx.openPanel returns a handle', () => {
    expectTypeOf<RequestContext['ask']>().toBeFunction();
    expectTypeOf<ReturnType<RequestContext['openPanel']>>().toEqualTypeOf<PanelHandle>();
    const ask = (ctx: RequestContext) => ctx.ask({ lines: ['?'] }, (key) => (key === 'enter' ? key.length : undefined));
    expectTypeOf<Awaited<ReturnType<typeof ask>>>().toEqualTypeOf<number | undefined>();
    expectTypeOf<OpenPanelHandlers>().toMatchTypeOf<{ onKey?: unknown; onClose?: unknown }>();
  });
});
