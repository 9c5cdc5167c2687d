// The inspector's state between one host and the pages looking at it: bounded histories, batched
// pushes, and the requests a page makes (call a tool, press a key, restart, ask the chain).
import { open } from 'node:fs/promises';
import type { ExtensionHost } from '../../host/host.js';
import type { ExtensionInfo, FrameTapEntry, HostCallbacks, HostDiagnostic, HostWarning, PanelView, ToolInfo, CommandInfo, ToolResult } from '../../host/types.js';
import type { TraceStep } from '../../intercept/types.js';
import { VERSION } from '../../version.js';
import type { ActivityJson, ExtensionJson, ToolJson, FrameRow, InterceptResultJson, PanelJson, ProblemJson, Push, Request, ToolResultJson, WireError } from './messages.js';

/** Frames kept for a page that connects later, and the most a page keeps. */
export const FRAME_HISTORY = 5000;
/** Notes, submits, diagnostics ... kept for a page that connects later. */
const ACTIVITY_HISTORY = 500;
/** A frame's line is cut to this many characters for the page (a 4 MiB image stays in the log); so are activity, problem and panel texts. */
export const MAX_LINE_CHARS = 16 * 1024;
/** Panels kept (open ones); past it the one rendered longest ago is forgotten (and counted). */
export const MAX_PANELS = 64;
/** Characters of one panel's lines kept; the rest is cut (a line says how many lines were left out). */
export const MAX_PANEL_CHARS = 64 * 1024;
/** Short fields (a level, a code, a panel id) are cut to this many characters. */
const MAX_SHORT_CHARS = 256;
/** How often pending pushes go out, in ms. */
const FLUSH_MS = 50;
/** Bytes of an extension's log a page gets. */
const LOG_TAIL_BYTES = 16 * 1024;

/** One connected page. */
export interface Client {
  send(batch: string): void;
  /** Bytes queued in the socket: over a bound, frames wait (and are dropped beyond FRAME_HISTORY). */
  buffered(): number;
  /** Drops the page (it could not keep up); it shows the reason and can be reloaded. */
  drop(reason: string): void;
}

interface ClientState {
  pending: Push[];
  frames: FrameRow[];
  dropped: number;
}

const MAX_BUFFERED = 4 * 1024 * 1024;
/** A page that has this much unsent, or this many pushes waiting, is dropped: memory stays bounded. */
const MAX_UNSENT = 64 * 1024 * 1024;
const MAX_PENDING = 20_000;

export class InspectorSession {
  private host: ExtensionHost | undefined;
  private readonly clients = new Map<Client, ClientState>();
  private readonly frames: FrameRow[] = [];
  private frameSeq = 0;
  private readonly activity: ActivityJson[] = [];
  private readonly problems: ProblemJson[] = [];
  private readonly panels = new Map<string, PanelJson>();
  /** What the bounds dropped, since the start (a page that connects is told). */
  private readonly dropped = { activity: 0, problems: 0, panels: 0 };
  private readonly calls = new Map<string, AbortController>();
  private timer: NodeJS.Timeout | undefined;
  private dirty = { extensions: false, tools: false, commands: false };
  private closed = false;
  /** While a page's intercept request runs: the extensions' answers, to show each step's rewrite. */
  private watch: { asked: Set<string>; answers: Map<string, Record<string, unknown>[]> } | undefined;

  /** The host's callbacks: everything an agent would do, shown on the page. */
  readonly callbacks: HostCallbacks = {
    prompt: (a) => this.act('prompt', a.extension, a.text),
    insert: (a) => this.act('insert', a.extension, a.text),
    display: (a) => this.act('display', a.extension, a.text),
    submit: (a) => this.act('submit', a.extension, a.text),
    submitSlash: (a) => this.act('submit_slash', a.extension, a.text),
    toolPrompt: (a) => this.act('tool_prompt', a.extension, `${a.prompt}\n${a.toolName} ${JSON.stringify(a.toolArgs)}`),
    notify: (n) => this.act('note', n.extension, n.message, n.rawLevel ?? n.level),
    clearNotes: (o) => this.act('notes_cleared', o.extension, ''),
    openPanel: (p) => this.panel('open', p),
    renderPanel: (p) => this.panel('render', p),
    closePanel: (p) => {
      this.panels.delete(panelKey(p));
      this.broadcast({ t: 'panel', event: 'close', panel: { extension: p.extension, panelId: p.panelId, lines: [] }, by: p.by });
    },
    warning: (w) => this.problem(warningJson(w)),
    toolsChanged: () => this.markDirty('tools'),
  };

  /** The host's frameTap: cheap (an array push); lines go out with the next batch. */
  readonly frameTap = (f: FrameTapEntry): void => {
    const bytes = f.line.length;
    const line = cut(f.line);
    const row: FrameRow = [++this.frameSeq, f.at, f.extension, f.direction, line, bytes];
    this.frames.push(row);
    if (this.watch !== undefined) this.watchFrame(f);
    if (this.frames.length > FRAME_HISTORY * 1.2) this.frames.splice(0, this.frames.length - FRAME_HISTORY);
    for (const state of this.clients.values()) {
      state.frames.push(row);
      if (state.frames.length > FRAME_HISTORY) {
        const over = state.frames.length - FRAME_HISTORY;
        state.frames.splice(0, over);
        state.dropped += over;
      }
    }
    this.schedule();
  };

  /** Pairs `event_intercept` frames with their answers while an intercept request runs. */
  private watchFrame(f: FrameTapEntry): void {
    if (!f.line.includes('"event_intercept')) return;
    let frame: Record<string, unknown>;
    try {
      frame = JSON.parse(f.line) as Record<string, unknown>;
    } catch {
      return;
    }
    const key = `${f.extension}\u0000${String(frame.id)}`;
    const watch = this.watch!;
    if (f.direction === 'out' && frame.type === 'event_intercept') watch.asked.add(key);
    else if (f.direction === 'in' && frame.type === 'event_intercept_response' && watch.asked.delete(key)) {
      const { type: _type, id: _id, ...answer } = frame;
      const list = watch.answers.get(f.extension) ?? [];
      list.push(answer);
      watch.answers.set(f.extension, list);
    }
  }

  attach(host: ExtensionHost): void {
    this.host = host;
    host.on('extension:state', () => this.markDirty('extensions'));
    host.on('extension:exit', () => this.markDirty('extensions'));
    host.on('tools:changed', () => this.markDirty('tools'));
    host.on('commands:changed', () => this.markDirty('commands'));
    host.on('diagnostic', (d) => this.problem(diagnosticJson(d)));
  }

  /** A page connected: it gets everything so far, then the live pushes. */
  connect(client: Client): void {
    const frames = this.frames.slice(-FRAME_HISTORY);
    this.clients.set(client, { pending: [], frames, dropped: this.frameSeq - frames.length });
    client.send(JSON.stringify([this.hello()]));
    this.schedule();
  }

  disconnect(client: Client): void {
    this.clients.delete(client);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const controller of this.calls.values()) controller.abort();
    this.clients.clear();
  }

  private hello(): Push {
    const host = this.host!;
    return {
      t: 'hello',
      version: VERSION,
      extensions: host.extensions().map(extensionJson),
      tools: host.tools().map(toolJson),
      commands: host.commands().map(commandJson),
      panels: [...this.panels.values()],
      activity: [...this.activity],
      problems: [...this.problems],
      frameLimit: FRAME_HISTORY,
      dropped: { ...this.dropped },
    };
  }

  private act(kind: ActivityJson['kind'], extension: string, text: string, level?: string): void {
    this.remember(this.activity, { at: Date.now(), kind, extension, text: cut(text), ...(level === undefined ? {} : { level: cut(level, MAX_SHORT_CHARS) }) }, 'activity');
    this.broadcast({ t: 'activity', item: this.activity.at(-1)! });
  }

  private problem(raw: ProblemJson): void {
    const item: ProblemJson = { ...raw, message: cut(raw.message), code: raw.code === undefined ? undefined : cut(raw.code, MAX_SHORT_CHARS) };
    this.remember(this.problems, item, 'problems');
    this.broadcast({ t: 'problem', item });
    // A crash or a restart shows in the extension list too.
    if (item.extension !== undefined) this.markDirty('extensions');
  }

  private remember<T>(list: T[], item: T, what: 'activity' | 'problems'): void {
    list.push(item);
    if (list.length > ACTIVITY_HISTORY) this.dropped[what] += list.splice(0, list.length - ACTIVITY_HISTORY).length;
  }

  private panel(event: 'open' | 'render', p: PanelView): void {
    const panel: PanelJson = { extension: p.extension, panelId: p.panelId, title: p.title === undefined ? undefined : cut(p.title), lines: panelLines(p.lines), footer: p.footer === undefined ? undefined : cut(p.footer) };
    const key = panelKey(p);
    // The one rendered last is the newest: past MAX_PANELS the one rendered longest ago goes.
    this.panels.delete(key);
    this.panels.set(key, panel);
    for (const old of this.panels.keys()) {
      if (this.panels.size <= MAX_PANELS) break;
      this.panels.delete(old);
      this.dropped.panels++;
    }
    this.broadcast({ t: 'panel', event, panel });
  }

  private markDirty(what: keyof InspectorSession['dirty']): void {
    this.dirty[what] = true;
    this.schedule();
  }

  private broadcast(push: Push): void {
    for (const [client, state] of this.clients) {
      state.pending.push(push);
      if (state.pending.length > MAX_PENDING) this.drop(client);
    }
    this.schedule();
  }

  private drop(client: Client): void {
    this.clients.delete(client);
    client.drop('the page could not keep up with the extensions; reload it');
  }

  private schedule(): void {
    if (this.timer !== undefined || this.closed || this.clients.size === 0) return;
    this.timer = setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    this.timer = undefined;
    const host = this.host;
    const shared: Push[] = [];
    if (host !== undefined) {
      if (this.dirty.extensions) shared.push({ t: 'extensions', extensions: host.extensions().map(extensionJson) });
      if (this.dirty.tools) shared.push({ t: 'tools', tools: host.tools().map(toolJson) });
      if (this.dirty.commands) shared.push({ t: 'commands', commands: host.commands().map(commandJson) });
    }
    this.dirty = { extensions: false, tools: false, commands: false };
    let waiting = false;
    for (const [client, state] of this.clients) {
      if (client.buffered() > MAX_UNSENT) {
        this.drop(client);
        continue;
      }
      const batch = [...shared, ...state.pending];
      state.pending = [];
      // A slow page: its frames wait (bounded, counted when dropped) until its socket drains.
      if (client.buffered() < MAX_BUFFERED && (state.frames.length > 0 || state.dropped > 0)) {
        batch.push({ t: 'frames', frames: state.frames, dropped: state.dropped });
        state.frames = [];
        state.dropped = 0;
      } else if (state.frames.length > 0) waiting = true;
      if (batch.length > 0) client.send(JSON.stringify(batch));
    }
    if (waiting) this.schedule();
  }

  // ------------------------------------------------------------------------------------------
  // Requests from a page
  // ------------------------------------------------------------------------------------------

  /** Handles one request; the reply goes to the page that asked (replies to a gone page are dropped). */
  async handle(client: Client, raw: unknown): Promise<void> {
    const request = raw as Request;
    const id = typeof request?.id === 'number' ? request.id : -1;
    let push: Push;
    try {
      push = { t: 'reply', id, ok: true, result: await this.answer(request) };
    } catch (err) {
      push = { t: 'reply', id, ok: false, error: errorJson(err) };
    }
    const state = this.clients.get(client);
    if (state === undefined) return;
    state.pending.push(push);
    this.schedule();
  }

  private async answer(request: Request): Promise<unknown> {
    const host = this.host!;
    switch (request.op) {
      case 'callTool': {
        if (typeof request.name !== 'string' || typeof request.args !== 'object' || request.args === null || Array.isArray(request.args)) throw badRequest('callTool needs a name and an args object');
        const callId = String(request.callId);
        const controller = new AbortController();
        this.calls.set(callId, controller);
        const started = Date.now();
        try {
          const result = await host.callTool(request.name, request.args, {
            signal: controller.signal,
            onProgress: (p) => this.broadcast({ t: 'progress', callId, message: p.message, progress: p.progress, total: p.total }),
          });
          return resultJson(result, Date.now() - started);
        } finally {
          this.calls.delete(callId);
        }
      }
      case 'cancel': {
        const controller = this.calls.get(String(request.callId));
        controller?.abort();
        return { cancelled: controller !== undefined };
      }
      case 'runCommand': {
        if (typeof request.input !== 'string') throw badRequest('runCommand needs an input line');
        const outcome = await host.runCommand(request.input);
        return JSON.parse(JSON.stringify(outcome, errorReplacer)) as unknown;
      }
      case 'panelKey':
        return { sent: host.panelKey(String(request.panelId), String(request.key), request.text === undefined ? undefined : String(request.text), { extension: String(request.extension) }) };
      case 'closePanel': {
        const closed = host.closePanel(String(request.panelId), { extension: String(request.extension) });
        const key = panelKey({ extension: String(request.extension), panelId: String(request.panelId) });
        if (this.panels.delete(key)) this.broadcast({ t: 'panel', event: 'close', panel: { extension: String(request.extension), panelId: String(request.panelId), lines: [] }, by: 'user' });
        return { closed };
      }
      case 'restart':
        return extensionJson(await host.restart(String(request.name)));
      case 'reload': {
        const report = await host.reload();
        this.markDirty('extensions');
        this.markDirty('tools');
        this.markDirty('commands');
        return { loaded: report.loaded.length, failed: report.failed.length, ms: report.ms };
      }
      case 'intercept':
        return await this.intercept(host, request.event, request.input ?? {});
      case 'log': {
        const info = host.extensions().find((e) => e.name === request.name);
        if (info === undefined) throw badRequest(`no extension ${String(request.name)}`);
        return { logPath: info.logPath, text: await tail(info.logPath) };
      }
      default:
        throw badRequest(`unknown request ${JSON.stringify((request as { op?: unknown }).op)}`);
    }
  }

  private async intercept(host: ExtensionHost, event: string, input: Record<string, unknown>): Promise<InterceptResultJson> {
    // One watch at a time: a second request running at once gets no answers in its steps.
    const watch = this.watch === undefined ? { asked: new Set<string>(), answers: new Map<string, Record<string, unknown>[]>() } : undefined;
    if (watch !== undefined) this.watch = watch;
    try {
      return await this.interceptWatched(host, event, input, watch?.answers);
    } finally {
      if (watch !== undefined) this.watch = undefined;
    }
  }

  private async interceptWatched(host: ExtensionHost, event: string, input: Record<string, unknown>, answers: Map<string, Record<string, unknown>[]> | undefined): Promise<InterceptResultJson> {
    const started = Date.now();
    const done = (r: { block: boolean; blockedBy?: string | undefined; reason?: string | undefined; modified?: boolean; args?: Record<string, unknown>; text?: string; trace: TraceStep[] }): InterceptResultJson => ({
      block: r.block,
      blockedBy: r.blockedBy,
      reason: r.reason,
      modified: r.modified === true,
      args: r.args,
      text: r.text,
      trace: r.trace.map((s) => ({ interceptor: s.interceptor, decision: s.decision, ms: s.ms, failure: s.failure, message: s.message, revalidation: s.revalidation, answer: answers?.get(s.interceptor)?.shift() })),
      ms: Date.now() - started,
    });
    switch (event) {
      case 'tool_call': {
        const toolName = input.tool_name;
        const args = input.tool_args ?? {};
        if (typeof toolName !== 'string' || toolName === '') throw badRequest('tool_call needs a tool name');
        if (typeof args !== 'object' || args === null || Array.isArray(args)) throw badRequest('tool_args must be a JSON object');
        return done(await host.intercepts.toolCall({ toolId: `inspect-${Date.now()}`, toolName, args: args as Record<string, unknown> }));
      }
      case 'turn_start': {
        const step = input.step ?? 1;
        if (typeof step !== 'number') throw badRequest('step must be a number');
        return done(await host.intercepts.turnStart({ step }));
      }
      case 'assistant_message': {
        if (typeof input.text !== 'string') throw badRequest('assistant_message needs a text');
        return done(await host.intercepts.assistantMessage({ text: input.text }));
      }
      case 'before_agent_start': {
        if (typeof input.systemPrompt !== 'string') throw badRequest('the system prompt must be a string');
        // A fresh pass each time (the host caches the last one otherwise).
        host.invalidateSystemPrompt();
        const prepared = await host.prepareSystemPrompt({ systemPrompt: input.systemPrompt });
        return done({ block: false, modified: prepared.systemPrompt !== input.systemPrompt, text: prepared.systemPrompt, trace: prepared.trace });
      }
      default:
        throw badRequest(`unknown intercept event ${JSON.stringify(event)}`);
    }
  }
}

/** `text` cut to `max` characters, saying how long it was. */
function cut(text: string, max = MAX_LINE_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters, cut)` : text;
}

/** A panel's lines for the page: each cut, and no more than MAX_PANEL_CHARS in all. */
function panelLines(lines: readonly string[]): string[] {
  const kept: string[] = [];
  let chars = 0;
  for (const line of lines) {
    if (chars >= MAX_PANEL_CHARS) {
      kept.push(`… (${lines.length - kept.length} more lines, cut)`);
      break;
    }
    const short = cut(String(line), Math.min(MAX_LINE_CHARS, MAX_PANEL_CHARS - chars));
    kept.push(short);
    chars += short.length;
  }
  return kept;
}

function panelKey(p: { extension: string; panelId: string }): string {
  return `${p.extension}\u0000${p.panelId}`;
}

function badRequest(message: string): Error & { code: string } {
  return Object.assign(new Error(message), { code: 'BAD_REQUEST' });
}

function errorJson(err: unknown): WireError {
  if (err instanceof Error) {
    const code = (err as Error & { code?: unknown }).code;
    return { code: typeof code === 'string' ? code : 'ERROR', message: err.message };
  }
  return { code: 'ERROR', message: String(err) };
}

function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? errorJson(value) : value;
}

/** ExtensionInfo as JSON; fields other helpers add later pass through as they are. */
function extensionJson(info: ExtensionInfo): ExtensionJson {
  return JSON.parse(JSON.stringify(info, errorReplacer)) as ExtensionJson;
}

function toolJson(tool: ToolInfo): ToolJson {
  return { ...tool };
}

function commandJson(command: CommandInfo): CommandInfo {
  return { name: command.name, description: command.description, extension: command.extension };
}

function resultJson(result: ToolResult, ms: number): ToolResultJson {
  return {
    content: result.content as ToolResultJson['content'],
    isError: result.isError,
    extension: result.extension,
    failure: result.failure === undefined ? undefined : errorJson(result.failure),
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
    ms,
  };
}

function warningJson(w: HostWarning): ProblemJson {
  return { at: Date.now(), kind: 'warning', severity: 'warning', code: w.code ?? w.error?.code, message: w.message, extension: w.extension, logPath: w.logPath };
}

function diagnosticJson(d: HostDiagnostic): ProblemJson {
  return { at: Date.now(), kind: 'diagnostic', severity: d.severity, code: d.code, message: d.message, extension: d.extension, logPath: d.logPath };
}

/** The end of a log file (from a line start), or '' when there is none. */
async function tail(file: string): Promise<string> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (handle === undefined) return '';
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - LOG_TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const text = buffer.toString('utf8');
    return start === 0 ? text : text.slice(text.indexOf('\n') + 1);
  } finally {
    await handle.close();
  }
}
