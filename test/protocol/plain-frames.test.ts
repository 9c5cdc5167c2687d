// The zod-free path for the frames of start-up (and the small one-way frames) must give exactly what
// the schema gives, or step aside: with it, a usual start never loads zod.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeLine, isLineProblem, needsCodec } from '../../src/protocol/decode-line.js';
import { ExtensionFrame, ProgressFrame } from '../../src/protocol/frames.js';
import { MAX_PROGRESS_MESSAGE } from '../../src/protocol/limits.js';
import { plainFrame, plainProgress } from '../../src/protocol/plain-frames.js';

const anyValue = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.constantFrom('', 'x', 'info', 'tool_call'),
  fc.boolean(),
  fc.constant(null),
  fc.integer(),
  fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 }),
  fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 2 }),
  fc.dictionary(fc.constantFrom('a', 'type', '__proto__'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
);
const text = fc.string({ maxLength: 4 });
const texts = fc.array(text, { maxLength: 3 });
const optional = { requiredKeys: ['type'] as ['type'] };
const validFrame = fc.oneof(
  fc.record({ type: fc.constant('hello'), name: text, version: text, capabilities: texts, sdk: text }, { requiredKeys: ['type', 'name'] }),
  fc.record({ type: fc.constant('register_command'), name: text, description: text }, { requiredKeys: ['type', 'name'] }),
  fc.record(
    { type: fc.constant('register_tool'), name: text, description: text, schema: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }), deferred: fc.boolean() },
    { requiredKeys: ['type', 'name'] },
  ),
  fc.record({ type: fc.constant('subscribe'), events: texts, intercept: texts }, optional),
  fc.record({ type: fc.constant('notify'), level: text, message: text }, { requiredKeys: ['type', 'message'] }),
  fc.record({ type: fc.constant('submit'), text }, { requiredKeys: ['type', 'text'] }),
  fc.record({ type: fc.constant('panel_render'), panel_id: text, title: text, lines: texts, footer: text }, { requiredKeys: ['type', 'panel_id'] }),
  fc.record({ type: fc.constant('panel_close'), panel_id: text }, { requiredKeys: ['type', 'panel_id'] }),
  fc.record({ type: fc.constantFrom('ready', 'clear_notes', 'shutdown_ack') }),
);
const FIELDS = ['type', 'name', 'version', 'capabilities', 'description', 'schema', 'deferred', 'events', 'intercept', 'level', 'message', 'text', 'panel_id', 'title', 'lines', 'footer', 'unknown_field', '__proto__', 'toString'];
const frame = fc.tuple(validFrame, fc.option(fc.tuple(fc.constantFrom(...FIELDS), anyValue), { freq: 2 })).map(([valid, change]) => {
  // Through JSON text: the shortcut only ever sees JSON.parse output (own "__proto__" keys included).
  const json = JSON.stringify(valid);
  if (change === null) return JSON.parse(json) as Record<string, unknown>;
  const [key, value] = change;
  return JSON.parse(`${json.slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(value)}}`) as Record<string, unknown>;
});

describe('plainFrame', () => {
  it('accepts only what the schema accepts, and returns exactly the schema output', () => {
    let accepted = 0;
    fc.assert(
      fc.property(frame, (value) => {
        if (typeof value.type !== 'string') return;
        const plain = plainFrame(value, value.type);
        if (plain === undefined) return;
        accepted++;
        const parsed = ExtensionFrame.safeParse(value);
        expect(parsed.success).toBe(true);
        expect(plain).toStrictEqual(parsed.data);
        // hello keeps unknown keys: in the schema's order too.
        if (value.type === 'hello') expect(JSON.stringify(plain)).toBe(JSON.stringify(parsed.data));
      }),
      { seed: 19, numRuns: 4000 },
    );
    expect(accepted).toBeGreaterThan(500);
  });

  it('takes the frames of a usual start', () => {
    const frames = [
      { type: 'hello', name: 'x', version: '1.0.0', capabilities: ['commands', 'tools'] },
      { type: 'register_command', name: 'todo', description: 'a list' },
      { type: 'register_tool', name: 'echo', description: 'echoes', schema: { type: 'object', properties: { x: { type: 'number' } } }, deferred: false },
      { type: 'subscribe', events: ['turn_start'], intercept: ['tool_call'] },
      { type: 'ready' },
    ];
    for (const value of frames) expect(plainFrame(value, value.type)).toStrictEqual(ExtensionFrame.parse(value));
  });

  it('leaves nulls, unknown keys, empty names and wrong types to the schema', () => {
    for (const value of [
      { type: 'hello', name: 'x', version: null },
      { type: 'hello', name: 1 },
      { type: 'register_command', name: '' },
      { type: 'register_command', name: 'x', description: null },
      { type: 'register_command', name: 'x', extra: 1 },
      { type: 'register_tool', name: 'x', schema: [] },
      { type: 'register_tool', name: 'x', deferred: 'yes' },
      { type: 'subscribe', events: [1] },
      { type: 'notify', message: 'x', level: null },
      { type: 'notify' },
      { type: 'panel_render', panel_id: '' },
      { type: 'ready', extra: true },
      JSON.parse('{"type":"register_tool","name":"x","schema":{"__proto__":{"a":1}}}') as Record<string, unknown>,
    ]) {
      expect(plainFrame(value, value.type as string)).toBeUndefined();
    }
  });

  it('lets decodeLine decode a usual start without the schemas, and names what needs them', () => {
    for (const line of ['{"type":"hello","name":"x"}', '{"type":"register_tool","name":"t","schema":{"type":"object"}}', '{"type":"ready"}']) {
      expect(isLineProblem(decodeLine(line, undefined))).toBe(false);
    }
    const unchecked = decodeLine('{"type":"notify","message":"x","level":null}', undefined);
    expect(isLineProblem(unchecked) && needsCodec(unchecked)).toBe(true);
    const notJson = decodeLine('nope', undefined);
    expect(isLineProblem(notJson) && needsCodec(notJson)).toBe(false);
  });
});

describe('plainProgress', () => {
  it('accepts only what the progress schema accepts, and returns exactly its output', () => {
    const number = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -1, 1e308));
    const valid = fc.record(
      { type: fc.constant('progress'), id: fc.string({ maxLength: 3 }), message: fc.string({ minLength: 998, maxLength: 1002 }), progress: number, total: number },
      { requiredKeys: ['type', 'id'] },
    );
    const keys = ['type', 'id', 'message', 'progress', 'total', 'extra', '__proto__'];
    const value = fc.tuple(valid, fc.option(fc.tuple(fc.constantFrom(...keys), anyValue), { freq: 2 })).map(([frame, change]) => {
      const json = JSON.stringify(frame);
      if (change === null) return JSON.parse(json) as Record<string, unknown>;
      return JSON.parse(`${json.slice(0, -1)},${JSON.stringify(change[0])}:${JSON.stringify(change[1])}}`) as Record<string, unknown>;
    });
    let accepted = 0;
    fc.assert(
      fc.property(value, (frame) => {
        const plain = plainProgress(frame);
        if (plain === undefined) return;
        accepted++;
        const parsed = ProgressFrame.safeParse(frame);
        expect(parsed.success).toBe(true);
        expect(plain).toStrictEqual(parsed.data);
      }),
      { seed: 19, numRuns: 2000 },
    );
    expect(accepted).toBeGreaterThan(300);
  });

  it.each([
    ['NaN', { progress: Number.NaN }],
    ['Infinity', { total: Number.POSITIVE_INFINITY }],
    ['-Infinity', { progress: Number.NEGATIVE_INFINITY }],
    ['a string', { progress: '5' }],
    ['null', { total: null }],
    ['a message over the limit', { message: 'x'.repeat(MAX_PROGRESS_MESSAGE + 1) }],
    ['a non-string id', { id: 7 }],
    ['no id', { id: undefined }],
    ['an unknown key', { extra: 1 }],
  ])('leaves a progress frame with %s to the schema', (_what, change) => {
    const frame: Record<string, unknown> = { type: 'progress', id: 'x:1', progress: 1, total: 2, message: 'm', ...change };
    if ('id' in change && change.id === undefined) delete frame.id;
    // The schema decides (and words the problem, or keeps what it accepts: a null, an unknown key).
    expect(plainProgress(frame)).toBeUndefined();
  });

  it('takes a finite progress and total, and a message at the limit', () => {
    const frame = { type: 'progress', id: 'x:1', progress: -0.5, total: 1e308, message: 'x'.repeat(MAX_PROGRESS_MESSAGE) };
    expect(plainProgress(frame)).toBe(frame);
  });
});
