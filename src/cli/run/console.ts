// The line language of `zot-ext run`: each input line becomes one host call, and everything the
// host asks the agent to do is printed.
import type { ExtensionHost, HostCallOptions } from '../../host/host.js';
import type { CallProgress, HostCallbacks, HostWarning, PanelKey, PanelView, ToolInfo, ToolResult } from '../../host/types.js';
import type { TraceStep } from '../../intercept/types.js';
import { isDiscoveryWarning } from '../start-problems.js';
import { INTERCEPT_NAMES } from '../../protocol/names.js';
import { indentedBlock as block, oneLine, terminalSafe as safe } from '../terminal-safe.js';
import { failureRecord, type RunRecord } from './records.js';
import type { Screen } from './screen.js';

const HELP_ROWS: readonly (readonly [string, string])[] = [
  ['/name args', 'run a command; shows what the agent would do (prompt, insert, display, panel)'],
  ['!tool {json}', 'call a tool with JSON args (default {}) and print the result'],
  [':event name {json}', 'emit a lifecycle event to its subscribers'],
  [':intercept tool_call {json}', 'ask the interceptors; {"tool_name":"bash","tool_args":{...}}'],
  [':intercept turn_start {json}', '{"step":1}; or assistant_message {"text":"..."}'],
  [':prompt text', 'run before_agent_start on a system prompt and print the result'],
  [':key name [text]', 'send a key to the focused panel (up, down, enter, esc, rune x, ...)'],
  [':close', 'close the focused panel (as the user)'],
  [':commands, :tools [-v]', "list what is registered (-v: each tool's JSON schema)"],
  [':help, :quit', 'this help; stop every extension and exit'],
  ['# text', 'a comment (ignored)'],
];

export const RUN_HELP = HELP_ROWS.map(([input, what]) => `${input.padEnd(30)} ${what}`).join('\n');

// before_agent_start has its own directive, :prompt.
const INTERCEPT_EVENTS = INTERCEPT_NAMES.filter((event) => event !== 'before_agent_start');

/** Options of a RunConsole. */
export interface RunConsoleOptions {
  /**
   * How long `:key` waits for the panel to redraw or close before the next line runs (panel keys
   * have no reply; an extension may ignore a key). @default 1000
   */
  keyWaitMs?: number | undefined;
  /** Deadline of each command and tool call. @default the host's */
  callTimeoutMs?: number | undefined;
  /** Print `run --json` records (records.ts) instead of text. @default false */
  json?: boolean | undefined;
}

/** Handles input lines against a host and renders its callbacks on a Screen, as text or JSON records. */
export class RunConsole {
  private host: ExtensionHost | undefined;
  /** Open panels, the focused (most recent) last. */
  private readonly panels: PanelView[] = [];
  private readonly reported = new WeakSet<object>();
  /** Lines that failed (unknown command or tool, bad JSON, ...). */
  failures = 0;
  /** Called when the focused panel changes (TTY: switch between line and panel input). */
  onFocusChange: (() => void) | undefined;
  quit = false;
  /** Resolvers waiting for the next frame of a panel (`:key` in scripts). */
  private readonly panelWaiters = new Map<string, Set<() => void>>();
  /** Aborts the call of the line being handled. */
  private running: AbortController | undefined;
  /** The line being handled (trimmed), for the records that answer it. */
  private input = '';
  private readonly keyWaitMs: number;
  private readonly callTimeoutMs: number | undefined;
  private readonly json: boolean;
  /** Called at each panel an extension opens (an interactive tool's line waits for one). */
  private readonly openWaiters = new Set<(panel: PanelView) => void>();
  /** Interactive tool calls waiting for the user's keys in their panel: their result prints when it comes. */
  private readonly waiting = new Set<Promise<void>>();

  constructor(
    private readonly screen: Screen,
    options: RunConsoleOptions = {},
  ) {
    this.keyWaitMs = options.keyWaitMs ?? 1000;
    this.callTimeoutMs = options.callTimeoutMs;
    this.json = options.json === true;
  }

  /** With --json the record, else the text `print` writes. */
  private show(record: RunRecord, print: () => void): void {
    if (this.json) this.screen.record(record);
    else print();
  }

  /** True while a line's call runs. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Aborts the running call (its line fails with ABORTED); false when no call runs. */
  abortRunning(): boolean {
    if (this.running === undefined || this.running.signal.aborted) return false;
    this.running.abort();
    return true;
  }

  private callOptions(): HostCallOptions {
    return { signal: this.running?.signal, timeoutMs: this.callTimeoutMs };
  }

  attach(host: ExtensionHost): void {
    this.host = host;
  }

  /** The focused panel, if any. */
  get focused(): PanelView | undefined {
    return this.panels.at(-1);
  }

  readonly callbacks: HostCallbacks = {
    // Every string from an extension goes through safe(): no escape sequence reaches the terminal.
    // A note is one line; a text's later lines are indented: nothing an extension sends starts a line.
    prompt: (a) => this.action('prompt', a),
    insert: (a) => this.action('insert', a),
    display: (a) => this.action('display', a),
    submit: (a) => this.show({ type: 'submit', extension: a.extension, text: a.text }, () => this.screen.print(`[${safe(a.extension)}] submit: ${block(a.text)}`)),
    notify: (n) =>
      this.show({ type: 'note', extension: n.extension, level: n.level, message: n.message }, () =>
        this.screen.print(`[${safe(n.extension)}] ${this.level(n.level)}: ${oneLine(n.message)}`),
      ),
    clearNotes: (o) => this.show({ type: 'notes_cleared', extension: o.extension }, () => this.screen.print(`[${safe(o.extension)}] notes cleared`)),
    openPanel: (p) => {
      const i = this.indexOf(p);
      if (i !== -1) this.panels.splice(i, 1);
      this.panels.push(p);
      this.showPanel('open', p);
      for (const waiter of this.openWaiters) waiter(p);
      this.onFocusChange?.();
    },
    renderPanel: (p) => {
      const i = this.indexOf(p);
      if (i !== -1) this.panels[i] = p;
      this.showPanel('render', p);
      this.panelChanged(p);
    },
    closePanel: (p) => this.panelClosed(p, p.by),
    warning: (w) => this.warning(w),
  };

  private action(type: 'prompt' | 'insert' | 'display', a: { extension: string; text: string; command: string }): void {
    this.show({ type, extension: a.extension, text: a.text, command: a.command }, () => this.screen.print(`[${safe(a.extension)}] ${type}: ${block(a.text)}`));
  }

  private showPanel(event: 'open' | 'render', p: PanelView): void {
    this.show({ type: 'panel', event, extension: p.extension, panelId: p.panelId, title: p.title, lines: p.lines, footer: p.footer }, () => this.screen.panel(p));
  }

  private level(level: string): string {
    const style = level === 'error' ? 'red' : level === 'warn' ? 'yellow' : level === 'success' ? 'green' : 'cyan';
    return this.screen.out.style(style, level);
  }

  private warning(w: HostWarning): void {
    // Discovery's problems are in the start report, which run prints.
    if (isDiscoveryWarning(w)) return;
    if (w.error !== undefined) this.reported.add(w.error);
    this.show({ type: 'warning', extension: w.extension, code: w.code, message: w.message }, () =>
      this.screen.error(`${this.screen.err.style('yellow', 'warning')}: ${safe(w.message)}`),
    );
  }

  /** A failed line: its error (as text only when not `shown` already, e.g. by a warning). */
  private fail(message: string, shown = false): void {
    this.failures++;
    this.show({ type: 'error', input: this.input, message }, () => {
      if (!shown) this.screen.error(`${this.screen.err.style('red', 'error')}: ${safe(message)}`);
    });
  }

  /** A panel is the pair (extension, panelId): two extensions may both show `main`. */
  private indexOf(panel: PanelRef): number {
    return this.panels.findIndex((x) => x.panelId === panel.panelId && x.extension === panel.extension);
  }

  private panelClosed(panel: PanelRef, by: 'extension' | 'exit' | 'user'): void {
    const i = this.indexOf(panel);
    if (i !== -1) this.panels.splice(i, 1);
    const how = by === 'exit' ? 'its extension went away' : `by the ${by}`;
    this.show({ type: 'panel', event: 'close', extension: panel.extension, panelId: panel.panelId, by }, () =>
      this.screen.print(`[${safe(panel.extension)}] panel ${safe(panel.panelId)} closed (${how})`),
    );
    this.panelChanged(panel);
    this.onFocusChange?.();
  }

  private panelChanged(panel: PanelRef): void {
    const key = waiterKey(panel);
    const waiters = this.panelWaiters.get(key);
    this.panelWaiters.delete(key);
    for (const resolve of waiters ?? []) resolve();
  }

  /** Resolves at the panel's next render or close, or after keyWaitMs. */
  private nextPanelFrame(panel: PanelRef): Promise<void> {
    return new Promise((resolve) => {
      // Not unref'd: the script awaits it (at most keyWaitMs).
      const timer = setTimeout(done, this.keyWaitMs);
      const key = waiterKey(panel);
      const waiters = this.panelWaiters.get(key) ?? new Set();
      this.panelWaiters.set(key, waiters);
      waiters.add(done);
      function done() {
        clearTimeout(timer);
        waiters.delete(done);
        resolve();
      }
    });
  }

  /** Sends a key to the focused panel; the promise settles at its next frame (or keyWaitMs). */
  key(key: PanelKey, text?: string): Promise<void> {
    const panel = this.focused;
    if (panel === undefined) {
      this.fail('no panel is open');
      return Promise.resolve();
    }
    const next = this.nextPanelFrame(panel);
    try {
      if (this.host!.panelKey(panel.panelId, key, text, { extension: panel.extension })) return next.then(() => this.afterClose(panel));
      this.fail(`panel ${panel.panelId} is not open any more`);
    } catch (err) {
      this.fail((err as Error).message);
    }
    this.panelChanged(panel);
    return next;
  }

  /** A key closed the panel: an interactive call waiting for it answers now (its result printed first). */
  private afterClose(panel: PanelRef): Promise<void> {
    return this.indexOf(panel) === -1 ? this.settleWaiting() : Promise.resolve();
  }

  /** Waits (at most keyWaitMs) for the interactive calls still waiting for the user to print their results. */
  settleWaiting(): Promise<void> {
    if (this.waiting.size === 0) return Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.keyWaitMs);
    });
    return Promise.race([Promise.all(this.waiting).then(() => undefined), deadline]).finally(() => clearTimeout(timer));
  }

  /** Closes the focused panel as the user would (panel_close to its extension). */
  closeFocused(): void {
    const panel = this.focused;
    if (panel === undefined) return this.fail('no panel is open');
    this.host!.closePanel(panel.panelId, { extension: panel.extension });
    this.panelClosed(panel, 'user');
  }

  /** Runs one input line to completion. */
  async handle(raw: string): Promise<void> {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const host = this.host!;
    const running = new AbortController();
    this.running = running;
    this.input = line;
    try {
      if (line.startsWith('/')) return await this.command(host, line);
      if (line.startsWith('!')) return await this.tool(host, line.slice(1));
      if (line.startsWith(':')) return await this.directive(host, line.slice(1));
      this.fail(`${JSON.stringify(line.length > 40 ? `${line.slice(0, 40)}...` : line)} is not an input line: start it with /, !, or : (try :help)`);
    } catch (err) {
      this.fail(err instanceof Error ? err.message : String(err));
    } finally {
      if (this.running === running) this.running = undefined;
    }
  }

  private async command(host: ExtensionHost, line: string): Promise<void> {
    const outcome = await host.runCommand(line, this.callOptions());
    if (this.json) {
      const handled = outcome.handled ? outcome : undefined;
      this.screen.record({
        type: 'command',
        input: line,
        name: outcome.name,
        args: outcome.args,
        handled: outcome.handled,
        extension: handled?.extension,
        action: handled?.action,
        text: handled?.text,
        error: handled?.error,
        failure: failureRecord(handled?.failure),
      });
    }
    if (!outcome.handled) {
      const names = host.commands().map((c) => `/${c.name}`);
      return this.fail(`unknown command /${safe(outcome.name)}; ${names.length > 0 ? `registered: ${names.join(', ')}` : 'no extension registered a command'}`);
    }
    if (outcome.failure !== undefined) return this.fail(`/${outcome.name}: ${outcome.failure.message}`, this.reported.has(outcome.failure));
    if (outcome.action === 'noop' && !this.json) this.screen.print(`[${safe(outcome.extension ?? '')}] noop`);
  }

  private async tool(host: ExtensionHost, rest: string): Promise<void> {
    const { head: name, tail } = splitWord(rest);
    if (name === '') return this.fail('usage: !tool {json}');
    const args = parseObject(tail, `!${name}`);
    const input = this.input;
    const onProgress = (p: CallProgress) =>
      this.show({ type: 'progress', extension: p.extension, tool: name, requestId: p.requestId, message: p.message, progress: p.progress, total: p.total }, () =>
        this.screen.progress(progressLine(p)),
      );
    // An interactive tool waits for the user's keys in a panel it opens: its line ends at that panel
    // (the next lines drive it), and its result prints when it comes.
    let opened: ((panel: PanelView) => void) | undefined;
    const panel = new Promise<PanelView>((resolve) => this.openWaiters.add((opened = resolve)));
    const call = host.callTool(name, args, { ...this.callOptions(), onProgress });
    const interactive = host.tools().some((t) => t.name === name && t.interactive === true);
    const first = await (interactive ? Promise.race([call, panel.then(() => undefined)]) : call);
    this.openWaiters.delete(opened!);
    if (first === undefined) {
      const printed = call.then((result) => this.toolResult(host, name, result, input));
      this.waiting.add(printed);
      void printed.finally(() => this.waiting.delete(printed));
      return;
    }
    this.toolResult(host, name, first, input);
  }

  private toolResult(host: ExtensionHost, name: string, result: ToolResult, input: string): void {
    const record: RunRecord = {
      type: 'tool',
      input,
      name,
      extension: result.extension,
      isError: result.isError,
      content: result.content,
      activatedTools: result.activatedTools,
      failure: failureRecord(result.failure),
    };
    if (result.extension === undefined) {
      if (this.json) this.screen.record(record);
      const names = host.tools().map((t) => t.name);
      return this.fail(`${result.failure?.message ?? `unknown tool ${name}`}; ${names.length > 0 ? `active tools: ${names.join(', ')}` : 'no active tools'}`);
    }
    this.show(record, () => this.printResult(name, result));
    // The host's failures (timeout, abort, crash, bad result) fail the line; an extension's is_error does not.
    if (result.failure !== undefined) this.fail(`!${name}: ${result.failure.message}`, true);
  }

  private printResult(name: string, result: ToolResult): void {
    const label = result.isError ? this.screen.out.style('red', `${safe(name)} error`) : safe(name);
    const blocks = result.content.map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}, ${Buffer.from(b.data, 'base64').length} bytes]`));
    const body = blocks.length === 0 ? '(no content)' : blocks.join('\n');
    this.screen.print(`[${safe(result.extension ?? '')}] ${label}: ${block(body)}`);
    if (result.activatedTools.length > 0) this.screen.print(`[${safe(result.extension ?? '')}] activated tools: ${safe(result.activatedTools.join(', '))}`);
  }

  private async directive(host: ExtensionHost, rest: string): Promise<void> {
    const { head: word, tail } = splitWord(rest);
    switch (word) {
      case 'help':
      case 'h':
      case '?':
        return this.show({ type: 'help', input: this.input, text: RUN_HELP }, () => this.screen.print(RUN_HELP));
      case 'quit':
      case 'exit':
      case 'q':
        this.quit = true;
        return;
      case 'commands': {
        const list = host.commands();
        return this.show({ type: 'commands', input: this.input, commands: list }, () =>
          this.screen.print(list.length === 0 ? '(no commands)' : list.map((c) => safe(`/${c.name}  [${c.extension}] ${c.description}`)).join('\n')),
        );
      }
      case 'tools': {
        if (tail !== '' && tail !== '-v' && tail !== '--verbose') return this.fail('usage: :tools [-v]');
        const list = host.tools();
        const verbose = tail !== '';
        // -v: each tool's JSON schema, exactly as the extension sent it, indented below it.
        const text = (t: ToolInfo) =>
          safe(`${t.name}${t.interactive === true ? ' (interactive)' : ''}  [${t.extension}] ${t.description}${verbose ? `\n${JSON.stringify(t.schema, null, 2).replace(/^/gm, '    ')}` : ''}`);
        return this.show({ type: 'tools', input: this.input, tools: list }, () => this.screen.print(list.length === 0 ? '(no active tools)' : list.map(text).join('\n')));
      }
      case 'event': {
        const { head: name, tail: json } = splitWord(tail);
        if (name === '') return this.fail('usage: :event name {json}');
        const fields = parseObject(json, `:event ${name}`);
        // `event` first, as on the wire; a field named "event" cannot override it.
        const frame: { event: string; [field: string]: unknown } = { event: name, ...fields };
        frame.event = name;
        const sent = host.emit(frame);
        return this.show({ type: 'event', input: this.input, event: name, sentTo: sent }, () => this.screen.print(`event ${name} sent to ${sent} extension${sent === 1 ? '' : 's'}`));
      }
      case 'intercept':
        return this.intercept(host, tail);
      case 'prompt': {
        const before = tail;
        const result = await host.prepareSystemPrompt({ systemPrompt: before, signal: this.running?.signal });
        const changed = result.systemPrompt !== before;
        return this.show({ type: 'system_prompt', input: this.input, systemPrompt: result.systemPrompt, changed }, () =>
          this.screen.print(`system prompt${changed ? '' : ' (unchanged)'}:\n${safe(result.systemPrompt)}`),
        );
      }
      case 'key': {
        const { head: key, tail: text } = splitWord(tail);
        if (key === '') return this.fail('usage: :key name [text]');
        return await this.key(key as PanelKey, key === 'rune' ? text : undefined);
      }
      case 'close':
        this.closeFocused();
        return await this.settleWaiting();
      default:
        return this.fail(`unknown directive :${word}; try :help`);
    }
  }

  private async intercept(host: ExtensionHost, rest: string): Promise<void> {
    const { head: event, tail } = splitWord(rest);
    if (!(INTERCEPT_EVENTS as readonly string[]).includes(event)) {
      return this.fail(`usage: :intercept ${INTERCEPT_EVENTS.join('|')} {json}`);
    }
    const input = parseObject(tail, `:intercept ${event}`);
    const signal = this.running?.signal;
    let d: { block: boolean; blockedBy?: string | undefined; reason?: string | undefined; modified?: boolean; args?: Record<string, unknown>; text?: string; trace: TraceStep[] };
    let rewritten = '';
    if (event === 'tool_call') {
      const toolName = input.tool_name ?? input.toolName;
      if (typeof toolName !== 'string') return this.fail(':intercept tool_call needs "tool_name" (and "tool_args")');
      const args = input.tool_args ?? input.args ?? {};
      if (typeof args !== 'object' || args === null || Array.isArray(args)) return this.fail('"tool_args" must be a JSON object');
      const toolId = typeof (input.tool_id ?? input.toolId) === 'string' ? String(input.tool_id ?? input.toolId) : 'cli-1';
      d = await host.intercepts.toolCall({ toolId, toolName, args: args as Record<string, unknown> }, { signal });
      rewritten = `, args rewritten: ${safe(JSON.stringify(d.args))}`;
    } else if (event === 'turn_start') {
      const step = input.step ?? 1;
      if (typeof step !== 'number') return this.fail('"step" must be a number');
      d = await host.intercepts.turnStart({ step }, { signal });
    } else {
      const text = input.text;
      if (typeof text !== 'string') return this.fail(':intercept assistant_message needs "text"');
      d = await host.intercepts.assistantMessage({ text }, { signal });
      rewritten = `, text replaced: ${safe(d.text ?? '')}`;
    }
    const record: RunRecord = {
      type: 'intercept',
      input: this.input,
      event: event as 'tool_call' | 'turn_start' | 'assistant_message',
      block: d.block,
      blockedBy: d.blockedBy,
      reason: d.reason,
      modified: d.modified === true,
      args: d.args,
      text: d.text,
      trace: d.trace,
    };
    const steps = d.trace.length === 0 ? ' (no interceptors)' : ` (${safe(d.trace.map((s) => `${s.interceptor}: ${s.failure ?? s.decision}`).join(', '))})`;
    this.show(record, () =>
      this.screen.print(
        d.block
          ? `${this.screen.out.style('red', 'blocked')}${d.blockedBy === undefined ? '' : ` by ${safe(d.blockedBy)}`}: ${safe(d.reason ?? '')}`
          : `allowed${d.modified === true ? rewritten : ''}${steps}`,
      ),
    );
  }
}

function splitWord(text: string): { head: string; tail: string } {
  const trimmed = text.trimStart();
  const space = trimmed.search(/\s/);
  return space === -1 ? { head: trimmed, tail: '' } : { head: trimmed.slice(0, space), tail: trimmed.slice(space).trim() };
}

function parseObject(text: string, what: string): Record<string, unknown> {
  if (text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${what}: invalid JSON (${(err as Error).message}); write a JSON object like {"city":"Oslo"}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${what}: the arguments must be a JSON object`);
  return value as Record<string, unknown>;
}

type PanelRef = { extension: string; panelId: string };
const waiterKey = (panel: PanelRef): string => JSON.stringify([panel.extension, panel.panelId]);
/** `[ext] tool progress: message (progress/total)`: one updating line on a terminal (Screen.progress), plain lines otherwise. */
export function progressLine(p: CallProgress): string {
  const count = p.progress === undefined ? '' : p.total === undefined ? ` (${p.progress})` : ` (${p.progress}/${p.total})`;
  return `[${safe(p.extension)}] tool progress: ${oneLine(p.message ?? '')}${count}`.trimEnd();
}
