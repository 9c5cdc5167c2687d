import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeFrame, encodeRequest, requestLine, toolCallHead, toolCallInterceptHead } from '../../src/protocol/encode.js';

const frameOf = (toolId: unknown, toolName: unknown, args: unknown) => ({ type: 'event_intercept', event: 'tool_call', tool_id: toolId, tool_name: toolName, tool_args: args });
/** The line a request for `frame` goes out as: from the template when it applies (as the intercept adapter sends it). */
const viaTemplate = (frame: ReturnType<typeof frameOf>, idJson: string) => {
  const head = toolCallInterceptHead(frame.tool_id, frame.tool_name, frame.tool_args);
  return head === undefined ? encodeRequest(frame, idJson) : requestLine(head, idJson);
};
const SEP = ['', '\u2028', '\u2029', 'a\u2028b'];

describe('encodeRequest', () => {
  it('the tool_call intercept template is byte-identical to encodeFrame({ ...frame, id })', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '🎉', '"', '\\', '\n', '\u2028', '\u2029', '\u0000') });
    fc.assert(
      fc.property(text, text, fc.dictionary(text, fc.jsonValue()), text, (toolId, toolName, args, id) => {
        const frame = frameOf(toolId, toolName, args);
        expect(viaTemplate(frame, JSON.stringify(id))).toBe(encodeFrame({ ...frame, id }));
      }),
      { seed: 42, numRuns: 2000 },
    );
  });

  it('encodes the frame once and reuses its head for every id', () => {
    const head = toolCallInterceptHead('t1', 'bash', { command: 'ls\u2028' })!;
    for (const id of ['echo:1', 'other:2', 'x\u2029']) {
      expect(requestLine(head, JSON.stringify(id))).toBe(encodeFrame({ ...frameOf('t1', 'bash', { command: 'ls\u2028' }), id }));
    }
  });

  it('escapes U+2028/U+2029 in every field and the id', () => {
    for (const a of SEP) for (const b of SEP) for (const c of SEP) for (const d of SEP) {
      const frame = frameOf(`id${a}`, `name${b}`, { command: `ls${c}` });
      const line = viaTemplate(frame, JSON.stringify(`r${d}`));
      expect(line).toBe(encodeFrame({ ...frame, id: `r${d}` }));
      expect(line).not.toMatch(/[\u2028\u2029]/);
    }
  });

  it('falls back to the generic encoding for odd inputs, with the same result or error', () => {
    const withToJson = { toJSON: () => ({ replaced: true }) };
    for (const frame of [frameOf(1, 'bash', {}), frameOf('t', null, {}), frameOf('t', 'bash', withToJson), frameOf('t', 'bash', [1, 2])]) {
      expect(viaTemplate(frame, '"x"')).toBe(encodeFrame({ ...frame, id: 'x' }));
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const frame = frameOf('t', 'bash', cyclic);
    expect(() => viaTemplate(frame, '"x"')).toThrow(TypeError);
    expect(() => encodeFrame({ ...frame, id: 'x' })).toThrow(TypeError);
  });

  it('appends the id to any other request without changing the frame', () => {
    const frame = { type: 'tool_call', name: 'echo', args: { s: 'x\u2028y' } };
    expect(encodeRequest(frame, '"0:1"')).toBe(encodeFrame({ ...frame, id: '0:1' }));
  });
});

describe('toolCallHead', () => {
  /** A tool_call's line as callTool sends it: from the template when it applies. */
  const viaToolTemplate = (name: unknown, args: unknown, idJson: string) => {
    const frame = { type: 'tool_call', name, args };
    const head = toolCallHead(name, args);
    return head === undefined ? encodeRequest(frame, idJson) : requestLine(head, idJson);
  };

  it('is byte-identical to encodeFrame({ type: "tool_call", name, args, id }), escapes included', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '🎉', '"', '\\', '\n', '\u2028', '\u2029', '\u0000') });
    // Few names, so that one name follows another as well as itself (the head of the last name is kept).
    const name = fc.constantFrom('echo', 'bash', 'a\u2028b', 'é"');
    fc.assert(
      fc.property(name, fc.dictionary(text, fc.jsonValue()), text, (toolName, args, id) => {
        expect(viaToolTemplate(toolName, args, JSON.stringify(id))).toBe(encodeFrame({ type: 'tool_call', name: toolName, args, id }));
      }),
      { seed: 19, numRuns: 2000 },
    );
  });

  it('steps aside for odd inputs, with the same result or error', () => {
    const withToJson = { toJSON: () => ({ replaced: true }) };
    for (const [name, args] of [[1, {}], ['echo', withToJson], ['echo', [1, 2]], ['echo', null], ['echo', undefined]] as const) {
      expect(viaToolTemplate(name, args, '"x"')).toBe(encodeFrame({ type: 'tool_call', name, args, id: 'x' }));
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(toolCallHead('echo', cyclic)).toBeUndefined();
    expect(() => viaToolTemplate('echo', cyclic, '"x"')).toThrow(TypeError);
  });
});
