import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeFrame, encodeRequest } from '../../src/protocol/frame-check.js';

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

describe('encodeRequest', () => {
  const text = fc.string({ unit: fc.constantFrom('a', 'é', '🎉', '"', '\\', '\n', '\u2028', '\u2029', '\u0000') });
  const extra = fc.option(fc.record({ operation_key: text, reconcile: fc.boolean(), _meta: fc.dictionary(text, text, { maxKeys: 2 }) }, { requiredKeys: [] }), { nil: undefined });

  it('writes the bytes of encodeFrame() for any request frame, its id set on it last', () => {
    fc.assert(
      fc.property(text, fc.dictionary(text, fc.jsonValue()), text, extra, (name, args, id, more) => {
        const frame = { type: 'tool_call', name, args, ...more };
        const expected = encodeFrame({ ...frame, id });
        expect(encodeRequest(frame, id)).toBe(expected);
        expect((frame as { id?: string }).id).toBe(id);
      }),
      { seed: 7, numRuns: 1000 },
    );
  });

  it('a tool_call whose args encode themselves (toJSON) or that carries other fields is written by JSON.stringify', () => {
    const args = { toJSON: (key: string) => ({ key }) };
    expect(encodeRequest({ type: 'tool_call', name: 'x', args }, 'e:request-1')).toBe('{"type":"tool_call","name":"x","args":{"key":"args"},"id":"e:request-1"}\n');
    const traced = { type: 'tool_call', name: 'x', args: {}, _meta: { traceparent: 't' } };
    expect(encodeRequest(traced, 'e:request-2')).toBe('{"type":"tool_call","name":"x","args":{},"_meta":{"traceparent":"t"},"id":"e:request-2"}\n');
    expect(encodeRequest({ type: 'command_invoked', name: 'x', args: '' }, 'e:request-3')).toBe('{"type":"command_invoked","name":"x","args":"","id":"e:request-3"}\n');
  });
});
