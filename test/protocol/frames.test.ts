// Frame schemas against wrong shapes: what the host refuses, tolerates and deliberately leaves loose.
import { describe, expect, it } from 'vitest';
import {
  CommandResponseFrame,
  EventInterceptResponseFrame,
  ExtensionFrame,
  HostFrame,
  PANEL_KEYS,
} from '../../src/protocol/frames.js';

type Json = Record<string, unknown>;

/** A valid frame of each extension -> host type, with every optional field filled in. */
const EXT: Record<string, Json> = {
  hello: { type: 'hello', name: 'weather', version: '1.0.0', capabilities: ['commands'] },
  register_command: { type: 'register_command', name: 'weather', description: 'current weather' },
  register_tool: {
    type: 'register_tool',
    name: 'weather',
    description: 'Get the weather.',
    schema: { type: 'object', properties: { city: { type: 'string' } } },
    deferred: true,
  },
  ready: { type: 'ready' },
  tool_result: {
    type: 'tool_result',
    id: 'c1',
    content: [
      { type: 'text', text: 'Berlin: 16°C' },
      { type: 'image', mime_type: 'image/png', data: 'iVBORw0KGgo=' },
    ],
    is_error: false,
    activate_tools: ['weather'],
  },
  subscribe: { type: 'subscribe', events: ['turn_start'], intercept: ['tool_call'] },
  event_intercept_response: { type: 'event_intercept_response', id: 'i1', block: true, reason: 'no' },
  command_response: {
    type: 'command_response',
    id: 'c1',
    action: 'open_panel',
    prompt: 'p',
    insert: 'i',
    display: 'd',
    open_panel: { id: 'todos', title: 'Todos', lines: ['a'], footer: 'esc close' },
    error: 'boom',
  },
  submit: { type: 'submit', text: 'go' },
  panel_render: { type: 'panel_render', panel_id: 'todos', title: 'Todos', lines: ['a'], footer: 'f' },
  panel_close: { type: 'panel_close', panel_id: 'todos' },
  notify: { type: 'notify', level: 'warn', message: 'careful' },
  clear_notes: { type: 'clear_notes' },
  shutdown_ack: { type: 'shutdown_ack' },
};

/** Optional fields of each extension -> host frame (where `null` means absent). */
const OPTIONAL: Record<string, string[]> = {
  hello: ['version', 'capabilities'],
  register_command: ['description'],
  register_tool: ['description', 'schema', 'deferred'],
  tool_result: ['content', 'is_error', 'activate_tools'],
  subscribe: ['events', 'intercept'],
  event_intercept_response: ['block', 'reason'],
  command_response: ['action', 'prompt', 'insert', 'display', 'open_panel', 'error'],
  panel_render: ['title', 'lines', 'footer'],
  notify: ['level'],
};

/** Required fields of each extension -> host frame besides `type`. */
const REQUIRED: Record<string, string[]> = {
  hello: ['name'],
  register_command: ['name'],
  register_tool: ['name'],
  tool_result: ['id'],
  event_intercept_response: ['id'],
  command_response: ['id'],
  submit: ['text'],
  panel_render: ['panel_id'],
  panel_close: ['panel_id'],
  notify: ['message'],
};

const without = (frame: Json, key: string): Json => {
  const copy = { ...frame };
  delete copy[key];
  return copy;
};
const ext = (type: string, patch: Json = {}): Json => ({ ...EXT[type], ...patch });

describe('extension -> host frames', () => {
  it('accept a fully populated frame of every type', () => {
    for (const frame of Object.values(EXT)) expect(ExtensionFrame.safeParse(frame).error).toBeUndefined();
  });

  it('accept every type with only its required fields', () => {
    for (const [type, frame] of Object.entries(EXT)) {
      const minimal = (OPTIONAL[type] ?? []).reduce(without, frame);
      expect(ExtensionFrame.safeParse(minimal).success, type).toBe(true);
    }
  });

  it.each(Object.entries(REQUIRED).flatMap(([type, keys]) => keys.map((key) => [type, key] as const)))(
    '%s without %s is rejected',
    (type, key) => {
      expect(ExtensionFrame.safeParse(without(EXT[type] as Json, key)).success).toBe(false);
      // null is not a value for a required field either
      expect(ExtensionFrame.safeParse(ext(type, { [key]: null })).success).toBe(false);
    },
  );

  it.each(Object.entries(OPTIONAL).flatMap(([type, keys]) => keys.map((key) => [type, key] as const)))(
    '%s accepts %s: null as absent',
    (type, key) => {
      const parsed = ExtensionFrame.safeParse(ext(type, { [key]: null }));
      expect(parsed.error).toBeUndefined();
      expect((parsed.data as Json)[key]).toBeUndefined();
    },
  );

  it('accepts null as absent inside an open_panel spec', () => {
    const open_panel = { id: 'todos', title: null, lines: null, footer: null };
    const parsed = CommandResponseFrame.parse(ext('command_response', { open_panel }));
    expect(parsed.open_panel).toMatchObject({ id: 'todos' });
    expect(parsed.open_panel?.title).toBeUndefined();
    expect(parsed.open_panel?.lines).toBeUndefined();
  });

  const wrong: [label: string, frame: Json][] = [
    ['hello name:123', ext('hello', { name: 123 })],
    ['hello version:1', ext('hello', { version: 1 })],
    ['hello capabilities not an array', ext('hello', { capabilities: 'commands' })],
    ['hello capabilities of numbers', ext('hello', { capabilities: [1] })],
    ['register_command name:123', ext('register_command', { name: 123 })],
    ['register_command empty name', ext('register_command', { name: '' })],
    ['register_command description:false', ext('register_command', { description: false })],
    ['register_tool name:123', ext('register_tool', { name: 123 })],
    ['register_tool empty name', ext('register_tool', { name: '' })],
    ['register_tool namespace:1', ext('register_tool', { namespace: 1 })],
    ['register_tool exposure:["direct"]', ext('register_tool', { exposure: ['direct'] })],
    ['register_tool replay:false', ext('register_tool', { replay: false })],
    ['tool_result text format:true', ext('tool_result', { id: '1', content: [{ type: 'text', text: 'x', format: true }] })],
    ['register_tool deferred:"yes"', ext('register_tool', { deferred: 'yes' })],
    ['tool_result id:7', ext('tool_result', { id: 7 })],
    ['tool_result content not an array', ext('tool_result', { content: 'Berlin: 16°C' })],
    ['tool_result content of strings', ext('tool_result', { content: ['Berlin'] })],
    ['tool_result text block without text', ext('tool_result', { content: [{ type: 'text' }] })],
    ['tool_result text block text:1', ext('tool_result', { content: [{ type: 'text', text: 1 }] })],
    ['tool_result image block without mime_type', ext('tool_result', { content: [{ type: 'image', data: 'AA==' }] })],
    ['tool_result image block without data', ext('tool_result', { content: [{ type: 'image', mime_type: 'image/png' }] })],
    [
      'tool_result image block data:5',
      ext('tool_result', { content: [{ type: 'image', mime_type: 'image/png', data: 5 }] }),
    ],
    ['tool_result block without type', ext('tool_result', { content: [{ text: 'x' }] })],
    ['tool_result block type:1', ext('tool_result', { content: [{ type: 1 }] })],
    ['tool_result is_error:"true"', ext('tool_result', { is_error: 'true' })],
    ['tool_result activate_tools not an array', ext('tool_result', { activate_tools: 'weather' })],
    ['subscribe events not an array', ext('subscribe', { events: 'turn_start' })],
    ['subscribe intercept of numbers', ext('subscribe', { intercept: [1] })],
    ['event_intercept_response id:1', ext('event_intercept_response', { id: 1 })],
    ['event_intercept_response block:"yes"', ext('event_intercept_response', { block: 'yes' })],
    ['event_intercept_response reason:1', ext('event_intercept_response', { reason: 1 })],
    ['command_response action "explode"', ext('command_response', { action: 'explode' })],
    ['command_response action:1', ext('command_response', { action: 1 })],
    ['command_response prompt:1', ext('command_response', { prompt: 1 })],
    ['command_response error:true', ext('command_response', { error: true })],
    ['command_response open_panel not an object', ext('command_response', { open_panel: 'todos' })],
    ['command_response open_panel without id', ext('command_response', { open_panel: { title: 'Todos' } })],
    ['command_response open_panel lines:"a"', ext('command_response', { open_panel: { id: 't', lines: 'a' } })],
    ['submit text:1', ext('submit', { text: 1 })],
    ['panel_render empty panel_id', ext('panel_render', { panel_id: '' })],
    ['panel_render lines not an array', ext('panel_render', { lines: 'a' })],
    ['panel_render lines of numbers', ext('panel_render', { lines: [1, 2] })],
    ['panel_close panel_id:1', ext('panel_close', { panel_id: 1 })],
    ['notify level non-string', ext('notify', { level: 3 })],
    ['notify message:{}', ext('notify', { message: {} })],
    ['type not a string', { type: 1 }],
    ['unknown type', { type: 'explode' }],
    ['no type', { name: 'weather' }],
    ['a host -> extension type', { type: 'shutdown' }],
  ];

  it.each(wrong)('rejects %s', (_label, frame) => {
    expect(ExtensionFrame.safeParse(frame).success).toBe(false);
  });

  it('keeps a content block of an unknown type as its type only, next to the others (the host shows a placeholder)', () => {
    const frame = ExtensionFrame.parse(ext('tool_result', { content: [{ type: 'text', text: 'a' }, { type: 'video', url: 'x' }, { type: 'image', mime_type: 'image/png', data: 'AA==' }] }));
    expect(frame).toMatchObject({ content: [{ type: 'text', text: 'a' }, { type: 'video' }, { type: 'image', mime_type: 'image/png', data: 'AA==' }] });
  });

  it('accepts a notify level outside the four named ones (the host maps it)', () => {
    expect(ExtensionFrame.parse(ext('notify', { level: 'debug' }))).toMatchObject({ level: 'debug' });
  });

  it('keeps subscribe names it does not know (the host reports them)', () => {
    const frame = ExtensionFrame.parse(ext('subscribe', { events: ['custom_event'], intercept: ['session_start'] }));
    expect(frame).toMatchObject({ events: ['custom_event'], intercept: ['session_start'] });
  });

  it('tolerates unknown extra fields and drops them, also inside content blocks and panel specs', () => {
    const frame = ExtensionFrame.parse(
      ext('tool_result', { content: [{ type: 'text', text: 'a', cache: true }], trace_id: 'abc' }),
    );
    expect(frame).toEqual({ type: 'tool_result', id: 'c1', content: [{ type: 'text', text: 'a' }], is_error: false, activate_tools: ['weather'] });
    const panel = CommandResponseFrame.parse(ext('command_response', { open_panel: { id: 't', scroll: 3 } }));
    expect(panel.open_panel).toEqual({ id: 't' });
  });

  it('keeps unknown extra fields of hello (extension metadata the host exposes)', () => {
    const frame = ExtensionFrame.parse(ext('hello', { homepage: 'https://example.test', sdk: { lang: 'go' } }));
    expect(frame).toMatchObject({ name: 'weather', homepage: 'https://example.test', sdk: { lang: 'go' } });
  });

  it('keeps a register_tool schema exactly as sent', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, additionalProperties: false };
    expect(ExtensionFrame.parse(ext('register_tool', { schema }))).toMatchObject({ schema });
  });

  it('does not let a "__proto__" key change the prototype of the parsed frame', () => {
    const frame = ExtensionFrame.parse(JSON.parse('{"type":"ready","__proto__":{"polluted":true}}')) as Json;
    expect(Object.getPrototypeOf(frame)).toBe(Object.prototype);
    expect(frame.polluted).toBeUndefined();
  });

  describe('event_intercept_response leaves modified_args, replace_text and system_prompt loose', () => {
    // The intercept chain validates these per event, so one bad field is reported and ignored on
    // its own and never takes a `block` down with it.
    const values = ['rewritten', '', 42, true, null, [1, 2], { command: 'ls' }];
    it.each(['modified_args', 'replace_text', 'system_prompt'])('%s passes any JSON value through as sent', (key) => {
      for (const value of values) {
        const parsed = EventInterceptResponseFrame.safeParse({ type: 'event_intercept_response', id: 'i1', block: true, [key]: value });
        expect(parsed.error).toBeUndefined();
        expect(parsed.data?.block).toBe(true);
        expect(parsed.data).toHaveProperty(key, value);
      }
    });

    it('keeps an omitted value omitted (a no-op, unlike "")', () => {
      const parsed = EventInterceptResponseFrame.parse({ type: 'event_intercept_response', id: 'i1' });
      expect('system_prompt' in parsed).toBe(false);
      expect('replace_text' in parsed).toBe(false);
      expect('modified_args' in parsed).toBe(false);
    });
  });
});

describe('host -> extension frames', () => {
  const HOST: Record<string, Json> = {
    hello_ack: {
      type: 'hello_ack',
      protocol_version: 1,
      zot_version: '1.2.3',
      provider: 'anthropic',
      model: 'claude-opus-4-7',
      cwd: '/work/repo',
      extension_dir: '/work/repo/.zot/extensions/w',
      data_dir: '/work/repo/.zot/extensions/w',
    },
    command_invoked: { type: 'command_invoked', id: 'c1', name: 'weather', args: 'berlin' },
    tool_call: { type: 'tool_call', id: 't1', name: 'weather', args: { city: 'Berlin' } },
    turn_start: { type: 'event', event: 'turn_start', step: 1 },
    tool_call_event: { type: 'event', event: 'tool_call', tool_id: 't1', tool_name: 'read', tool_args: {} },
    confirmation: {
      type: 'event',
      event: 'tool_confirmation_requested',
      tool_id: 't1',
      tool_name: 'bash',
      tool_preview: 'ls',
    },
    turn_end: { type: 'event', event: 'turn_end', stop: 'end_turn' },
    assistant_message: { type: 'event', event: 'assistant_message', text: 'hi' },
    intercept_tool_call: {
      type: 'event_intercept',
      id: 'i1',
      event: 'tool_call',
      tool_id: 't1',
      tool_name: 'bash',
      tool_args: { command: 'ls' },
    },
    intercept_before_agent_start: {
      type: 'event_intercept',
      id: 'i2',
      event: 'before_agent_start',
      session_id: 's',
      agent_run_id: 'r',
      cwd: '/w',
      provider: 'p',
      model: 'm',
      system_prompt: '',
    },
    panel_key: { type: 'panel_key', panel_id: 'todos', key: 'rune', text: 'x' },
  };
  const host = (name: string, patch: Json = {}): Json => ({ ...HOST[name], ...patch });

  it('accept valid frames', () => {
    for (const frame of Object.values(HOST)) expect(HostFrame.safeParse(frame).error).toBeUndefined();
  });

  it('accept every normalized panel key name', () => {
    for (const key of PANEL_KEYS) expect(HostFrame.safeParse({ type: 'panel_key', panel_id: 'p', key }).success, key).toBe(true);
  });

  it('accept a custom event name', () => {
    expect(HostFrame.parse({ type: 'event', event: 'build_finished' })).toEqual({ type: 'event', event: 'build_finished' });
  });

  const wrong: [label: string, frame: Json][] = [
    ['panel_key with key "f13"', host('panel_key', { key: 'f13' })],
    ['panel_key without key', without(HOST.panel_key as Json, 'key')],
    ['panel_key text:1', host('panel_key', { text: 1 })],
    ['panel_key without panel_id', without(HOST.panel_key as Json, 'panel_id')],
    ['hello_ack protocol_version "1"', host('hello_ack', { protocol_version: '1' })],
    ['hello_ack protocol_version 1.5', host('hello_ack', { protocol_version: 1.5 })],
    ['hello_ack without cwd', without(HOST.hello_ack as Json, 'cwd')],
    ['hello_ack without data_dir', without(HOST.hello_ack as Json, 'data_dir')],
    ['command_invoked args:1', host('command_invoked', { args: 1 })],
    ['command_invoked without id', without(HOST.command_invoked as Json, 'id')],
    ['tool_call args "x"', host('tool_call', { args: 'x' })],
    ['tool_call args an array', host('tool_call', { args: [1] })],
    ['tool_call without name', without(HOST.tool_call as Json, 'name')],
    ['turn_start event without step', without(HOST.turn_start as Json, 'step')],
    ['turn_start event step "1"', host('turn_start', { step: '1' })],
    ['tool_call event tool_args "x"', host('tool_call_event', { tool_args: 'x' })],
    ['tool_confirmation_requested without tool_preview', without(HOST.confirmation as Json, 'tool_preview')],
    ['turn_end event stop:1', host('turn_end', { stop: 1 })],
    ['assistant_message event without text', without(HOST.assistant_message as Json, 'text')],
    ['event without event name', { type: 'event' }],
    ['event_intercept without id', without(HOST.intercept_tool_call as Json, 'id')],
    ['event_intercept for an event that cannot be intercepted', host('intercept_tool_call', { event: 'session_start' })],
    ['event_intercept tool_call without tool_args', without(HOST.intercept_tool_call as Json, 'tool_args')],
    ['before_agent_start without system_prompt', without(HOST.intercept_before_agent_start as Json, 'system_prompt')],
    ['before_agent_start system_prompt:null', host('intercept_before_agent_start', { system_prompt: null })],
    ['an extension -> host type', { type: 'ready' }],
  ];

  it.each(wrong)('rejects %s', (_label, frame) => {
    expect(HostFrame.safeParse(frame).success).toBe(false);
  });
});
