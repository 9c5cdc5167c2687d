/**
 * One run of an extension over a pair of streams: the handshake in canonical order, then concurrent
 * request handling until shutdown, end of input, or a broken output stream.
 */
import { LineDecoder } from '../protocol/decoder.js';
import type { EventInterceptFrame, HelloAckFrame, HelloFrame, InterceptName, JsonObject, NotifyLevel } from '../protocol/frames.js';
import { commandFrame, toolFrame, type Definitions, type ToolDef } from './definitions.js';
import { interceptInput, interceptResponseFrame } from '../intercept/wire.js';
import { eventPayload } from './events.js';
import { decodeHostFrame, toHostInfo, type IncomingFrame } from './host-frames.js';
import { ExtensionSdkError, SdkErrorCode } from './errors.js';
import { commandResponseFrame, panelFrame, panelRenderFrame, type PanelView } from './responses.js';
import { toolErrorFrame, toolResultFrame } from './results.js';
import { checkArgs } from './schema.js';
import {
  NO_TRACE,
  NOTHING_NEGOTIATED,
  negotiated,
  PendingRequests,
  PROGRESS_QUEUE_MAX,
  progressFrame,
  traceContext,
  withoutMeta,
  type Negotiated,
  type PendingRequest,
} from './requests.js';
import { KeyedSerialQueue } from './serial-queue.js';
import { ToolCalls, type CallToolOptions } from './call-tool.js';
import type { AskKeyHandler, ExtensionContext, HostInfo, OpenPanelHandlers, OpenPanelSpec, PanelHandle, RequestContext, ToolContext } from './types.js';
import { FrameWriter } from './writer.js';

type WriteFn = (chunk: string, callback: (err?: Error | null) => void) => boolean;

/** How long stopping waits for queued frames to reach the output before giving up. */
const STOP_FLUSH_MS = 2000;

export interface SessionOptions {
  name: string;
  hello: HelloFrame;
  defs: Definitions;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Writes to `output` (the real stdout when process.stdout is guarded). */
  write: WriteFn;
  stderr: NodeJS.WritableStream;
  /** One-way frames issued before the run; sent right after `ready`. */
  pending: object[];
  onHost: (host: HostInfo) => void;
}

type Phase = 'handshake' | 'ready' | 'stopped';
/** Frames handled once the handshake is over. */
type RuntimeFrame = Exclude<IncomingFrame, { type: 'hello_ack' | 'shutdown' }>;

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** For the stderr log: the stack when there is one. */
function errorDetail(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

export class Session {
  private phase: Phase = 'handshake';
  private host: HostInfo | undefined;
  private helloAcked = false;
  private readonly abort = new AbortController();
  /** What the host granted in hello_ack.capabilities (cancel, progress, trace). */
  private negotiated: Negotiated = NOTHING_NEGOTIATED;
  /** Declared "tool_cancel" in hello (zot's cancel, sent without negotiation): requests are tracked. */
  private readonly toolCancel: boolean;
  /** Declared zot's "call_tool" in hello: ctx.callTool may be used once the host offers it. */
  private readonly callToolDeclared: boolean;
  /** ctx.callTool's requests in flight. */
  private readonly toolCalls: ToolCalls;
  private readonly requests = new PendingRequests(this.abort.signal, () => this.negotiated.cancel || this.toolCancel);
  private readonly writer: FrameWriter;
  private readonly decoder: LineDecoder;
  private readonly panelQueue = new KeyedSerialQueue();
  /** Panels opened with ctx.openPanel, by id, until they close: their handlers. */
  private readonly opened = new Map<string, { handle: PanelHandle; handlers: OpenPanelHandlers }>();
  private panelSeq = 0;
  /** Requests and events that arrived before `ready`; handled in order right after it. */
  private readonly backlog: { frame: RuntimeFrame; raw: JsonObject }[] = [];
  private readonly pending: object[];
  private resolveDone!: (code: number) => void;
  private readonly done = new Promise<number>((resolve) => {
    this.resolveDone = resolve;
  });
  private readonly onData = (chunk: Buffer | string) => {
    this.decoder.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };
  private readonly onEnd = () => {
    this.decoder.end();
    this.stop(0);
  };
  private readonly onInputError = (err: Error) => {
    this.log(`input error: ${err.message}`);
    this.stop(0);
  };

  constructor(private readonly options: SessionOptions) {
    this.pending = options.pending;
    this.toolCancel = options.hello.capabilities?.includes('tool_cancel') === true;
    this.callToolDeclared = options.hello.capabilities?.includes('call_tool') === true;
    this.toolCalls = new ToolCalls(
      (frame) => this.sendOneWay(frame),
      (message) => this.log(message),
    );
    this.writer = new FrameWriter(options.output, options.write, (err) => {
      if (this.phase !== 'stopped') this.log(`output closed (${err.message}); stopping`);
      this.stop(0);
    });
    this.decoder = new LineDecoder(
      (line) => this.onLine(line),
      (bytes, limit) => {
        this.log(`input frame of ${bytes} bytes exceeds the ${limit}-byte limit; stopping`);
        this.stop(1);
      },
    );
  }

  /** Sends `hello` and runs until stopped; resolves with the exit code. */
  start(): Promise<number> {
    const { input } = this.options;
    input.on('data', this.onData);
    input.on('end', this.onEnd);
    input.on('close', this.onEnd);
    input.on('error', this.onInputError);
    this.writer.send(this.options.hello);
    return this.done;
  }

  /** Announces a registration made while running; before `ready` the batch will include it. */
  announce(frame: object): void {
    if (this.phase === 'ready') this.writer.send(frame);
  }

  /** Sends a one-way frame (notify, submit, panel...); held back until `ready`, dropped once stopped. */
  sendOneWay(frame: object): void {
    if (this.phase === 'handshake') this.pending.push(frame);
    else if (this.phase === 'ready') this.writer.send(frame);
  }

  panel(id: string): PanelHandle {
    return {
      id,
      render: (view: PanelView) => this.sendOneWay(panelRenderFrame(id, view)),
      close: () => this.sendOneWay({ type: 'panel_close', panel_id: id }),
    };
  }

  /** ctx.openPanel: the handlers first, then the `open_panel` frame. */
  openPanel(spec: OpenPanelSpec, handlers: OpenPanelHandlers = {}): PanelHandle {
    const id = spec?.id ?? `panel-${++this.panelSeq}`;
    if (typeof id !== 'string' || id.length === 0) throw new ExtensionSdkError(SdkErrorCode.INVALID_DEFINITION, 'openPanel: the panel id must be a non-empty string');
    if (this.opened.has(id)) throw new ExtensionSdkError(SdkErrorCode.INVALID_DEFINITION, `openPanel: panel "${id}" is already open`);
    const handle: PanelHandle = {
      id,
      render: (view: PanelView) => this.sendOneWay(panelRenderFrame(id, view)),
      close: () => {
        if (this.opened.get(id)?.handle === handle) this.opened.delete(id);
        this.sendOneWay({ type: 'panel_close', panel_id: id });
      },
    };
    this.opened.set(id, { handle, handlers });
    this.sendOneWay({ type: 'open_panel', panel: panelFrame({ ...spec, id }) });
    return handle;
  }

  /** ctx.ask: a panel whose key handler's first answer resolves it (see ExtensionContext.ask). */
  ask<T>(spec: OpenPanelSpec, onKey: AskKeyHandler<T>, signal: AbortSignal): Promise<T | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      let done = false;
      const finish = (value: T | undefined) => {
        if (done) return;
        done = true;
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onAbort = () => {
        panel.close();
        finish(undefined);
      };
      const opened = this.openPanel(spec, {
        onKey: async (key, text) => {
          if (done) return;
          const answer = await onKey(key, text, panel);
          if (answer === undefined || done) return;
          opened.close();
          finish(answer);
        },
        onClose: () => finish(undefined),
      });
      // What onKey gets: closing it finishes the ask.
      const panel: PanelHandle = {
        id: opened.id,
        render: opened.render,
        close: () => {
          opened.close();
          finish(undefined);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private log(message: string): void {
    this.options.stderr.write(`[${this.options.name}] ${message}\n`);
  }

  private onLine(line: string): void {
    // Lines after a shutdown in the same chunk are not handled.
    if (this.phase === 'stopped') return;
    const decoded = decodeHostFrame(line);
    if (!decoded.ok) {
      this.log(`ignored input line: ${decoded.message}`);
      const request = decoded.request;
      if (request) {
        // Malformed, but it still names a request: answer it so the host is not left waiting.
        const message = decoded.message;
        if (request.type === 'command_invoked') {
          this.reply(commandResponseFrame(request.id, { action: 'noop', error: message }));
        } else if (request.type === 'tool_call') {
          this.reply(toolErrorFrame(request.id, message));
        } else {
          this.reply({ type: 'event_intercept_response', id: request.id });
        }
      }
      return;
    }
    const { frame, raw } = decoded;
    if (frame.type === 'shutdown') {
      this.writer.send({ type: 'shutdown_ack' });
      this.stop(0);
    } else if (frame.type === 'hello_ack') {
      if (this.helloAcked) this.log('ignored a second hello_ack');
      else {
        this.helloAcked = true;
        this.negotiated = negotiated(raw);
        void this.completeHandshake(frame, raw);
      }
    } else if (this.phase === 'handshake') {
      this.backlog.push({ frame, raw });
    } else {
      this.dispatch(frame, raw);
    }
  }

  private async completeHandshake(frame: HelloAckFrame, raw: JsonObject): Promise<void> {
    const host = toHostInfo(frame, raw);
    this.host = host;
    this.options.onHost(host);
    for (const handler of this.options.defs.helloHandlers) {
      try {
        await handler(host);
      } catch (err) {
        this.log(`onHello handler failed: ${errorDetail(err)}`);
      }
      if (this.phase !== 'handshake') return;
    }
    const { defs } = this.options;
    for (const def of defs.commands.values()) this.writer.send(commandFrame(def));
    for (const def of defs.tools.values()) this.writer.send(toolFrame(def));
    const subscribe = defs.subscribeFrame();
    if (subscribe) this.writer.send(subscribe);
    this.writer.send({ type: 'ready' });
    this.phase = 'ready';
    for (const oneWay of this.pending.splice(0)) this.writer.send(oneWay);
    for (const queued of this.backlog.splice(0)) this.dispatch(queued.frame, queued.raw);
  }

  private dispatch(frame: RuntimeFrame, raw: JsonObject): void {
    switch (frame.type) {
      case 'command_invoked':
        void this.runCommand(frame.id, frame.name, frame.args, raw);
        return;
      case 'tool_call':
        void this.runTool(frame, raw);
        return;
      case 'cancel':
        if (this.negotiated.cancel) this.requests.cancel(frame.id, frame.reason ?? 'aborted');
        else this.log('ignored a cancel frame: "cancel" was not negotiated');
        return;
      case 'tool_cancel':
        // zot gives no reason (its context ended or its deadline passed); unknown or finished ids are ignored.
        this.requests.cancel(frame.id, 'aborted');
        return;
      case 'tool_result':
        // zot's answer to one of ctx.callTool's requests.
        this.toolCalls.settle(frame.id, frame.content, frame.is_error, frame.truncated);
        return;
      case 'event_intercept':
        void this.runInterceptor(frame, raw);
        return;
      case 'event':
        this.runEvent(frame, raw);
        return;
      case 'panel_key': {
        const { panel_id: id, key, text } = frame;
        const opened = this.opened.get(id);
        const handler = opened === undefined ? this.options.defs.panelKeys.get(id) : opened.handlers.onKey;
        const panel = opened?.handle ?? this.panel(id);
        void this.panelQueue.run(id, () => this.guard(`panel "${id}" key handler`, handler, (h) => h(key, text, panel, this.context())));
        return;
      }
      case 'panel_close': {
        const id = frame.panel_id;
        const opened = this.opened.get(id);
        // An opened panel's handlers go with it (after its pending keys, which still reach them).
        if (opened !== undefined) this.opened.delete(id);
        const handler = opened === undefined ? this.options.defs.panelCloses.get(id) : opened.handlers.onClose;
        const panel = opened?.handle ?? this.panel(id);
        void this.panelQueue.run(id, () => this.guard(`panel "${id}" close handler`, handler, (h) => h(panel, this.context())));
        return;
      }
    }
  }

  /** Runs a one-way handler; a throw is logged, never propagated. */
  private async guard<H>(what: string, handler: H | undefined, call: (handler: H) => unknown): Promise<void> {
    if (handler === undefined) return;
    try {
      await call(handler);
    } catch (err) {
      this.log(`${what} failed: ${errorDetail(err)}`);
    }
  }

  private runEvent(frame: Extract<IncomingFrame, { type: 'event' }>, raw: JsonObject): void {
    const handlers = this.options.defs.events.get(frame.event);
    if (!handlers) return;
    const payload = eventPayload(frame, raw);
    for (const handler of handlers) {
      void this.guard(`event "${frame.event}" handler`, handler, (h) => h(payload as never, this.context()));
    }
  }

  private async runCommand(id: string, name: string, args: string, raw: JsonObject): Promise<void> {
    const def = this.options.defs.findCommand(name);
    if (!def) {
      this.reply(commandResponseFrame(id, { action: 'noop', error: `unknown command "${name}"` }));
      return;
    }
    const request = this.requests.begin(id);
    try {
      const response = await def.handler(args, this.context(request, raw, true));
      this.answer(request, commandResponseFrame(id, response ?? undefined));
    } catch (err) {
      if (this.failedAfterCancel(request, `command "${def.name}"`)) return;
      this.log(`command "${def.name}" failed: ${errorDetail(err)}`);
      this.answer(request, commandResponseFrame(id, { action: 'noop', error: errorText(err) }));
    }
  }

  private async runTool(frame: Extract<RuntimeFrame, { type: 'tool_call' }>, raw: JsonObject): Promise<void> {
    const { id, name, args: rawArgs } = frame;
    const def: ToolDef | undefined = this.options.defs.tools.get(name);
    if (!def) {
      this.reply(toolErrorFrame(id, `unknown tool "${name}"`));
      return;
    }
    const request = this.requests.begin(id);
    try {
      let args: unknown = rawArgs;
      if (def.validator) {
        const checked = await checkArgs(def.name, def.validator, rawArgs);
        if (!checked.ok) {
          this.answer(request, toolErrorFrame(id, checked.message));
          return;
        }
        args = checked.args;
      }
      const ctx = this.context(request, raw, true, true) as ToolContext;
      // zot's continuous mode (experimental): present only when the host sent them.
      if (frame.operation_key !== undefined) ctx.operationKey = frame.operation_key;
      if (frame.reconcile === true) ctx.reconcile = true;
      const result = await def.handler(args as never, ctx);
      this.answer(request, toolResultFrame(id, result));
    } catch (err) {
      if (this.failedAfterCancel(request, `tool "${def.name}"`)) return;
      this.log(`tool "${def.name}" failed: ${errorDetail(err)}`);
      this.answer(request, toolErrorFrame(id, `tool "${def.name}" failed: ${errorText(err)}`));
    }
  }

  /** After a cancel the host is not waiting: a failure is logged in one line and not answered. */
  private failedAfterCancel(request: PendingRequest, what: string): boolean {
    if (request.cancelled === undefined) return false;
    this.requests.end(request);
    this.log(`${what} stopped after the host cancelled it (${request.cancelled})`);
    return true;
  }

  private async runInterceptor(frame: EventInterceptFrame, raw: JsonObject): Promise<void> {
    const event: InterceptName = frame.event;
    const handler = this.options.defs.interceptors.get(event);
    if (!handler) {
      this.reply({ type: 'event_intercept_response', id: frame.id });
      return;
    }
    const request = this.requests.begin(frame.id);
    try {
      const input = interceptInput(frame, withoutMeta(raw));
      const decision = await handler(input as never, this.context(request, raw, false));
      this.answer(request, interceptResponseFrame(frame.id, event, decision ?? undefined));
    } catch (err) {
      if (this.failedAfterCancel(request, `interceptor "${event}"`)) return;
      // Fail open, as the host does on a missing answer: a broken interceptor must not wedge the agent.
      this.log(`interceptor "${event}" failed (allowing): ${errorDetail(err)}`);
      this.answer(request, { type: 'event_intercept_response', id: frame.id });
    }
  }

  private reply(frame: object): void {
    if (this.phase !== 'stopped') this.writer.send(frame);
  }

  /** The request is no longer pending (progress stops, a cancel no longer reaches it), then its answer. */
  private answer(request: PendingRequest, frame: object): void {
    this.requests.end(request);
    this.reply(frame);
  }

  private sendProgress(request: PendingRequest, frame: object): boolean {
    if (!this.negotiated.progress || request.done || this.phase !== 'ready') return false;
    if (this.writer.queued >= PROGRESS_QUEUE_MAX) return false;
    this.writer.send(frame);
    return true;
  }

  /** ctx.callTool: inside a tool handler, that tool call is the parent (zot's `parent_id`). */
  private callTool(name: string, args: JsonObject, options: CallToolOptions | undefined, parentId: string | undefined, signal: AbortSignal) {
    let unavailable: string | undefined;
    if (!this.callToolDeclared) unavailable = 'the extension did not declare "call_tool" (defineExtension({ callTools: true }))';
    else if (this.phase !== 'ready') unavailable = 'the extension is not running';
    else if (!this.negotiated.callTool) unavailable = 'the host does not offer call_tool (not in hello_ack.capabilities)';
    return this.toolCalls.call(name, args, parentId, options, signal, unavailable);
  }

  private context(request: PendingRequest, raw: JsonObject, progress: boolean, tool?: boolean): RequestContext;
  private context(): ExtensionContext;
  private context(request?: PendingRequest, raw?: JsonObject, progress?: boolean, tool?: boolean): ExtensionContext | RequestContext {
    const notify = (level: NotifyLevel, message: string) => this.sendOneWay({ type: 'notify', level, message });
    const clearNotes = () => this.sendOneWay({ type: 'clear_notes' });
    const submit = (text: string) => this.sendOneWay({ type: 'submit', text });
    const panel = (panelId: string) => this.panel(panelId);
    const openPanel = (spec: OpenPanelSpec, handlers?: OpenPanelHandlers) => this.openPanel(spec, handlers);
    const signal = request?.signal ?? this.abort.signal;
    const ask = <T>(spec: OpenPanelSpec, onKey: AskKeyHandler<T>) => this.ask(spec, onKey, signal);
    const host = this.host as HostInfo;
    const parentId = tool === true ? request?.id : undefined;
    const callTool = (name: string, args: JsonObject, options?: CallToolOptions) => this.callTool(name, args, options, parentId, signal);
    if (request === undefined) return { host, signal, notify, clearNotes, submit, panel, openPanel, ask, callTool };
    const trace = this.negotiated.trace ? traceContext(raw as JsonObject) : NO_TRACE;
    // One literal of a fixed shape (no spread over an overridden key: that is several times slower).
    return {
      host,
      signal,
      notify,
      clearNotes,
      submit,
      panel,
      openPanel,
      ask,
      callTool,
      requestId: request.id,
      progress: (update) => {
        const frame = progressFrame(request.id, update);
        return progress === true && this.sendProgress(request, frame);
      },
      traceparent: trace.traceparent,
      tracestate: trace.tracestate,
    };
  }

  /** Stops once: no more frames are accepted, handlers are aborted, queued frames get flushed. */
  private stop(code: number): void {
    if (this.phase === 'stopped') return;
    this.phase = 'stopped';
    this.writer.close();
    const { input } = this.options;
    input.removeListener('data', this.onData);
    input.removeListener('end', this.onEnd);
    input.removeListener('close', this.onEnd);
    // The 'error' listener stays: a late input error must not become an uncaught exception.
    this.abort.abort();
    this.requests.abortAll(this.abort.signal.reason);
    this.toolCalls.stopAll();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      // Not unref'd: run() resolves after it, and an in-memory output holds no handle meanwhile.
      timer = setTimeout(resolve, STOP_FLUSH_MS);
    });
    void Promise.race([this.writer.flush(), deadline]).then(() => {
      clearTimeout(timer);
      this.writer.detach();
      this.resolveDone(code);
    });
  }
}
