// The zod-free shortcut for response frames must give exactly what the schema gives, or step aside.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeExtensionFrame } from '../../src/protocol/codec.js';
import { ExtensionFrame } from '../../src/protocol/frames.js';
import { hotFrame } from '../../src/protocol/hot-frames.js';

// Values that are sometimes right and often subtly wrong for each field.
const anyValue = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.constantFrom('', 'text', 'image', 'noop', 'open_panel', 'prompt', 'explode'),
  fc.boolean(),
  fc.constant(null),
  fc.integer(),
  fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 }),
  fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 2 }),
  fc.dictionary(fc.constantFrom('a', 'x'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
);
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.string() }),
  fc.record({ type: fc.constant('image'), mime_type: fc.string(), data: fc.string() }),
  fc.record(
    { type: fc.constantFrom('text', 'image', 'audio'), text: anyValue, mime_type: anyValue, data: anyValue, extra: anyValue },
    { requiredKeys: [] },
  ),
  anyValue,
);
const panel = fc.oneof(
  fc.record({ id: fc.string(), title: fc.string(), lines: fc.array(fc.string(), { maxLength: 2 }), footer: fc.string() }, { requiredKeys: ['id'] }),
  fc.record({ id: anyValue, title: anyValue, lines: anyValue, footer: anyValue, other: anyValue }, { requiredKeys: [] }),
  anyValue,
);
const text = fc.string({ maxLength: 4 });
const validBlock = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('image'), mime_type: text, data: text }),
);
const validFrame = fc.oneof(
  fc.record(
    {
      type: fc.constant('tool_result'),
      id: text,
      content: fc.array(validBlock, { maxLength: 3 }),
      is_error: fc.boolean(),
      activate_tools: fc.array(text, { maxLength: 2 }),
    },
    { requiredKeys: ['type', 'id'] },
  ),
  fc.record(
    {
      type: fc.constant('event_intercept_response'),
      id: text,
      block: fc.boolean(),
      reason: text,
      modified_args: fc.jsonValue({ maxDepth: 2 }),
      replace_text: anyValue,
      system_prompt: anyValue,
    },
    { requiredKeys: ['type', 'id'] },
  ),
  fc.record(
    {
      type: fc.constant('command_response'),
      id: text,
      action: fc.constantFrom('prompt', 'insert', 'display', 'open_panel', 'noop'),
      prompt: text,
      insert: text,
      display: text,
      error: text,
      open_panel: fc.record({ id: text, title: text, lines: fc.array(text, { maxLength: 2 }), footer: text }, { requiredKeys: ['id'] }),
    },
    { requiredKeys: ['type', 'id'] },
  ),
);
const FIELDS = ['id', 'type', 'text', 'mime_type', 'data', 'title', 'lines', 'content', 'is_error', 'activate_tools', 'block', 'reason', 'modified_args', 'action', 'prompt', 'error', 'open_panel', 'unknown_field', '__proto__'];
// A valid frame, then maybe one field of it, of its first content block or of its panel replaced by
// something that may be wrong.
const mutation = fc.tuple(
  fc.constantFrom('frame', 'block', 'panel'),
  fc.constantFrom(...FIELDS),
  fc.oneof(anyValue, fc.array(block, { maxLength: 2 }), panel),
);
const frame = fc.tuple(validFrame, fc.option(mutation, { freq: 2 })).map(([valid, change]) => {
  // Through JSON text: the shortcut only ever sees JSON.parse output (own "__proto__" keys included).
  const withField = (json: string, key: string, value: unknown) =>
    `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}${JSON.stringify(key)}:${JSON.stringify(value)}}`;
  if (change === null) return JSON.parse(JSON.stringify(valid)) as Record<string, unknown>;
  const [where, key, value] = change;
  const copy = JSON.parse(JSON.stringify(valid)) as Record<string, unknown>;
  const blocks = copy.content as unknown[] | undefined;
  if (where === 'block' && blocks !== undefined && blocks.length > 0) {
    blocks[0] = JSON.parse(withField(JSON.stringify(blocks[0]), key, value));
    return copy;
  }
  if (where === 'panel' && copy.open_panel !== undefined) {
    copy.open_panel = JSON.parse(withField(JSON.stringify(copy.open_panel), key, value));
    return copy;
  }
  return JSON.parse(withField(JSON.stringify(copy), key, value)) as Record<string, unknown>;
});

describe('hotFrame', () => {
  it('accepts only what the schema accepts, and returns exactly the schema output', () => {
    let accepted = 0;
    fc.assert(
      fc.property(frame, (value) => {
        const hot = hotFrame(value, value.type as string);
        const parsed = ExtensionFrame.safeParse(value);
        if (hot === undefined) return;
        accepted++;
        expect(parsed.success).toBe(true);
        expect(hot).toStrictEqual(parsed.data);
      }),
      { seed: 8, numRuns: 3000 },
    );
    // The generator must exercise the shortcut, not only the fallback.
    expect(accepted).toBeGreaterThan(100);
  });

  it('takes the common valid responses', () => {
    for (const value of [
      { type: 'tool_result', id: '0:1', content: [{ type: 'text', text: 'hi' }, { type: 'image', mime_type: 'image/png', data: 'AA==' }] },
      { type: 'tool_result', id: '0:2', is_error: true, activate_tools: ['a'] },
      { type: 'event_intercept_response', id: '0:3', block: true, reason: 'no', modified_args: { a: 1 }, replace_text: '', system_prompt: null },
      { type: 'command_response', id: '0:4', action: 'open_panel', open_panel: { id: 'p', title: 't', lines: ['a'], footer: 'f' }, error: '' },
    ]) {
      expect(hotFrame(value, value.type)).toBe(value);
    }
  });

  it('leaves nulls, unknown keys and wrong types to the schema', () => {
    for (const value of [
      { type: 'tool_result', id: '1', content: null },
      { type: 'tool_result', id: '1', extra: 1 },
      { type: 'tool_result', id: '1', content: [{ type: 'text', text: 'x', extra: 1 }] },
      // A block of an unknown type is valid (kept as its type only): the schema builds it.
      { type: 'tool_result', id: '1', content: [{ type: 'text', text: 'x' }, { type: 'audio', data: 'AA==' }] },
      { type: 'tool_result', id: 1 },
      { type: 'tool_result' },
      { type: 'event_intercept_response', id: '1', block: null },
      { type: 'command_response', id: '1', action: 'explode' },
      { type: 'command_response', id: '1', open_panel: { id: '' } },
      JSON.parse('{"type":"tool_result","id":"1","__proto__":{"x":1}}') as Record<string, unknown>,
    ]) {
      expect(hotFrame(value, value.type as string)).toBeUndefined();
    }
    expect(hotFrame({ type: 'notify', message: 'x' }, 'notify')).toBeUndefined();
  });

  it('gives decodeExtensionFrame the same result with or without the shortcut', () => {
    const line = '{"type":"tool_result","id":"0:1","content":[{"type":"text","text":"ok"}],"is_error":false}';
    expect(decodeExtensionFrame(line)).toStrictEqual({ ok: true, frame: ExtensionFrame.parse(JSON.parse(line)) });
  });
});
