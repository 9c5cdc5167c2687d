// Each name list of names.ts is the one the frame schemas use, member for member and in order.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkFrame, eventProblem } from '../../src/protocol/frame-check.js';
import {
  CommandAction,
  EventFrame,
  EventInterceptFrame,
  ExtensionFrame,
  HostFrame,
  InterceptName,
  PanelKeyName,
} from '../../src/protocol/frames.js';
import {
  COMMAND_ACTIONS,
  EVENT_NAMES,
  EXTENSION_FRAME_TYPE_NAMES,
  EXTENSION_FRAME_TYPES,
  HOST_FRAME_TYPE_NAMES,
  INTERCEPT_NAMES,
  KNOWN_ACTIONS,
  KNOWN_EVENTS,
  PANEL_KEYS,
} from '../../src/protocol/names.js';

/** The string literals a schema accepts at `key`, walking through (discriminated) unions, in order. */
function literalsAt(schema: z.ZodType, key: string): string[] {
  if (schema instanceof z.ZodUnion) return (schema.options as z.ZodType[]).flatMap((option) => literalsAt(option, key));
  if (schema instanceof z.ZodObject) {
    const field = (schema.shape as Record<string, z.ZodType>)[key];
    return field instanceof z.ZodLiteral ? [...field.values].map(String) : [];
  }
  return [];
}

describe('name lists', () => {
  it('frame types, both directions, are the members of the frame unions', () => {
    expect(literalsAt(ExtensionFrame, 'type')).toEqual([...EXTENSION_FRAME_TYPE_NAMES]);
    expect([...new Set(literalsAt(HostFrame, 'type'))]).toEqual([...HOST_FRAME_TYPE_NAMES]);
    expect(EXTENSION_FRAME_TYPES).toEqual(new Set(EXTENSION_FRAME_TYPE_NAMES));
  });

  it('events and intercepts are the members of their unions', () => {
    expect(literalsAt(EventFrame, 'event')).toEqual([...EVENT_NAMES]);
    expect(literalsAt(EventInterceptFrame, 'event')).toEqual([...INTERCEPT_NAMES]);
    expect(InterceptName.options).toEqual([...INTERCEPT_NAMES]);
    expect(KNOWN_EVENTS).toEqual(new Set(EVENT_NAMES));
  });

  it('actions and panel keys are the schemas enums', () => {
    expect(CommandAction.options).toEqual([...COMMAND_ACTIONS]);
    expect(KNOWN_ACTIONS).toEqual(new Set(COMMAND_ACTIONS));
    expect(PanelKeyName.options).toEqual([...PANEL_KEYS]);
  });

  it('the frame checker uses the same lists', () => {
    // Every action passes the checker; a name outside the list is left to the schema.
    for (const action of COMMAND_ACTIONS) expect(checkFrame({ type: 'command_response', id: '1', action }, 'command_response')).toBeDefined();
    expect(checkFrame({ type: 'command_response', id: '1', action: 'explode' }, 'command_response')).toBeUndefined();
    // Every known event has its fields checked; a name outside the list is a custom event.
    for (const event of EVENT_NAMES) expect(eventProblem({ event, step: 'x', stop: 1, text: 1, tool_id: 1 }) !== undefined || event === 'session_start').toBe(true);
    expect(eventProblem({ event: 'before_agent_start', step: 'x' })).toBeUndefined();
  });
});
