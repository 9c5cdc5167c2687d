// The one decoder entry point: the fast path (no zod) and the zod path must give the same frame or
// the same problem for every line, and a line is decoded without the zod path where it can be.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as codec from '../../src/protocol/codec.js';
import { LineProblem, decodeLine, loadCodec, toDecodedFrame } from '../../src/protocol/frame-check.js';
import { EXTENSION_FRAME_TYPE_NAMES } from '../../src/protocol/names.js';

// Values that are sometimes right and often subtly wrong for a field.
const anyValue = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.constantFrom('', 'text', 'image', 'noop', 'open_panel', 'prompt', 'explode', 'tool_result'),
  fc.boolean(),
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 }),
  fc.dictionary(fc.constantFrom('a', 'x'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
);
const text = fc.string({ maxLength: 4 });
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('image'), mime_type: text, data: text }),
  fc.record({ type: fc.constantFrom('text', 'image', 'audio'), text: anyValue, data: anyValue, extra: anyValue }, { requiredKeys: [] }),
  anyValue,
);
const panel = fc.oneof(
  fc.record({ id: text, title: text, lines: fc.array(text, { maxLength: 2 }), footer: text }, { requiredKeys: ['id'] }),
  fc.record({ id: anyValue, title: anyValue, lines: anyValue, other: anyValue }, { requiredKeys: [] }),
);
// Every field any extension frame has, each with right and wrong values; a few unknown ones.
const fields = {
  id: fc.oneof(text, anyValue),
  name: fc.oneof(text, anyValue),
  version: fc.oneof(text, anyValue),
  capabilities: fc.oneof(fc.array(text, { maxLength: 2 }), anyValue),
  description: fc.oneof(text, anyValue),
  schema: anyValue,
  deferred: anyValue,
  content: fc.oneof(fc.array(block, { maxLength: 3 }), anyValue),
  is_error: anyValue,
  activate_tools: fc.oneof(fc.array(text, { maxLength: 2 }), anyValue),
  events: fc.oneof(fc.array(text, { maxLength: 2 }), anyValue),
  intercept: fc.oneof(fc.array(text, { maxLength: 2 }), anyValue),
  block: anyValue,
  reason: fc.oneof(text, anyValue),
  modified_args: anyValue,
  replace_text: anyValue,
  system_prompt: anyValue,
  action: fc.oneof(fc.constantFrom('prompt', 'insert', 'display', 'open_panel', 'noop'), anyValue),
  prompt: fc.oneof(text, anyValue),
  display: fc.oneof(text, anyValue),
  open_panel: fc.oneof(panel, anyValue),
  error: fc.oneof(text, anyValue),
  text: fc.oneof(text, anyValue),
  panel_id: fc.oneof(text, anyValue),
  title: fc.oneof(text, anyValue),
  lines: fc.oneof(fc.array(text, { maxLength: 2 }), anyValue),
  level: fc.oneof(fc.constantFrom('info', 'warn', 'loud'), anyValue),
  message: fc.oneof(text, anyValue),
  kind: anyValue,
  ok: anyValue,
  unknown_field: anyValue,
};
const frameObject = fc.record(
  { type: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...EXTENSION_FRAME_TYPE_NAMES) }, { weight: 1, arbitrary: anyValue }), ...fields },
  { requiredKeys: ['type'] },
);
// Only a few fields per frame, so that valid frames (hot ones included) are common.
const sparseFrame = fc
  .tuple(frameObject, fc.subarray(Object.keys(fields), { maxLength: 4 }))
  .map(([frame, keep]) => Object.fromEntries(Object.entries(frame).filter(([key]) => key === 'type' || keep.includes(key))));
// Responses in their plain shape (the fast path's), to mutate.
const validBlock = fc.oneof(fc.record({ type: fc.constant('text'), text }), fc.record({ type: fc.constant('image'), mime_type: text, data: text }));
const response = fc.oneof(
  fc.record(
    { type: fc.constant('tool_result'), id: text, content: fc.array(validBlock, { maxLength: 2 }), is_error: fc.boolean(), activate_tools: fc.array(text, { maxLength: 2 }) },
    { requiredKeys: ['type', 'id'] },
  ),
  fc.record(
    { type: fc.constant('event_intercept_response'), id: text, block: fc.boolean(), reason: text, modified_args: fc.jsonValue({ maxDepth: 1 }), replace_text: anyValue },
    { requiredKeys: ['type', 'id'] },
  ),
  fc.record(
    { type: fc.constant('command_response'), id: text, action: fc.constantFrom('prompt', 'insert', 'display', 'open_panel', 'noop'), prompt: text, error: text, open_panel: panel },
    { requiredKeys: ['type', 'id'] },
  ),
);
// A response, maybe with one field replaced by something that may be wrong.
const mutatedResponse = fc
  .tuple(response, fc.option(fc.tuple(fc.constantFrom(...Object.keys(fields)), fc.oneof(...Object.values(fields))), { freq: 2 }))
  .map(([frame, change]) => (change === null ? frame : { ...frame, [change[0]]: change[1] }));
const line = fc.oneof(
  { weight: 8, arbitrary: sparseFrame.map((frame) => JSON.stringify(frame)) },
  { weight: 6, arbitrary: mutatedResponse.map((frame) => JSON.stringify(frame)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.constantFrom('{', 'not json', '[]', '[{"type":"ready"}]', 'null', '"ready"', '{"type":"ready"', '{"__proto__":{"type":"ready"}}') },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
);

describe('decodeLine', () => {
  it('gives the same frame or problem with the fast path as with the zod path alone', async () => {
    const loaded = await loadCodec();
    let fast = 0;
    let frames = 0;
    fc.assert(
      fc.property(line, (l) => {
        const decoded = decodeLine(l, loaded);
        const viaZod = decodeLine(l, loaded, false);
        expect(toDecodedFrame(decoded)).toStrictEqual(toDecodedFrame(viaZod));
        // The public decoder is the same mechanism.
        expect(codec.decodeExtensionFrame(l)).toStrictEqual(toDecodedFrame(decoded));
        if (!(decoded instanceof LineProblem)) {
          frames++;
          // Taken without zod exactly when it needs no schema: the zod path is not even needed.
          if (!(decodeLine(l, undefined) instanceof LineProblem)) fast++;
        }
      }),
      { seed: 1313, numRuns: 4000 },
    );
    // The generator must reach both paths.
    expect(fast).toBeGreaterThan(300);
    expect(frames - fast).toBeGreaterThan(500);
  });

  it('returns a hot response as parsed, without the zod path', () => {
    const decoded = decodeLine('{"type":"tool_result","id":"a:1","content":[{"type":"text","text":"ok"}]}', undefined);
    expect(decoded).toStrictEqual({ type: 'tool_result', id: 'a:1', content: [{ type: 'text', text: 'ok' }] });
  });

  it('types each problem, with the id of an invalid frame when it has one', async () => {
    const loaded = await loadCodec();
    const problem = (l: string) => {
      const decoded = decodeLine(l, loaded);
      expect(decoded).toBeInstanceOf(LineProblem);
      return (decoded as LineProblem).problem;
    };
    expect(problem('{"type":')).toMatchObject({ kind: 'not_json' });
    expect(problem('[1]')).toMatchObject({ kind: 'not_object' });
    expect(problem('{"type":"explode"}')).toMatchObject({ kind: 'unknown_type', type: 'explode' });
    expect(problem('{"type":"tool_result","id":"a:2","content":"x"}')).toMatchObject({ kind: 'invalid', type: 'tool_result', id: 'a:2' });
    expect(problem('{"type":"notify"}')).toMatchObject({ kind: 'invalid', type: 'notify', id: undefined });
  });

  it('a frame that needs the schemas before they are loaded is a problem, not a throw', () => {
    const decoded = decodeLine('{"type":"notify","message":"hi","id":"x"}', undefined);
    expect(decoded).toBeInstanceOf(LineProblem);
    expect((decoded as LineProblem).problem).toMatchObject({ kind: 'invalid', type: 'notify', id: 'x' });
  });

  it('a hello with the fields of a problem is still a frame', async () => {
    const decoded = decodeLine('{"type":"hello","name":"x","ok":false,"problem":{"kind":"not_json"}}', await loadCodec());
    expect(decoded).not.toBeInstanceOf(LineProblem);
    expect(decoded).toMatchObject({ type: 'hello', name: 'x', ok: false });
  });

  it('loadCodec() loads the zod path once', async () => {
    const first = loadCodec();
    expect(loadCodec()).toBe(first);
    expect((await first).schemaFrame).toBe(codec.schemaFrame);
  });
});
