import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeFrame } from '../../src/protocol/frame-check.js';

const SEP = ['', '\u2028', '\u2029', 'a\u2028b'];

describe('encodeFrame', () => {
  it('is one line of JSON with the same value, U+2028/U+2029 escaped', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '🎉', '"', '\\', '\n', '\u2028', '\u2029', '\u0000') });
    fc.assert(
      fc.property(text, text, fc.dictionary(text, fc.jsonValue()), text, (toolId, toolName, args, id) => {
        const frame = { type: 'event_intercept', event: 'tool_call', tool_id: toolId, tool_name: toolName, tool_args: args, id };
        const line = encodeFrame(frame);
        expect(line.endsWith('\n')).toBe(true);
        expect(line.slice(0, -1)).not.toMatch(/[\n\u2028\u2029]/);
        expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(frame)));
      }),
      { seed: 42, numRuns: 1000 },
    );
  });

  it('escapes U+2028/U+2029 in every field and the id', () => {
    for (const a of SEP) for (const b of SEP) for (const c of SEP) {
      const frame = { type: 'tool_call', name: `name${a}`, args: { command: `ls${b}` }, id: `r${c}` };
      const line = encodeFrame(frame);
      expect(line).not.toMatch(/[\u2028\u2029]/);
      expect(JSON.parse(line)).toEqual(frame);
    }
  });

  it('a request frame gets its id last, after its own fields', () => {
    expect(encodeFrame({ ...{ type: 'tool_call', name: 'echo', args: { s: 'x' } }, id: 'echo:1' })).toBe('{"type":"tool_call","name":"echo","args":{"s":"x"},"id":"echo:1"}\n');
  });
});
