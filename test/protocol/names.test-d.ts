// The name lists of names.ts are the types the frame schemas infer, and the SDK's maps are keyed by them.
import { describe, expectTypeOf, it } from 'vitest';
import type { CommandOutcome } from '../../src/host/types.js';
import type { z } from 'zod';
import type {
  AssistantMessageEvent,
  PermissionDecisionEvent,
  PostCompactEvent,
  PreCompactEvent,
  SessionEndEvent,
  SubagentStartEvent,
  SubagentStopEvent,
  ToolResultEvent,
  UserPromptSubmitEvent,
  CommandAction,
  ExtensionFrame,
  HostFrame,
  InterceptName,
  NotifyLevel,
  PanelKeyName,
  SessionStartEvent,
  ToolCallEvent,
  ToolConfirmationRequestedEvent,
  TurnEndEvent,
  TurnStartEvent,
} from '../../src/protocol/frames.js';
import type {
  CommandActionName,
  EventName,
  ExtensionFrameTypeName,
  HostFrameTypeName,
  InterceptEventName,
  PANEL_KEYS,
} from '../../src/protocol/names.js';
import type { EventPayloads, InterceptDecisions, InterceptInputs } from '../../src/sdk/events.js';

describe('name list types', () => {
  it('frame types', () => {
    expectTypeOf<ExtensionFrame['type']>().toEqualTypeOf<ExtensionFrameTypeName>();
    expectTypeOf<HostFrame['type']>().toEqualTypeOf<HostFrameTypeName>();
  });

  it('events, intercepts, actions, panel keys, levels', () => {
    type KnownEvent = z.infer<
      | typeof SessionStartEvent
      | typeof TurnStartEvent
      | typeof TurnEndEvent
      | typeof ToolCallEvent
      | typeof ToolConfirmationRequestedEvent
      | typeof AssistantMessageEvent
      | typeof SessionEndEvent
      | typeof UserPromptSubmitEvent
      | typeof ToolResultEvent
      | typeof PermissionDecisionEvent
      | typeof PreCompactEvent
      | typeof PostCompactEvent
      | typeof SubagentStartEvent
      | typeof SubagentStopEvent
    >;
    expectTypeOf<KnownEvent['event']>().toEqualTypeOf<EventName>();
    expectTypeOf<InterceptName>().toEqualTypeOf<InterceptEventName>();
    expectTypeOf<CommandAction>().toEqualTypeOf<CommandActionName>();
    expectTypeOf<PanelKeyName>().toEqualTypeOf<(typeof PANEL_KEYS)[number]>();
    expectTypeOf<NotifyLevel>().toEqualTypeOf<'info' | 'success' | 'warn' | 'error'>();
    expectTypeOf<Extract<CommandOutcome, { handled: true }>['action']>().toEqualTypeOf<CommandActionName>();
  });

  it('the SDK maps are keyed by the lists', () => {
    expectTypeOf<keyof EventPayloads>().toEqualTypeOf<EventName>();
    expectTypeOf<keyof InterceptInputs>().toEqualTypeOf<InterceptEventName>();
    expectTypeOf<keyof InterceptDecisions>().toEqualTypeOf<InterceptEventName>();
  });
});
