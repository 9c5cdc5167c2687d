// The intercept field mapping of the TypeScript side (intercept/wire.ts), which the host's extension
// steps and the SDK share: what the host sends the SDK reads back as the input, and what the SDK
// answers the host reads back as the decision.
import { describe, expect, it } from 'vitest';
import { INTERCEPT_DECISION_FIELDS, INTERCEPT_INPUT_FIELDS, interceptDecision, interceptInput, interceptRequest, interceptResponseFrame } from '../../src/intercept/wire.js';
import type { EventInterceptFrame } from '../../src/protocol/frames.js';
import { INTERCEPT_NAMES } from '../../src/protocol/names.js';

const INPUTS = {
  tool_call: { toolId: 't1', toolName: 'bash', args: { command: 'ls' } },
  turn_start: { step: 3 },
  assistant_message: { text: 'hi' },
  before_agent_start: { sessionId: 's', agentRunId: 'r', cwd: '/w', provider: 'p', model: 'm', systemPrompt: 'base' },
} as const;

const DECISIONS = {
  tool_call: { block: true, reason: 'no', modifiedArgs: { command: 'pwd' } },
  turn_start: { block: true, reason: 'later' },
  assistant_message: { block: false, reason: 'r', replaceText: '' },
  before_agent_start: { systemPrompt: '' },
} as const;

describe('intercept fields', () => {
  it('name every interceptable event', () => {
    expect(Object.keys(INTERCEPT_INPUT_FIELDS).sort()).toEqual([...INTERCEPT_NAMES].sort());
    expect(Object.keys(INTERCEPT_DECISION_FIELDS).sort()).toEqual([...INTERCEPT_NAMES].sort());
  });

  it.each(INTERCEPT_NAMES)('%s: the host request is the SDK input, and the SDK answer the host decision', (event) => {
    const request = interceptRequest(event, INPUTS[event]);
    expect(request).toMatchObject({ type: 'event_intercept', event });
    const raw = { ...request, id: 'x:1' };
    expect(interceptInput(raw as EventInterceptFrame, raw)).toEqual({ ...INPUTS[event], raw });
    const answer = interceptResponseFrame('x:1', event, DECISIONS[event]);
    const decision = interceptDecision(event, answer);
    // `block: false` is not sent (it is the default); everything else comes back as it was.
    const expected: Record<string, unknown> = { ...DECISIONS[event] };
    if (expected.block === false) expected.block = undefined;
    expect(decision).toEqual(expected);
  });

  it('drop the fields an event does not take, and a block that is not true', () => {
    expect(interceptResponseFrame('1', 'turn_start', { block: 'yes', reason: 1, modifiedArgs: {}, replaceText: 'x', systemPrompt: 'y' } as object)).toEqual({ type: 'event_intercept_response', id: '1' });
    expect(interceptResponseFrame('1', 'before_agent_start', { block: true, reason: 'r' })).toEqual({ type: 'event_intercept_response', id: '1' });
    expect(interceptResponseFrame('1', 'tool_call', undefined)).toEqual({ type: 'event_intercept_response', id: '1' });
  });
});
