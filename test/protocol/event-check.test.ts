// emit()'s zod-free event check must accept exactly what the EventFrame schema accepts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventProblem } from '../../src/protocol/event-check.js';
import { EventFrame } from '../../src/protocol/frames.js';
import { EVENT_NAMES } from '../../src/protocol/names.js';

class Custom {
  x = 1;
}
const withSymbol = { a: 1, [Symbol('s')]: 2 };
const hiddenSymbol = Object.defineProperty({ a: 1 }, Symbol('h'), { value: 1, enumerable: false });

const value = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, null, undefined, true),
  fc.constantFrom<unknown>([], [1], new Custom(), new Map(), new Date(0), Object.create(null) as object, withSymbol, hiddenSymbol),
  fc.dictionary(fc.string({ maxLength: 2 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
);
const FIELDS = ['step', 'stop', 'tool_id', 'tool_name', 'tool_args', 'tool_preview', 'text', 'extra'];
const event = fc.record(
  {
    event: fc.oneof(fc.constantFrom(...EVENT_NAMES), fc.constantFrom('custom', 'before_agent_start', ''), value),
    ...Object.fromEntries(FIELDS.map((field) => [field, value])),
  },
  { requiredKeys: [] },
);
// Valid events of each kind, with one field sometimes swapped for any value.
const known = fc
  .tuple(
    fc.record({
      event: fc.constantFrom(...EVENT_NAMES),
      step: fc.double({ noNaN: true, noDefaultInfinity: true }),
      stop: fc.string(),
      tool_id: fc.string(),
      tool_name: fc.string(),
      tool_args: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 })), value),
      tool_preview: fc.string(),
      text: fc.string(),
    }),
    fc.option(fc.tuple(fc.constantFrom(...FIELDS), value)),
  )
  .map(([valid, swap]) => (swap === null ? valid : { ...valid, [swap[0]]: swap[1] }));

function agrees(input: Record<string, unknown>): void {
  const frame = Object.assign({ type: 'event' }, input, { type: 'event' });
  expect(eventProblem(frame) === undefined, JSON.stringify(input)).toBe(EventFrame.safeParse(frame).success);
}

describe('eventProblem', () => {
  it('agrees with the EventFrame schema', () => {
    fc.assert(fc.property(event, agrees), { seed: 3, numRuns: 3000 });
    fc.assert(fc.property(known, agrees), { seed: 4, numRuns: 3000 });
  });

  it('takes what zod takes for a JSON object: plain objects, no enumerable symbol keys', () => {
    for (const args of [{ a: 1 }, Object.create(null) as object, hiddenSymbol, new Custom(), new Map(), new Date(0), withSymbol, [1]]) {
      agrees({ event: 'tool_call', tool_id: 'x', tool_name: 'y', tool_args: args });
    }
  });

  it('names the event, the field and what it needs', () => {
    expect(eventProblem({ type: 'event', event: 'turn_start', step: 'one' })).toBe('turn_start needs step: a finite number, got "one"');
    expect(eventProblem({ type: 'event', event: 'tool_call', tool_id: 'x' })).toBe('tool_call needs tool_name: a string, got nothing');
    expect(eventProblem({ type: 'event', event: 'tool_call', tool_id: 'x', tool_name: 'y', tool_args: [1] })).toBe('tool_call needs tool_args: a JSON object, got an array');
    expect(eventProblem({ type: 'event', event: 7 })).toBe('event must be a string naming the event, got a number');
    expect(eventProblem({ type: 'event', event: 'my_event', anything: [1] })).toBeUndefined();
  });
});
