// SDK parity: ONE list of behaviour tests, run against the hand-written fixtures (subprocesses), the
// SDK kitchen in-process and as a subprocess, and the Python SDK's kitchen as a subprocess. Behaviours the hand-written kitchen
// lacks are answered by other hand-written fixtures (see variants.ts) or, where no fixture has them
// (zod validation, throwing handlers, turn_start interception), run for the SDK variants only.
import { readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NoteView, PanelKey, PanelView } from '../../src/host/types.js';
import { createTestHost, type TestHost } from '../../src/testing/index.js';
import { tempDir } from '../helpers/fixtures.js';
import { textOf } from '../helpers/host.js';
import { waitUntil } from '../helpers/wait.js';
import { Collector, type RawExtension } from './helpers.js';
import { KITCHEN_EVENTS, SHARED_COMMANDS, SHARED_TOOLS, VARIANTS } from './variants.js';

/** Hard timeout of every test; hosts and processes get longer to start. */
const TEST_MS = 10_000;
const START_MS = 30_000;
/** How long a raw process may take to say hello. */
const HELLO_MS = 20_000;
/** Diagnostics the host records for a line that is not a valid frame. */
const BAD_LINE_CODES = ['NOT_JSON', 'NOT_OBJECT', 'UNKNOWN_TYPE', 'INVALID_FRAME'];

const HOST = { hostVersion: 'parity-1.0', provider: 'anthropic', model: 'claude-opus-4-7' } as const;

const workspace = tempDir('zot-parity-');
afterAll(() => workspace.cleanup());

describe.each(VARIANTS.map((v) => [v.label, v] as const))('%s', (_label, v) => {
  const cwd = workspace.dir;
  const renders = new Collector<PanelView>();
  const eventNotes = new Collector<NoteView>();
  let t: TestHost;
  let teardown: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    teardown = await v.setup?.(cwd);
    t = await createTestHost({
      extensions: v.extensions(),
      cwd,
      ...HOST,
      timeoutMs: 8000,
      callbacks: {
        renderPanel: renders.push,
        notify: (note) => {
          if (note.message.startsWith('event ')) eventNotes.push(note);
        },
      },
    });
  }, START_MS);
  afterAll(async () => {
    await t?.close();
    await teardown?.();
  }, START_MS);

  it('handshake: ready through its own ready frame, registrations in order', { timeout: TEST_MS }, () => {
    const info = t.host.extensions().find((e) => e.name === v.kitchen);
    expect(info).toMatchObject({ state: 'ready', readyVia: 'ready', version: '0.1.0', source: v.subprocess ? 'explicit' : 'memory' });
    expect(info?.capabilities).toEqual(v.hello.capabilities);
    expect(info?.subscriptions.events).toEqual(KITCHEN_EVENTS);
    const shared = new Set(SHARED_COMMANDS.map(([name]) => name));
    expect(t.host.commands().filter((c) => c.extension === v.kitchen && shared.has(c.name))).toEqual(
      SHARED_COMMANDS.map(([name, description]) => ({ name, description, extension: v.kitchen })),
    );
    const sharedTools = new Set(SHARED_TOOLS.map((tool) => tool.name));
    expect(t.host.tools().filter((tool) => tool.extension === v.kitchen && sharedTools.has(tool.name))).toEqual(
      SHARED_TOOLS.map((tool) => ({ ...tool, extension: v.kitchen })),
    );
  });

  it('hands the extension the hello_ack as the host sent it (/ack)', { timeout: TEST_MS }, async () => {
    const outcome = await t.command('/ack');
    expect(outcome).toMatchObject({ handled: true, action: 'display', failure: undefined });
    const dir = v.kitchenDir ?? cwd;
    expect(JSON.parse(outcome.handled ? (outcome.text ?? '') : '')).toEqual({
      type: 'hello_ack',
      protocol_version: 1,
      zot_version: HOST.hostVersion,
      provider: HOST.provider,
      model: HOST.model,
      cwd,
      extension_dir: dir,
      data_dir: dir,
      // The SDKs declare cancel, progress and trace: the host grants the first two (issue 15).
      ...(v.sdk ? { capabilities: ['cancel', 'progress'] } : {}),
    });
  });

  it('commands: prompt, insert, display, open_panel and noop reach the callbacks', { timeout: TEST_MS }, async () => {
    const r = t.record;
    expect(await t.command('/ask why not')).toMatchObject({ handled: true, extension: v.kitchen, action: 'prompt', text: 'Q: why not', error: undefined });
    expect(r.prompts.at(-1)).toEqual({ extension: v.kitchen, command: 'ask', text: 'Q: why not' });
    expect(await t.command('/PUT some  text')).toMatchObject({ name: 'put', action: 'insert', text: 'some  text' });
    expect(r.inserts.at(-1)).toEqual({ extension: v.kitchen, command: 'put', text: 'some  text' });
    expect(await t.command('/show shown')).toMatchObject({ action: 'display', text: 'shown' });
    expect(r.displays.at(-1)).toEqual({ extension: v.kitchen, command: 'show', text: 'shown' });
    const panel = { extension: v.kitchen, panelId: 'kitchen-panel', title: 'Kitchen', lines: ['one'], footer: undefined };
    expect(await t.command('/panel')).toMatchObject({ action: 'open_panel', panel });
    expect(r.panels.opened.at(-1)).toEqual(panel);
    const closed = t.nextNote((n) => n.message === 'kitchen panel closed');
    expect(t.host.closePanel('kitchen-panel')).toBe(true);
    expect(await closed).toEqual({ extension: v.kitchen, level: 'info', message: 'kitchen panel closed' });
    expect(await t.command('/clear')).toMatchObject({ handled: true, action: 'noop', text: undefined, error: undefined, failure: undefined });
  });

  it('command error: reported as an error note, and the action still runs', { timeout: TEST_MS }, async () => {
    const notes = t.record.notes.length;
    expect(await t.command('/oops')).toMatchObject({ action: 'display', text: 'partial', error: 'something failed', failure: undefined });
    expect(t.record.notes.slice(notes)).toEqual([{ extension: v.kitchen, level: 'error', message: 'something failed' }]);
    expect(t.record.displays.at(-1)).toEqual({ extension: v.kitchen, command: 'oops', text: 'partial' });
  });

  it('a command that never answers times out on the host; the extension keeps answering', { timeout: TEST_MS }, async () => {
    const outcome = await t.command('/noreply', { timeoutMs: 50 });
    expect(outcome.handled && outcome.failure?.code).toBe('TIMEOUT');
    expect(await t.command('/show still here')).toMatchObject({ text: 'still here', failure: undefined });
  });

  it('notify, submit and clear_notes; a blank submit is ignored', { timeout: TEST_MS }, async () => {
    const r = t.record;
    await t.command('/bg index the repo');
    expect(r.notes.at(-1)).toEqual({ extension: v.kitchen, level: 'info', message: 'working: index the repo' });
    expect(r.submits.at(-1)).toEqual({ extension: v.kitchen, text: 'index the repo' });
    const submits = r.submits.length;
    expect(await t.command('/blank')).toMatchObject({ action: 'noop' });
    expect(r.submits.length).toBe(submits);
    const cleared = r.clearedNotes.length;
    await t.command('/clear');
    expect(r.clearedNotes.slice(cleared)).toEqual([v.kitchen]);
  });

  it('tools: text, image and error results', { timeout: TEST_MS }, async () => {
    const echoed = await t.callTool('echo', { a: 1, nested: { b: [1, 'two'] } });
    expect(echoed).toMatchObject({ isError: false, extension: v.kitchen, activatedTools: [], failure: undefined });
    expect(textOf(echoed)).toBe('{"a":1,"nested":{"b":[1,"two"]}}');
    expect(textOf(await t.callTool('slow', { ms: 1 }))).toBe('slept 1');
    expect((await t.callTool('image')).content).toEqual([{ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }]);
    const failed = await t.callTool('fail');
    expect(failed).toMatchObject({ isError: true, extension: v.kitchen, failure: undefined });
    expect(textOf(failed)).toBe('failed on purpose');
  });

  it('handles requests concurrently: a tool that never answers delays nothing', { timeout: TEST_MS }, async () => {
    const controller = new AbortController();
    const hanging = t.callTool('hang', {}, { signal: controller.signal });
    expect(textOf(await t.callTool('echo', { x: 1 }))).toBe('{"x":1}');
    expect(await t.command('/show meanwhile')).toMatchObject({ text: 'meanwhile' });
    controller.abort();
    expect((await hanging).failure?.code).toBe('ABORTED');
  });

  it('a tool registered after ready is callable at once (/latetool)', { timeout: TEST_MS }, async () => {
    await t.command('/latetool');
    expect(t.host.tools().find((tool) => tool.name === 'late_tool')).toEqual({
      name: 'late_tool',
      description: 'registered after ready',
      schema: { type: 'object', properties: {} },
      extension: v.kitchen,
    });
    expect(textOf(await t.callTool('late_tool'))).toBe('late');
  });

  it('deferred tools: hidden and refused until a tool result activates them', { timeout: TEST_MS }, async () => {
    const owner = v.owners.deferred;
    expect(t.host.tools().map((tool) => tool.name)).not.toContain('forecast');
    expect((await t.callTool('forecast', { city: 'Oslo' })).failure?.code).toBe('UNKNOWN_TOOL');
    const changed = t.nextToolsChanged();
    const enabled = await t.callTool('enable_forecast');
    expect(enabled).toMatchObject({ isError: false, extension: owner, activatedTools: ['forecast'] });
    expect(textOf(enabled)).toBe('Enabled forecast');
    expect((await changed).find((tool) => tool.name === 'forecast')).toEqual({
      name: 'forecast',
      description: "Get tomorrow's forecast for a city.",
      schema: { type: 'object', properties: { city: { type: 'string' } } },
      extension: owner,
    });
    expect(textOf(await t.callTool('forecast', { city: 'Oslo' }))).toBe('Oslo: tomorrow 18°C, sun');
    const missing = await t.callTool('forecast', {});
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe('forecast: missing city');
  });

  it('events reach the subscriber in the order emitted, custom events too', { timeout: TEST_MS }, async () => {
    const events = [
      { event: 'session_start' },
      { event: 'turn_start', step: 2 },
      { event: 'tool_call', tool_id: 't1', tool_name: 'read', tool_args: { path: 'a.go' } },
      { event: 'tool_confirmation_requested', tool_id: 't2', tool_name: 'bash', tool_preview: 'ls' },
      { event: 'assistant_message', text: 'done ✓' },
      { event: 'turn_end', stop: 'end_turn' },
      { event: 'custom_thing', answer: 42 },
    ];
    const before = eventNotes.items.length;
    for (const event of events) expect(t.emit(event)).toBe(1);
    const notes = (await eventNotes.waitForLength(before + events.length)).slice(before);
    if (!v.sdk) {
      // A snapshot-era extension (declares no capability): the bytes as emitted.
      expect(notes).toEqual(events.map((event) => ({ extension: v.kitchen, level: 'info', message: `event ${JSON.stringify({ type: 'event', ...event })}` })));
      return;
    }
    // The SDKs declare capabilities, so the host adds zot's session_id, cwd and sequence.
    const got = notes.map((note) => ({ ...note, message: JSON.parse(note.message.slice('event '.length)) as { sequence: number } }));
    const zot = { session_id: expect.any(String), cwd: expect.any(String), sequence: expect.any(Number) };
    expect(got).toEqual(events.map((event) => ({ extension: v.kitchen, level: 'info', message: { type: 'event', ...event, ...zot } })));
    expect(got.map((note) => note.message.sequence - got[0]!.message.sequence)).toEqual(events.map((_, i) => i));
  });

  it('tool_call interception: block, rewrite, allow', { timeout: TEST_MS }, async () => {
    expect(await t.toolCall('bash', { command: 'rm -rf /tmp/x' })).toMatchObject({
      block: true,
      reason: 'refused: matches danger pattern "rm -rf"',
      blockedBy: v.owners.toolGuard,
    });
    expect(await t.toolCall('bash', { command: 'ls' })).toMatchObject({ block: false, modified: true, args: { command: 'echo GUARDED: ls' } });
    expect(await t.toolCall('bash', { command: 'ls -la' })).toMatchObject({ block: false, modified: false, args: { command: 'ls -la' } });
  });

  it('assistant_message interception: block and replace_text', { timeout: TEST_MS }, async () => {
    expect(await t.assistantMessage('your key: sk-ant-123 and sk-x')).toMatchObject({ block: false, modified: true, text: 'your key: [redacted] and [redacted]' });
    expect(await t.assistantMessage('please BLOCKME')).toMatchObject({ block: true, reason: `blocked by ${v.owners.redactor}`, blockedBy: v.owners.redactor });
    expect(await t.assistantMessage('nothing secret')).toMatchObject({ block: false, modified: false, text: 'nothing secret' });
  });

  it('before_agent_start: replaces the whole system prompt', { timeout: TEST_MS }, async () => {
    const prepared = await t.systemPrompt('You are helpful.');
    expect(prepared).toMatchObject({ systemPrompt: `You are helpful.\n[${v.owners.prompt}]`, cached: false });
  });

  it('panels: renders come back in the order the keys were pressed; a host close is reported', { timeout: TEST_MS }, async () => {
    await t.command('/panel');
    const keys: [PanelKey, string?][] = [
      ['up'], ['down'], ['rune', 'q'], ['up'], ['enter'], ['up'], ['left'], ['right'], ['tab'], ['rune', 'é'],
      ['pageup'], ['pagedown'], ['home'], ['end'], ['backspace'], ['delete'], ['up'], ['esc'],
    ];
    const before = renders.items.length;
    for (const [key, text] of keys) expect(t.host.panelKey('kitchen-panel', key, text)).toBe(true);
    const frames = (await renders.waitForLength(before + keys.length)).slice(before);
    expect(frames).toEqual(
      keys.map(([key, text]) => ({
        extension: v.kitchen,
        panelId: 'kitchen-panel',
        title: 'Kitchen',
        lines: ['one', `key ${key}${text === undefined ? '' : ` ${text}`}`],
        footer: undefined,
      })),
    );
    const closed = t.nextNote((n) => n.message === 'kitchen panel closed');
    expect(t.host.closePanel('kitchen-panel')).toBe(true);
    expect(await closed).toEqual({ extension: v.kitchen, level: 'info', message: 'kitchen panel closed' });
    expect(t.host.panelKey('kitchen-panel', 'up')).toBe(false);
  });

  it('panels: a key name outside the spec\'s list reaches the handler as the host forwarded it', { timeout: TEST_MS }, async () => {
    await t.command('/panel');
    const keys: [PanelKey, string?][] = [['unknown'], ['f13', 'x'], ['ctrl+k'], ['down']];
    const before = renders.items.length;
    for (const [key, text] of keys) expect(t.host.panelKey('kitchen-panel', key, text)).toBe(true);
    const frames = (await renders.waitForLength(before + keys.length)).slice(before);
    expect(frames.map((f) => f.lines[1])).toEqual(['key unknown', 'key f13 x', 'key ctrl+k', 'key down']);
    const closed = t.nextNote((n) => n.message === 'kitchen panel closed');
    expect(t.host.closePanel('kitchen-panel')).toBe(true);
    await closed;
  });

  it('a render for a panel the extension does not own is refused (/foreign)', { timeout: TEST_MS }, async () => {
    const diagnostics = t.host.diagnostics().length;
    const renderCount = renders.items.length;
    expect(await t.command('/foreign')).toMatchObject({ action: 'noop', failure: undefined });
    expect(t.host.diagnostics().slice(diagnostics)).toEqual([
      expect.objectContaining({ code: 'PANEL_REFUSED', extension: v.kitchen }),
    ]);
    expect(renders.items.length).toBe(renderCount);
  });

  it.runIf(v.zod)('zod tools: schema sent as JSON Schema, args validated before the handler, failures are is_error', { timeout: TEST_MS }, async () => {
    expect(t.host.tools().find((tool) => tool.name === 'add')).toEqual({
      name: 'add',
      description: 'Add two numbers.',
      schema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      extension: v.kitchen,
    });
    expect(textOf(await t.callTool('add', { a: 2, b: 40 }))).toBe('42');
    const bad = await t.callTool('add', { a: 'two' });
    expect(bad).toMatchObject({ isError: true, extension: v.kitchen, failure: undefined });
    expect(textOf(bad)).toBe(
      'invalid arguments for tool "add": a: Invalid input: expected number, received string; b: Invalid input: expected number, received undefined',
    );
  });

  it.runIf(v.sdk)('a handler that throws answers that request with an error; the extension keeps running', { timeout: TEST_MS }, async () => {
    expect(await t.command('/throw')).toMatchObject({ handled: true, action: 'noop', error: v.thrown, failure: undefined });
    const boom = await t.callTool('boom');
    expect(boom).toMatchObject({ isError: true, failure: undefined });
    expect(textOf(boom)).toBe(`tool "boom" failed: ${v.thrown}`);
    expect(await t.command('/show alive')).toMatchObject({ text: 'alive', failure: undefined });
    if (!v.subprocess) expect(t.record.stderr).toContainEqual(expect.stringContaining('command "throw" failed: Error: kaboom'));
  });

  it.runIf(v.sdk)('turn_start interception: blocks past the turn limit', { timeout: TEST_MS }, async () => {
    expect(await t.turnStart(1)).toMatchObject({ block: false });
    expect(await t.turnStart(51)).toMatchObject({ block: true, reason: `${v.kitchen}: turn limit of 50 steps reached`, blockedBy: v.kitchen });
  });

  it.runIf(v.sdk && v.subprocess)('console.log / print() in a handler lands in the log (stderr), never on stdout', { timeout: TEST_MS }, async () => {
    const logPath = t.host.extensions().find((e) => e.name === v.kitchen)!.logPath;
    expect(await t.command('/log')).toMatchObject({ action: 'display', text: 'logged' });
    const served = v.serverStderr;
    // Served: the extension's stderr is the server's, each line prefixed with its connection.
    if (served !== undefined) await waitUntil('the printed line on the server\'s stderr', () => served().includes(`] ${v.printed}\n`));
    // The child's stderr is the log file itself, written synchronously before the answer.
    else expect(await readFile(logPath, 'utf8')).toContain(`${v.printed}\n`);
  });

  it('never wrote a line that is not a valid frame', { timeout: TEST_MS }, () => {
    expect(t.host.diagnostics().filter((d) => d.extension === v.kitchen && BAD_LINE_CODES.includes(d.code))).toEqual([]);
  });

  describe('without a host', () => {
    let raw: RawExtension | undefined;
    afterEach(async () => {
      raw?.kill();
      await raw?.exited;
      raw = undefined;
    });

    async function handshake(): Promise<RawExtension> {
      raw = v.raw();
      // A process start (tsx compiles main.ts) gets the hosts' start deadline: CI machines are shared.
      expect(await raw.frame('hello', HELLO_MS)).toEqual(v.hello);
      raw.send({ type: 'hello_ack', protocol_version: 1, zot_version: HOST.hostVersion, provider: HOST.provider, model: HOST.model, cwd, extension_dir: cwd, data_dir: cwd });
      await raw.frame('ready');
      return raw;
    }

    it('shutdown: answers shutdown_ack and exits with code 0', { timeout: HELLO_MS + TEST_MS }, async () => {
      const ext = await handshake();
      ext.send({ type: 'shutdown' });
      await ext.frame('shutdown_ack');
      expect(await ext.exit()).toEqual({ code: 0, signal: null });
      expect(ext.lines.length).toBe(ext.frames.length);
    });

    it('stdin EOF: exits with code 0 by itself (an orphan never lingers)', { timeout: HELLO_MS + TEST_MS }, async () => {
      const ext = await handshake();
      ext.endInput();
      expect(await ext.exit()).toEqual({ code: 0, signal: null });
      expect(ext.frames.map((f) => f.type)).not.toContain('shutdown_ack');
    });
  });
});
