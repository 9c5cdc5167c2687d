// The one zod-free frame checker (frame-check.ts) against the zod schemas, the public definition of
// the wire types: for every frame it accepts, the schema accepts it too and gives exactly the same
// output; for every frame the schema passes through unchanged, the checker accepts it (or the two
// would drift apart). Events (emit()) are accepted or refused exactly as the EventFrame schema does.
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeExtensionFrame } from '../../src/protocol/codec.js';
import { decodeLine, isLineProblem, needsCodec } from '../../src/protocol/frame-check.js';
import { checkFrame, checkProgress, eventProblem } from '../../src/protocol/frame-check.js';
import { EventFrame, ExtensionFrame, ProgressFrame } from '../../src/protocol/frames.js';
import { MAX_PROGRESS_MESSAGE } from '../../src/protocol/limits.js';
import { EVENT_NAMES, type ExtensionFrameTypeName } from '../../src/protocol/names.js';

const text = fc.string({ maxLength: 4 });

const anyResponseValue = fc.oneof(
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
    { type: fc.constantFrom('text', 'image', 'audio'), text: anyResponseValue, mime_type: anyResponseValue, data: anyResponseValue, extra: anyResponseValue },
    { requiredKeys: [] },
  ),
  anyResponseValue,
);
const panel = fc.oneof(
  fc.record({ id: fc.string(), title: fc.string(), lines: fc.array(fc.string(), { maxLength: 2 }), footer: fc.string() }, { requiredKeys: ['id'] }),
  fc.record({ id: anyResponseValue, title: anyResponseValue, lines: anyResponseValue, footer: anyResponseValue, other: anyResponseValue }, { requiredKeys: [] }),
  anyResponseValue,
);
const validBlock = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('image'), mime_type: text, data: text }),
);
const validResponse = fc.oneof(
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
      replace_text: anyResponseValue,
      system_prompt: anyResponseValue,
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
const RESPONSE_FIELDS = ['id', 'type', 'text', 'mime_type', 'data', 'title', 'lines', 'content', 'is_error', 'activate_tools', 'block', 'reason', 'modified_args', 'action', 'prompt', 'error', 'open_panel', 'unknown_field', '__proto__'];
// A valid frame, then maybe one field of it, of its first content block or of its panel replaced by
// something that may be wrong.
const mutation = fc.tuple(
  fc.constantFrom('frame', 'block', 'panel'),
  fc.constantFrom(...RESPONSE_FIELDS),
  fc.oneof(anyResponseValue, fc.array(block, { maxLength: 2 }), panel),
);
const responseFrame = fc.tuple(validResponse, fc.option(mutation, { freq: 2 })).map(([valid, change]) => {
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

describe('checkFrame: responses', () => {
  it('accepts only what the schema accepts, and returns exactly the schema output', () => {
    let accepted = 0;
    fc.assert(
      fc.property(responseFrame, (value) => {
        const hot = checkFrame(value, value.type as ExtensionFrameTypeName);
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
      expect(checkFrame(value, value.type as ExtensionFrameTypeName)).toBe(value);
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
      expect(checkFrame(value, value.type as ExtensionFrameTypeName)).toBeUndefined();
    }
  });

  it('gives decodeExtensionFrame the same result with or without the shortcut', () => {
    const line = '{"type":"tool_result","id":"0:1","content":[{"type":"text","text":"ok"}],"is_error":false}';
    expect(decodeExtensionFrame(line)).toStrictEqual({ ok: true, frame: ExtensionFrame.parse(JSON.parse(line)) });
  });
});

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
const texts = fc.array(text, { maxLength: 3 });
const optional = { requiredKeys: ['type'] as ['type'] };
const validStart = fc.oneof(
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
const START_FIELDS = ['type', 'name', 'version', 'capabilities', 'description', 'schema', 'deferred', 'events', 'intercept', 'level', 'message', 'text', 'panel_id', 'title', 'lines', 'footer', 'unknown_field', '__proto__', 'toString'];
const startFrame = fc.tuple(validStart, fc.option(fc.tuple(fc.constantFrom(...START_FIELDS), anyValue), { freq: 2 })).map(([valid, change]) => {
  // Through JSON text: the shortcut only ever sees JSON.parse output (own "__proto__" keys included).
  const json = JSON.stringify(valid);
  if (change === null) return JSON.parse(json) as Record<string, unknown>;
  const [key, value] = change;
  return JSON.parse(`${json.slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(value)}}`) as Record<string, unknown>;
});

describe('checkFrame: start-up and one-way frames', () => {
  it('accepts only what the schema accepts, and returns exactly the schema output', () => {
    let accepted = 0;
    fc.assert(
      fc.property(startFrame, (value) => {
        if (typeof value.type !== 'string') return;
        const plain = checkFrame(value, value.type as ExtensionFrameTypeName);
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
    for (const value of frames) expect(checkFrame(value, value.type as ExtensionFrameTypeName)).toStrictEqual(ExtensionFrame.parse(value));
  });

  it('leaves nulls, unknown keys, empty names and wrong types to the schema', () => {
    for (const value of [
      { type: 'hello', name: 'x', version: null },
      { type: 'hello', name: 1 },
      { type: 'register_command', name: '' },
      { type: 'register_command', name: 'x', description: null },
      { type: 'register_command', name: 'x', extra: 1 },
      { type: 'register_tool', name: 'x', schema: null },
      { type: 'register_tool', name: 'x', deferred: 'yes' },
      { type: 'register_tool', name: 'x', exposure: 1 },
      { type: 'tool_result', id: '1', structured_content: null },
      { type: 'tool_result', id: '1', content: [{ type: 'text', text: 'x', format: 1 }] },
      { type: 'subscribe', events: [1] },
      { type: 'notify', message: 'x', level: null },
      { type: 'notify' },
      { type: 'panel_render', panel_id: '' },
      { type: 'ready', extra: true },
      JSON.parse('{"type":"register_tool","name":"x","__proto__":{"a":1}}') as Record<string, unknown>,
    ]) {
      expect(checkFrame(value, value.type as ExtensionFrameTypeName)).toBeUndefined();
    }
  });

  it("takes zot's tool metadata, any JSON schema, structured_content and a text block's format as sent", () => {
    for (const value of [
      { type: 'register_tool', name: 'x', schema: [] },
      { type: 'register_tool', name: 'x', schema: 'any', output_schema: { type: 'object' }, namespace: 'w', namespace_description: 'd', namespace_instructions: 'i', exposure: 'codemode', replay: 'safe' },
      JSON.parse('{"type":"register_tool","name":"x","schema":{"__proto__":{"a":1}}}') as Record<string, unknown>,
      { type: 'tool_result', id: '1', content: [{ type: 'text', text: '# x', format: 'markdown' }], structured_content: [1, { a: null }] },
    ]) {
      expect(checkFrame(value, value.type as ExtensionFrameTypeName)).toBe(value);
      expect(ExtensionFrame.parse(value)).toEqual(value);
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

describe('checkProgress', () => {
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
        const plain = checkProgress(frame);
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
    expect(checkProgress(frame)).toBeUndefined();
  });

  it('takes a finite progress and total, and a message at the limit', () => {
    const frame = { type: 'progress', id: 'x:1', progress: -0.5, total: 1e308, message: 'x'.repeat(MAX_PROGRESS_MESSAGE) };
    expect(checkProgress(frame)).toBe(frame);
  });
});

class Custom {
  x = 1;
}
const withSymbol = { a: 1, [Symbol('s')]: 2 };
const hiddenSymbol = Object.defineProperty({ a: 1 }, Symbol('h'), { value: 1, enumerable: false });

const eventValue = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, null, undefined, true),
  fc.constantFrom<unknown>([], [1], new Custom(), new Map(), new Date(0), Object.create(null) as object, withSymbol, hiddenSymbol),
  fc.dictionary(fc.string({ maxLength: 2 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
);
const EVENT_FIELDS = [
  'step', 'stop', 'tool_id', 'tool_name', 'tool_args', 'tool_preview', 'text', 'extra',
  // zot's, after the spec snapshot
  'session_id', 'cwd', 'sequence', 'origin_extension', 'reason', 'queued', 'image_count', 'tool_args_raw', 'status',
  'executed', 'result', 'decision', 'source', 'stage', 'compaction_id', 'message_count', 'token_estimate', 'error',
  'agent_id', 'agent_run_id', 'name',
];
const count = fc.oneof(fc.nat(), fc.constantFrom(2 ** 53, -1, 1.5));
const observed = fc.record(
  { content: fc.oneof(fc.array(fc.dictionary(fc.string({ maxLength: 2 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }), { maxLength: 2 }), eventValue), is_error: fc.oneof(fc.boolean(), eventValue), truncated: fc.oneof(fc.boolean(), eventValue) },
  { requiredKeys: ['content', 'is_error'] },
);
const anyEvent = fc.record(
  {
    event: fc.oneof(fc.constantFrom(...EVENT_NAMES), fc.constantFrom('custom', 'before_agent_start', ''), eventValue),
    ...Object.fromEntries(EVENT_FIELDS.map((field) => [field, eventValue])),
  },
  { requiredKeys: [] },
);
// Valid events of each kind, with one field sometimes swapped for any value.
const knownEvent = fc
  .tuple(
    fc.record({
      event: fc.constantFrom(...EVENT_NAMES),
      step: fc.double({ noNaN: true, noDefaultInfinity: true }),
      stop: fc.string(),
      tool_id: fc.string(),
      tool_name: fc.string(),
      tool_args: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 })), eventValue),
      tool_preview: fc.string(),
      text: fc.string(),
    }),
    // zot's fields, each sometimes left out
    fc.record(
      {
        session_id: fc.string(),
        cwd: fc.string(),
        sequence: count,
        origin_extension: fc.string(),
        reason: fc.string(),
        queued: fc.boolean(),
        image_count: count,
        tool_args_raw: fc.string(),
        status: fc.string(),
        executed: fc.boolean(),
        result: observed,
        decision: fc.string(),
        source: fc.string(),
        stage: fc.string(),
        compaction_id: fc.string(),
        message_count: fc.integer(),
        token_estimate: fc.integer(),
        error: fc.string(),
        agent_id: fc.string(),
        agent_run_id: fc.string(),
        name: fc.string(),
      },
      { requiredKeys: [] },
    ),
    fc.option(fc.tuple(fc.constantFrom(...EVENT_FIELDS), eventValue)),
  )
  .map(([valid, upstream, swap]) => (swap === null ? { ...valid, ...upstream } : { ...valid, ...upstream, [swap[0]]: swap[1] }));

function agrees(input: Record<string, unknown>): void {
  const frame = Object.assign({ type: 'event' }, input, { type: 'event' });
  expect(eventProblem(frame) === undefined, JSON.stringify(input)).toBe(EventFrame.safeParse(frame).success);
}

describe('eventProblem', () => {
  it('agrees with the EventFrame schema', () => {
    fc.assert(fc.property(anyEvent, agrees), { seed: 3, numRuns: 3000 });
    fc.assert(fc.property(knownEvent, agrees), { seed: 4, numRuns: 3000 });
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

describe('the checker and the schemas agree', () => {
  /** Accept/reject: the checker takes a frame exactly when the schema takes it and passes it through unchanged. */
  function agreesWithSchema(value: Record<string, unknown>): boolean {
    if (typeof value.type !== 'string') return false;
    const checked = checkFrame(value, value.type as ExtensionFrameTypeName);
    const parsed = ExtensionFrame.safeParse(value);
    const unchanged = parsed.success && isDeepStrictEqual(parsed.data, value);
    expect(checked !== undefined, JSON.stringify(value)).toBe(unchanged);
    if (checked !== undefined) expect(checked).toStrictEqual(parsed.data);
    // hello keeps unknown keys: in the schema's order too.
    if (checked !== undefined && value.type === 'hello') expect(JSON.stringify(checked)).toBe(JSON.stringify(parsed.data));
    return checked !== undefined;
  }

  it('on generated responses and start-up frames, valid and mutated', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.oneof(responseFrame, startFrame), (value) => {
        if (agreesWithSchema(value)) accepted++;
        else refused++;
      }),
      { seed: 29, numRuns: 5000 },
    );
    expect(accepted).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(500);
  });

  it('on generated progress frames', () => {
    const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 1e308, Number.NaN));
    const value = fc.record(
      { type: fc.constant('progress'), id: fc.oneof(text, fc.integer()), message: fc.oneof(fc.string({ minLength: 998, maxLength: 1002 }), fc.constant(null)), progress: number, total: number, extra: fc.boolean() },
      { requiredKeys: ['type'] },
    );
    fc.assert(
      fc.property(value, (generated) => {
        // Through JSON text, as the checker sees frames (NaN becomes null).
        const frame = JSON.parse(JSON.stringify(generated)) as Record<string, unknown>;
        const parsed = ProgressFrame.safeParse(frame);
        expect(checkProgress(frame) !== undefined, JSON.stringify(frame)).toBe(parsed.success && isDeepStrictEqual(parsed.data, frame));
      }),
      { seed: 30, numRuns: 3000 },
    );
  });
});
