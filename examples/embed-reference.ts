/**
 * The reference embedding of docs/embedding.md: the guide's code blocks are excerpts of this file
 * (test/docs.test.ts checks that) and it runs in CI (test/examples.test.ts), asserting what the guide
 * promises. It embeds ExtensionHost in a scratch project over the real fixture extensions: a copy of
 * `weather` as the explicit `./my-ext`, and `guard`, `kitchen`, `prompt-append-a`, `redactor` and
 * `todo` linked into the project's `.zot/extensions`. Run it: `npx tsx examples/embed-reference.ts`.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExtensionHost } from '../src/index.js';
import type { HostCallbacks, ToolResult } from '../src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const scratch = mkdtempSync(path.join(tmpdir(), 'zot-embed-reference-'));
const projectDir = path.join(scratch, 'project');
const home = path.join(scratch, 'home');
cpSync(path.join(root, 'fixtures/extensions/weather'), path.join(projectDir, 'my-ext'), { recursive: true });
const projectExtensions = path.join(projectDir, '.zot/extensions');
mkdirSync(projectExtensions, { recursive: true });
for (const fixture of ['extensions/guard', 'extensions/kitchen', 'extensions/todo', 'intercept/prompt-append-a', 'intercept/redactor']) {
  symlinkSync(path.join(root, 'fixtures', fixture), path.join(projectExtensions, path.basename(fixture)));
}

// What the user would see, one line per callback. Frames arrive asynchronously: `until` resolves
// once a callback has made its check true.
const seen: string[] = [];
const checks = new Set<() => void>();
const saw = (text: string) => seen.some((line) => line.includes(text));
function until(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const attempt = () => {
      if (!check()) return;
      checks.delete(attempt);
      resolve();
    };
    checks.add(attempt);
    attempt();
  });
}
function log(line: string): void {
  console.log(line);
  seen.push(line);
  for (const check of [...checks]) check();
}

// Stand-ins for the agent's own parts.
const builtIns: string[] = [];
const runBuiltInCommand = (line: string) => builtIns.push(line);
const toolError = (reason: string | undefined): ToolResult => ({
  content: [{ type: 'text', text: reason ?? 'blocked' }],
  isError: true,
  extension: undefined,
  activatedTools: [],
  failure: undefined,
});
const showStatus = (reason: string | undefined): void => log(`status ${reason}`);
const render = (text: string) => log(`assistant ${text}`);

// Section 2: every callback.
const callbacks: HostCallbacks = {
  prompt: ({ text, command, extension }) => log(`prompt [${extension}] /${command}: ${text}`),
  submit: ({ text, extension }) => log(`submit [${extension}] ${text}`),
  insert: ({ text, extension }) => log(`insert [${extension}] ${text}`),
  display: ({ text, extension }) => log(`display [${extension}] ${text}`),
  notify: ({ level, message, extension }) => log(`note [${extension}] ${level}: ${message}`),
  clearNotes: ({ extension }) => log(`notes cleared [${extension}]`),
  openPanel: (panel) => log(`panel open ${panel.panelId}: ${panel.lines.join(' | ')}`),
  renderPanel: (panel) => log(`panel render ${panel.panelId}: ${panel.lines.join(' | ')}`),
  closePanel: ({ panelId, by, extension }) => log(`panel closed ${panelId} by ${by} [${extension}]`),
  toolsChanged: (tools) => log(`tools ${tools.map((t) => t.name).join(', ')}`),
  warning: (warning) => log(`warning ${warning.message}`),
};

// Section 1: create and start.
const host = new ExtensionHost({
  cwd: projectDir,                 // hello_ack.cwd; project extensions: <cwd>/.zot/extensions
  appName: 'zot',                  // '.zot' and $ZOT_HOME; another agent may say 'myagent'
  explicit: ['./my-ext'],          // like `zot --ext`: loaded first, win name conflicts (relative to cwd)
  provider: 'anthropic', model: 'claude-opus-4-7', hostVersion: '1.2.3',
  builtinCommands: ['help', 'clear'],            // your own commands always win
  builtinTools: ['read', 'write', 'edit', 'bash', 'skill'],   // the default
  callbacks,                                     // section 2
  home,                                          // a scratch home: this example leaves yours alone
});

// Section 7: state, exits and diagnostics (subscribed before start to see every transition).
host.on('extension:state', ({ name, state, previous }) => log(`${name}: ${previous} -> ${state}`));   // starting -> ready -> exited / stopped; failed
host.on('extension:exit', ({ name, code, signal, reason }) => log(`${name} exited (${reason}): ${code ?? signal}`));
host.on('diagnostic', (d) => log(d.message));                // bad frames, conflicts, refused panels, interceptor failures
// Section 2: a second observer of the notes, next to the notify callback.
const audit: string[] = [];
host.on('notify', ({ extension, level, message }) => audit.push(`[${extension}] ${level}: ${message}`));

// An in-process interceptor next to the extensions' ones (see docs/interception.md).
host.intercepts.add({
  name: 'step-limit',
  turnStart: ({ step }) => (step > 50 ? { block: true, reason: 'turn limit of 50 steps reached' } : undefined),
});

// Section 3: slash commands, extensions first, the agent's own as the fallback.
async function onSlashCommand(line: string): Promise<void> {
  const outcome = await host.runCommand(line);   // '/Weather  berlin ', or { name: 'weather', args: 'berlin' }
  if (!outcome.handled) runBuiltInCommand(line); // not an extension command
}

// Section 4: a tool call from the model goes through interception first.
async function onModelToolCall(toolId: string, toolName: string, args: Record<string, unknown>, signal?: AbortSignal, timeoutMs?: number): Promise<ToolResult> {
  const decision = await host.intercepts.toolCall({ toolId, toolName, args });
  if (decision.block) return toolError(decision.reason);          // the model sees the reason
  const result = await host.callTool(toolName, decision.args, { signal, timeoutMs });
  // result: { content: [{ type: 'text', text } | { type: 'image', mimeType, data }], isError, extension, activatedTools, failure }
  return result;
}

// Section 5: lifecycle events, with the wire's field names.
function emitLifecycle(tool_id: string, tool_name: string, tool_args: Record<string, unknown>, tool_preview: string, text: string): void {
  host.sendEvent({ event: 'session_start' });
  host.sendEvent({ event: 'turn_start', step: 1 });
  host.sendEvent({ event: 'tool_call', tool_id, tool_name, tool_args });
  host.sendEvent({ event: 'tool_confirmation_requested', tool_id, tool_name, tool_preview });
  host.sendEvent({ event: 'turn_end', stop: 'end_turn' });
  host.sendEvent({ event: 'assistant_message', text });
}

// Section 5: before a turn, and before showing an assistant message (the model call is left out).
async function onTurn(step: number, text: string): Promise<void> {
  const turn = await host.intercepts.turnStart({ step });
  if (turn.block) return showStatus(turn.reason);
  const shown = await host.intercepts.assistantMessage({ text });
  if (!shown.block) render(shown.text);             // keep the original text in the transcript
}

// Section 5: the system prompt, before the first model call of a session.
async function systemPromptFor(base: string, sessionId: string, signal?: AbortSignal): Promise<string> {
  const { systemPrompt } = await host.prepareSystemPrompt({ systemPrompt: base, sessionId, signal });
  return systemPrompt;
}

try {
  const report = await host.start();
  assert.deepEqual(report.failed, []);
  assert.deepEqual(
    report.loaded.map((e) => `${e.name} ${e.source}`),
    ['weather explicit', 'guard project', 'kitchen project', 'prompt-append-a project', 'redactor project', 'todo project'],
  );
  assert.ok(report.ms >= 0);
  const ack = await host.runCommand('/ack');
  assert.ok(ack.handled && ack.text !== undefined);
  assert.deepEqual(
    JSON.parse(ack.text),
    { type: 'hello_ack', protocol_version: 1, zot_version: '1.2.3', provider: 'anthropic', model: 'claude-opus-4-7', cwd: projectDir, extension_dir: path.join(root, 'fixtures/extensions/kitchen'), data_dir: path.join(root, 'fixtures/extensions/kitchen') },
  );

  // Section 3. Built-ins win over extensions (kitchen's /clear loses, with a diagnostic).
  await onSlashCommand('/Weather  berlin ');
  assert.ok(saw("prompt [weather] /Weather: Show today's weather for berlin in one line."));
  await onSlashCommand('/help');
  await onSlashCommand('/clear');
  assert.deepEqual(builtIns, ['/help', '/clear']);
  assert.ok(!host.commands().some((c) => c.name === 'clear'));
  assert.ok(host.diagnostics().some((d) => d.extension === 'kitchen' && d.message.includes('clear')));
  await onSlashCommand('/oops');   // an error is reported through notify and the action still runs
  assert.ok(saw('note [kitchen] error: something failed') && saw('display [kitchen] partial'));
  await onSlashCommand('/bg index the repo');
  assert.ok(saw('submit [kitchen] index the repo'));

  // Section 4.
  const weather = await onModelToolCall('t1', 'weather', { city: 'Paris' });
  assert.deepEqual(weather, { content: [{ type: 'text', text: 'Paris: 16°C, fog' }], isError: false, extension: 'weather', activatedTools: [], failure: undefined });
  const refused = await onModelToolCall('t2', 'bash', { command: 'rm -rf /' });
  assert.deepEqual(refused.content, [{ type: 'text', text: 'refused: matches danger pattern "rm -rf"' }]);
  const image = await onModelToolCall('t3', 'image', {});
  assert.deepEqual(image.content, [{ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }]);
  const late = await onModelToolCall('t4', 'slow', { ms: 5_000 }, undefined, 50);
  assert.equal(late.isError, true);
  assert.equal(late.failure?.code, 'TIMEOUT');
  const aborted = await onModelToolCall('t5', 'slow', { ms: 5_000 }, AbortSignal.abort());
  assert.equal(aborted.failure?.code, 'ABORTED');
  const unknown = await onModelToolCall('t6', 'forecast', { city: 'Oslo' });   // deferred, not active yet
  assert.equal(unknown.failure?.code, 'UNKNOWN_TOOL');
  const loader = await onModelToolCall('t7', 'enable_forecast', {});
  assert.deepEqual(loader.activatedTools, ['forecast']);
  await until(() => saw('tools weather, forecast, enable_forecast'));
  assert.equal((await onModelToolCall('t8', 'forecast', { city: 'Oslo' })).content[0]?.type, 'text');

  // Section 5: events reach the subscriber (kitchen answers each with a note).
  emitLifecycle('t9', 'bash', { command: 'ls' }, 'ls', 'done');
  await until(() => seen.filter((line) => line.startsWith('note [kitchen] info: event ')).length === 6);
  assert.ok(saw('note [kitchen] info: event {"type":"event","event":"tool_call","tool_id":"t9","tool_name":"bash","tool_args":{"command":"ls"}}'));
  assert.equal(host.emit({ event: 'custom_thing', detail: 1 }), 1);   // returns the number of subscribers
  assert.equal(host.emit({ event: 'nobody_listens' }), 0);            // other event names pass through
  // @ts-expect-error a known event without its fields does not compile; from JavaScript it throws
  assert.throws(() => host.emit({ event: 'turn_start' }), { code: 'INVALID_ARGUMENT' });

  await onTurn(1, 'the key is sk-abc123');
  assert.ok(saw('assistant the key is [redacted]'));
  await onTurn(1, 'BLOCKME please');
  assert.ok(!saw('assistant BLOCKME'));
  await onTurn(51, 'never asked');
  assert.ok(saw('status turn limit of 50 steps reached'));

  const base = 'You are a coding agent.';
  assert.equal(await systemPromptFor(base, 'session-1'), `${base}\n[prompt-append-a]`);
  assert.equal((await host.prepareSystemPrompt({ systemPrompt: base, sessionId: 'session-1' })).cached, true);
  // later: model change, /clear, session change or rebuild
  host.setModel({ model: 'claude-sonnet-4' });     // also invalidates
  assert.equal((await host.prepareSystemPrompt({ systemPrompt: base, sessionId: 'session-1' })).cached, false);
  host.invalidateSystemPrompt();
  const rerun = await host.prepareSystemPrompt({ systemPrompt: base, sessionId: 'session-1' });
  assert.deepEqual([rerun.cached, rerun.systemPrompt], [false, `${base}\n[prompt-append-a]`]);   // from the base, not the last result

  // Section 6: a panel owned by todo.
  const opened = await host.runCommand('/todo');
  assert.ok(opened.handled && opened.panel !== undefined);
  const panel = opened.panel;
  host.panelKey(panel.panelId, 'down');            // up down left right enter esc tab pageup pagedown home end backspace delete
  await until(() => saw('panel render todos-main:   □ ship panel api | › □ persist state'));
  host.panelKey(panel.panelId, 'rune', 'x');       // a typed character
  await until(() => saw('panel render todos-main:   □ ship panel api | › ✓ persist state'));
  host.closePanel(panel.panelId, { extension: panel.extension });   // Esc / Ctrl+C in your UI: the extension gets panel_close
  await until(() => saw('note [todo] info: todo panel closed'));
  assert.deepEqual(host.openPanels(), []);

  // Section 7.
  const list = host.extensions();   // [{ name, dir, source, state, pid, logPath, version, capabilities, readyVia, readyMs, commands, tools, subscriptions, error, order }]
  assert.deepEqual(list.map((e) => [e.name, e.state, e.order]), [['weather', 'ready', 0], ['guard', 'ready', 1], ['kitchen', 'ready', 2], ['prompt-append-a', 'ready', 3], ['redactor', 'ready', 4], ['todo', 'ready', 5]]);
  await host.reload();   // /reload-ext: stop all, rediscover (explicit paths remembered), respawn, rebuild
  assert.deepEqual(host.tools().map((t) => t.name), ['weather', 'enable_forecast', 'echo', 'slow', 'hang', 'crash', 'image', 'bad_result', 'fail', 'closeout']);   // forecast deferred again
  assert.ok(host.extensions().every((e) => e.state === 'ready' && !list.some((old) => old.pid === e.pid)));
  assert.ok(saw('weather: starting -> ready') && saw('weather: ready -> stopped'));
  const crashed = await host.callTool('crash', {});   // one extension dies; the others carry on
  assert.equal(crashed.failure?.code, 'PROCESS_EXITED');
  await until(() => saw('kitchen exited'));
  assert.equal((await host.callTool('weather', { city: 'Rome' })).isError, false);
} finally {
  await host.stop();     // shutdown in parallel: grace 2 s, SIGTERM, SIGKILL 1 s later, whole process group
  rmSync(scratch, { recursive: true, force: true });
}
assert.deepEqual(host.extensions(), []);
// The notify event saw every note the callback did.
assert.deepEqual(audit, seen.filter((line) => line.startsWith('note ')).map((line) => line.slice('note '.length)));
assert.ok(audit.length > 0);
const warnings = seen.filter((line) => line.startsWith('warning '));   // only the crash, naming its log file
assert.equal(warnings.length, 1);
assert.match(warnings[0] ?? '', /^warning kitchen exited with code 7; .* see .*ext-kitchen\.log$/);
console.log('embed-reference: every documented behaviour checked');
