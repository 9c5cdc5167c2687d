/**
 * The demo agent: a scripted agent session with no model and no network. It embeds ExtensionHost,
 * loads the bundled fixture extensions (python3, plain node and sh) and prints what an agent would
 * see and do. Run it with `npm run demo`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { styleText } from 'node:util';
import { ExtensionHost, type ToolInfo } from '../src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (style: Parameters<typeof styleText>[0], text: string) => (color ? styleText(style, text) : text);
const say = (who: string, text: string) => console.log(`${paint('dim', who.padEnd(10))} ${text}`);
const section = (title: string) => console.log(`\n${paint('bold', `== ${title}`)}`);

// A scratch home so the demo never touches your real ~/.local/state/zot.
const home = mkdtempSync(path.join(tmpdir(), 'zot-demo-'));
const queue: string[] = []; // what the agent would send to its model next

// Panel frames arrive asynchronously: the demo waits for the next one after each key press.
let panelWaiter: (() => void) | undefined;
const nextPanelFrame = () => new Promise<void>((resolve) => (panelWaiter = resolve));
const panelFrameArrived = () => {
  const waiter = panelWaiter;
  panelWaiter = undefined;
  waiter?.();
};

// kitchen's fault-injection tools: the containment section calls them; no model is offered them.
const FAULT_TOOLS = new Set(['slow', 'hang', 'crash', 'bad_result', 'closeout', 'fail']);
const modelTools = (tools: readonly ToolInfo[]) => tools.filter((t) => !FAULT_TOOLS.has(t.name)).map((t) => t.name).join(', ');
// Tool list changes during start() are summed up once, after the `loaded` lines.
let started = false;
const ms = (since: number) => `${Math.round(performance.now() - since)} ms`;

const host = new ExtensionHost({
  cwd: root,
  home,
  discover: false,
  explicit: ['weather', 'todo', 'hello-sh', 'kitchen', 'guard'].map((name) => path.join(root, 'fixtures/extensions', name)),
  hostVersion: 'demo-1.0',
  provider: 'anthropic',
  model: 'claude-opus-4-7',
  builtinCommands: ['help', 'clear'],
  callbacks: {
    prompt: ({ text, extension }) => {
      say('prompt', `[${extension}] user message for the model: ${JSON.stringify(text)}`);
      queue.push(text);
    },
    submit: ({ text, extension }) => {
      say('submit', `[${extension}] queued as a user prompt: ${JSON.stringify(text)}`);
      queue.push(text);
    },
    insert: ({ text, extension }) => say('insert', `[${extension}] into the editor: ${JSON.stringify(text)}`),
    display: ({ text, extension }) => say('display', `[${extension}] ${text}`),
    notify: ({ level, message, extension }) => say('note', `[${extension}] ${level}: ${message.length > 90 ? `${message.slice(0, 90)}…` : message}`),
    clearNotes: ({ extension }) => say('note', `[${extension}] notes cleared`),
    openPanel: (p) => {
      say('panel', `open ${p.panelId} "${p.title ?? ''}" (from ${p.extension})`);
      for (const line of p.lines) say('', `  │ ${line}`);
      if (p.footer) say('', `  └ ${p.footer}`);
    },
    renderPanel: (p) => {
      say('panel', `render ${p.panelId}`);
      for (const line of p.lines) say('', `  │ ${line}`);
      panelFrameArrived();
    },
    closePanel: ({ panelId, by }) => {
      say('panel', `closed ${panelId} (by ${by})`);
      panelFrameArrived();
    },
    toolsChanged: (tools: ToolInfo[]) => {
      if (started) say('tools', `model tool list is now: ${modelTools(tools)}`);
    },
    warning: ({ message }) => say('warning', message),
  },
});

try {
  section('start: spawn every extension in parallel, handshake, wait for ready');
  const report = await host.start();
  for (const ext of host.extensions()) {
    say('loaded', `${ext.name} ${ext.version ?? ''} pid ${ext.pid} ready via ${ext.readyVia} in ${ext.readyMs} ms (${ext.capabilities.join(', ') || 'no capabilities'})`);
  }
  for (const failed of report.failed) say('failed', `${failed.name}: ${failed.error.message}`);
  say('started', `${report.loaded.length} extensions in ${report.ms} ms`);
  started = true;

  section('registrations');
  say('commands', host.commands().map((c) => `/${c.name}`).join(' '));
  say('tools', `model tool list: ${modelTools(host.tools())}`);
  say('', `(kept out of it: kitchen's fault-injection tools ${[...FAULT_TOOLS].join(', ')})`);

  section('commands of every action type');
  for (const line of ['/weather Berlin', '/hello-sh', '/put some text at the cursor', '/ask what is zot?', '/bg index the repo', '/oops', '/help']) {
    say('user', line);
    const outcome = await host.runCommand(line);
    if (!outcome.handled) say('agent', `${line} is not an extension command: the agent handles it itself`);
    else say('outcome', `${outcome.extension} answered ${outcome.action}${outcome.error ? ` with error "${outcome.error}"` : ''}`);
  }

  section('a tool call, then a deferred tool activated by a loader tool');
  const weather = await host.callTool('weather', { city: 'Lisbon' });
  say('tool', `weather -> ${weather.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join(' ')}`);
  say('tools', `forecast visible before activation: ${host.tools().some((t) => t.name === 'forecast')}`);
  const loader = await host.callTool('enable_forecast', {});
  say('tool', `enable_forecast -> activated ${JSON.stringify(loader.activatedTools)}`);
  const forecast = await host.callTool('forecast', { city: 'Lisbon' });
  say('tool', `forecast -> ${forecast.content.map((c) => (c.type === 'text' ? c.text : '')).join(' ')}`);

  section('interception: the guard extension checks every bash call');
  for (const command of ['rm -rf /', 'ls', 'git status']) {
    const decision = await host.intercepts.toolCall({ toolId: `t-${command}`, toolName: 'bash', args: { command } });
    if (decision.block) say('guard', `bash ${JSON.stringify(command)} blocked by ${decision.blockedBy}: ${decision.reason}`);
    else say('guard', `bash ${JSON.stringify(command)} allowed${decision.modified ? `, rewritten to ${JSON.stringify(decision.args)}` : ''}`);
  }

  section('a panel with key presses');
  await host.runCommand('/todo');
  for (const [key, text] of [['down'], ['rune', 'x'], ['up']] as const) {
    say('key', text === undefined ? key : `${key} ${JSON.stringify(text)}`);
    const rendered = nextPanelFrame();
    host.panelKey('todos-main', key, text);
    await rendered;
  }
  say('key', 'esc');
  const closed = nextPanelFrame();
  host.panelKey('todos-main', 'esc');
  await closed;

  section('lifecycle events (fire and forget)');
  const sent = host.emit({ event: 'turn_start', step: 1 });
  say('event', `turn_start sent to ${sent} subscriber(s)`);
  await host.callTool('echo', { flush: true }); // a round trip: the event's note has arrived by now

  section('containment: a hung tool and a crash mid-call answer in milliseconds; the others go on');
  let t0 = performance.now();
  const hung = host.callTool('hang', {}, { timeoutMs: 300 }); // never answers
  const meanwhile = await host.callTool('weather', { city: 'Oslo' });
  say('tool', `weather answered in ${ms(t0)} while hang was pending: ${meanwhile.content.map((c) => (c.type === 'text' ? c.text : '')).join(' ')}`);
  const timedOut = await hung;
  say('tool', `hang -> ${timedOut.failure?.code} after ${ms(t0)} (its deadline): ${timedOut.failure?.message}`);
  t0 = performance.now();
  const crashed = await host.callTool('crash', {}); // the kitchen process exits mid-call
  say('tool', `crash -> ${crashed.failure?.code} in ${ms(t0)}: ${crashed.failure?.message}`);
  t0 = performance.now();
  const after = await host.callTool('weather', { city: 'Rome' });
  say('tool', `weather still answers (${ms(t0)}): ${after.content.map((c) => (c.type === 'text' ? c.text : '')).join(' ')}`);
  say('state', host.extensions().map((e) => `${e.name} ${e.state}`).join(', '));

  section('what the agent would send to its model next');
  for (const text of queue) say('queue', JSON.stringify(text));
} finally {
  section('stop');
  await host.stop();
  say('stopped', host.extensions().length === 0 ? 'every extension process is gone' : 'still running?');
  rmSync(home, { recursive: true, force: true });
}
