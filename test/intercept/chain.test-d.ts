import { describe, expectTypeOf, it } from 'vitest';
import { InterceptChain } from '../../src/intercept/chain.js';
import { SystemPromptPreparer, type PreparedSystemPrompt } from '../../src/intercept/system-prompt.js';
import type {
  AssistantMessageResult,
  InterceptDiagnostic,
  InterceptEvent,
  ToolCallResult,
  TraceStep,
  TurnStartResult,
  FailureKind,
  InterceptContext,
  Interceptor,
  ToolCallDecision,
  ToolCallInput,
} from '../../src/intercept/types.js';

describe('InterceptChain types', () => {
  it('accepts sync and async interceptors that return a decision or nothing', () => {
    const chain = new InterceptChain({ timeoutMs: 100, revalidate: true, onDiagnostic: undefined, now: undefined });
    expectTypeOf(chain.add({ name: 'sync', toolCall: () => ({ block: true, reason: 'no' }) })).toEqualTypeOf<
      () => void
    >();
    chain.add({ name: 'void', turnStart: () => {} }, { first: true });
    chain.add({ name: 'async', assistantMessage: async ({ text }) => ({ replaceText: text.trim() }) });
    chain.add({ name: 'prompt', beforeAgentStart: ({ systemPrompt }) => ({ systemPrompt: `${systemPrompt}!` }) });
    chain.add({ name: 'policy', onFailure: 'block', timeoutMs: undefined });
    // @ts-expect-error onFailure is 'allow' | 'block'
    chain.add({ name: 'bad', onFailure: 'ignore' });
    // @ts-expect-error block is a boolean
    chain.add({ name: 'bad', toolCall: () => ({ block: 'yes' }) });
    expectTypeOf(chain.list()).toEqualTypeOf<readonly Interceptor[]>();
    expectTypeOf(chain.remove).parameter(0).toEqualTypeOf<Interceptor>();
  });

  it('types the interceptor inputs and context', () => {
    expectTypeOf<Parameters<NonNullable<Interceptor['toolCall']>>>().toEqualTypeOf<[ToolCallInput, InterceptContext]>();
    expectTypeOf<ToolCallInput['args']>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<InterceptContext['signal']>().toEqualTypeOf<AbortSignal>();
    expectTypeOf<ToolCallDecision['modifiedArgs']>().toEqualTypeOf<unknown>();
  });

  it('types the results', () => {
    const chain = new InterceptChain();
    const input = { toolId: 't', toolName: 'bash', args: {} };
    expectTypeOf(chain.toolCall(input, { signal: undefined })).resolves.toEqualTypeOf<ToolCallResult>();
    expectTypeOf(chain.turnStart({ step: 1 })).resolves.toEqualTypeOf<TurnStartResult>();
    expectTypeOf(chain.assistantMessage({ text: '' })).resolves.toEqualTypeOf<AssistantMessageResult>();
    expectTypeOf(
      chain.beforeAgentStart({ systemPrompt: '', sessionId: '', agentRunId: '', cwd: '', provider: '', model: '' }),
    ).resolves.toEqualTypeOf<{ systemPrompt: string; trace: TraceStep[] }>();

    expectTypeOf<ToolCallResult['args']>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<ToolCallResult['blockedBy']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<TraceStep['decision']>().toEqualTypeOf<'allow' | 'block' | 'rewrite' | 'failure'>();
    expectTypeOf<TraceStep['failure']>().toEqualTypeOf<FailureKind | undefined>();
    expectTypeOf<FailureKind>().toEqualTypeOf<'timeout' | 'crash' | 'malformed' | 'error'>();
    expectTypeOf<InterceptDiagnostic['kind']>().toEqualTypeOf<FailureKind | 'ignored_field'>();
    expectTypeOf<InterceptEvent>().toEqualTypeOf<
      'tool_call' | 'turn_start' | 'assistant_message' | 'before_agent_start'
    >();
  });
});

describe('SystemPromptPreparer types', () => {
  it('prepares with a base prompt and optional session and signal', () => {
    const preparer = new SystemPromptPreparer({
      chain: new InterceptChain(),
      context: () => ({ cwd: '/', provider: 'p', model: 'm' }),
      onWarning: (message: string, interceptor?: string) => void [message, interceptor],
    });
    expectTypeOf(preparer.prepare({ systemPrompt: 'base' })).resolves.toEqualTypeOf<PreparedSystemPrompt>();
    expectTypeOf<PreparedSystemPrompt>().toEqualTypeOf<{
      systemPrompt: string;
      agentRunId: string;
      cached: boolean;
      trace: TraceStep[];
    }>();
    expectTypeOf(preparer.invalidate).returns.toEqualTypeOf<void>();
    // @ts-expect-error the base prompt is required
    void preparer.prepare({ sessionId: 's' });
  });
});
