import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { ExtensionHost, type HostCallOptions } from '../host/host.js';
import type {
  CallProgress,
  CommandOutcome,
  ExtensionHostOptions,
  HostCallbacks,
  HostWarning,
  InMemoryExtension,
  LifecycleEvent,
  NoteView,
  Origin,
  PanelCallOptions,
  PanelKey,
  PanelView,
  StartReport,
  ToolInfo,
  ToolResult,
} from '../host/types.js';
import type { AssistantMessageResult, ToolCallResult, TurnStartResult } from '../intercept/types.js';
import type { PreparedSystemPrompt } from '../intercept/system-prompt.js';
import { offerToInMemory } from '../host/loader.js';
import { CALL_TAG_KEY, ProtocolShim, type ProgressRecord, type ProtocolCapability } from './protocol-shim.js';

/** Progress records kept in `record.progress`; later ones are not recorded (onProgress still runs). */
const PROGRESS_RECORD_MAX = 10_000;

/** `callTool` options: the host's, plus the protocol extensions' (with `capabilities` granted). */
export interface TestCallOptions extends HostCallOptions {
  /** Called with each `progress` frame of this call (capability "progress"). @default undefined */
  onProgress?: ((progress: ProgressRecord) => void) | undefined;
  /** Sent in the call's `_meta` (capability "trace"). @default undefined */
  traceparent?: string | undefined;
  /** Sent in the call's `_meta` with `traceparent`. @default undefined */
  tracestate?: string | undefined;
}

/**
 * Anything that runs an extension over a pair of streams — an SDK `defineExtension(...)` result.
 * It runs inside the test process: no subprocess, no stdio.
 */
export interface RunnableExtension {
  readonly name: string;
  run(options: {
    input: NodeJS.ReadableStream;
    output: NodeJS.WritableStream;
    stderr?: NodeJS.WritableStream | undefined;
    exit?: ((code: number) => void) | undefined;
  }): Promise<void>;
}

export interface TestHostOptions extends Omit<ExtensionHostOptions, 'inMemory' | 'explicit'> {
  /**
   * SDK extensions (run in-process) and extension directories (run as real subprocesses). Load order:
   * the SDK extensions first, then the directories, each in the order given.
   */
  extensions: readonly (RunnableExtension | string)[];
  /** Deadline of every `next*` wait and of start. @default 2000 */
  timeoutMs?: number | undefined;
  /** `discover` defaults to false in tests: only the given extensions load. @default false */
  discover?: boolean | undefined;
  /**
   * Exactly the protocol extensions granted to in-process extensions that declare them (in
   * `hello_ack.capabilities`, by the host's own negotiation): an aborted or timed-out `callTool`
   * then sends `cancel`, progress frames are recorded (`record.progress`) and reach `onProgress`,
   * the `traceparent` given to `callTool` travels in `_meta`. `[]`: a plain zot host. Extensions run
   * from directories are not affected. @default what the host grants by itself (`cancel`,
   * `progress`; `trace` with `tracing` on), without recording progress
   */
  capabilities?: readonly ProtocolCapability[] | undefined;
}

export interface WaitOptions {
  /** @default the test host's `timeoutMs` */
  timeoutMs?: number | undefined;
}

/** The panel a frame is about: its id and extension. */
const panelOf = (f: PanelFrame): { panelId: string; extension: string } => (f.kind === 'render' ? f.panel : f);

/** pressKey's options: a deadline, and which extension's panel when several have one of that id. */
export interface PressKeyOptions extends WaitOptions, PanelCallOptions {}

/** A panel frame: a redraw, or the panel closing. */
export type PanelFrame = { kind: 'render'; panel: PanelView } | { kind: 'close'; panelId: string; by: 'extension' | 'exit'; extension: string };

/** Everything the host asked the agent to do, in arrival order. */
export interface TestRecord {
  prompts: ({ text: string; command: string } & Origin)[];
  submits: ({ text: string } & Origin)[];
  inserts: ({ text: string; command: string } & Origin)[];
  displays: ({ text: string; command: string } & Origin)[];
  notes: NoteView[];
  clearedNotes: string[];
  panels: { opened: PanelView[]; frames: PanelFrame[] };
  toolsChanged: ToolInfo[][];
  warnings: HostWarning[];
  /** stderr lines of in-process extensions (their console output and diagnostics). */
  stderr: string[];
  /** `progress` frames of in-process extensions (with `capabilities` granted), the first 10,000. */
  progress: ProgressRecord[];
}

type Kind = 'prompt' | 'submit' | 'insert' | 'display' | 'note' | 'panel' | 'open' | 'tools' | 'warning';

interface Waiter {
  kind: Kind;
  match: (item: unknown) => boolean;
  resolve: (item: unknown) => void;
}

/**
 * A started ExtensionHost that records every callback, with helpers that read well in a test.
 * Create it with {@link createTestHost}; call `close()` (e.g. in afterEach) to stop it.
 */
export class TestHost {
  readonly host: ExtensionHost;
  readonly record: TestRecord = {
    prompts: [],
    submits: [],
    inserts: [],
    displays: [],
    notes: [],
    clearedNotes: [],
    panels: { opened: [], frames: [] },
    toolsChanged: [],
    warnings: [],
    stderr: [],
    progress: [],
  };
  /** The start report (set by createTestHost). */
  report!: StartReport;
  private readonly waiters = new Set<Waiter>();
  private readonly timeoutMs: number;
  private readonly cleanup: (() => void) | undefined;
  /** Undefined: the host's defaults (no record of progress, no chosen trace context). */
  private readonly granted: readonly ProtocolCapability[] | undefined;
  private readonly shims = new Map<string, ProtocolShim>();

  /** @internal use createTestHost */
  constructor(options: TestHostOptions) {
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.granted = options.capabilities;
    let home = options.home;
    if (home === undefined) {
      home = mkdtempSync(path.join(tmpdir(), 'zot-test-host-'));
      const dir = home;
      this.cleanup = () => rmSync(dir, { recursive: true, force: true });
    }
    const inMemory: InMemoryExtension[] = [];
    const explicit: string[] = [];
    for (const ext of options.extensions) {
      if (typeof ext === 'string') explicit.push(path.resolve(ext));
      else inMemory.push(this.link(ext, options.cwd));
    }
    const user = options.callbacks ?? {};
    const r = this.record;
    const callbacks: HostCallbacks = {
      // Callbacks the kit does not record (toolPrompt) are the user's, when given.
      ...user,
      prompt: (a) => this.push('prompt', r.prompts, a, user.prompt),
      submit: (a) => this.push('submit', r.submits, a, user.submit),
      insert: (a) => this.push('insert', r.inserts, a, user.insert),
      display: (a) => this.push('display', r.displays, a, user.display),
      notify: (n) => this.push('note', r.notes, n, user.notify),
      clearNotes: (o) => {
        r.clearedNotes.push(o.extension);
        user.clearNotes?.(o);
      },
      openPanel: (p) => this.push('open', r.panels.opened, p, user.openPanel),
      renderPanel: (p) => {
        this.push('panel', r.panels.frames, { kind: 'render', panel: p } satisfies PanelFrame);
        user.renderPanel?.(p);
      },
      closePanel: (c) => {
        this.push('panel', r.panels.frames, { kind: 'close', panelId: c.panelId, by: c.by, extension: c.extension } satisfies PanelFrame);
        user.closePanel?.(c);
      },
      toolsChanged: (t) => this.push('tools', r.toolsChanged, t, user.toolsChanged),
      warning: (w) => this.push('warning', r.warnings, w, user.warning),
    };
    this.host = new ExtensionHost({
      ...options,
      home,
      discover: options.discover ?? false,
      explicit,
      inMemory,
      callbacks,
      // A test wants its extensions started or failed when start() returns: no late join.
      timeouts: { hello: this.timeoutMs, helloJoin: this.timeoutMs, ...options.timeouts },
    });
  }

  private link(ext: RunnableExtension, cwd: string | undefined): InMemoryExtension {
    const linked: InMemoryExtension = {
      name: ext.name,
      dir: cwd,
      connect: () => {
        const toExtension = new PassThrough();
        const fromExtension = new PassThrough();
        const stderr = new PassThrough();
        stderr.setEncoding('utf8');
        stderr.on('data', (chunk: string) => {
          for (const line of chunk.split('\n')) if (line.length > 0) this.record.stderr.push(line);
        });
        void ext
          .run({ input: toExtension, output: fromExtension, stderr, exit: () => undefined })
          .catch((err: unknown) => this.record.stderr.push(`run() failed: ${err instanceof Error ? err.message : String(err)}`))
          .finally(() => fromExtension.end());
        const streams = { input: toExtension, output: fromExtension, close: () => toExtension.end() };
        if (this.granted === undefined || !this.granted.includes('trace')) return streams;
        const shim = new ProtocolShim();
        this.shims.set(ext.name, shim);
        return shim.wrap(streams);
      },
    };
    // The host grants exactly these (those the extension declared), through its own negotiation.
    if (this.granted !== undefined) offerToInMemory(linked, this.granted);
    return linked;
  }

  /** onProgress that also fills record.progress (with `capabilities` given). */
  private recording(onProgress: ((progress: ProgressRecord) => void) | undefined): ((progress: CallProgress) => void) | undefined {
    if (this.granted === undefined) return onProgress;
    return (p) => {
      const record: ProgressRecord = { extension: p.extension, requestId: p.requestId };
      if (p.message !== undefined) record.message = p.message;
      if (p.progress !== undefined) record.progress = p.progress;
      if (p.total !== undefined) record.total = p.total;
      if (this.record.progress.length < PROGRESS_RECORD_MAX) this.record.progress.push(record);
      onProgress?.(record);
    };
  }

  private push<T>(kind: Kind, list: T[], item: T, user?: ((item: never) => void) | undefined): void {
    list.push(item);
    for (const waiter of this.waiters) {
      if (waiter.kind === kind && waiter.match(item)) {
        this.waiters.delete(waiter);
        waiter.resolve(item);
      }
    }
    (user as ((item: T) => void) | undefined)?.(item);
  }

  /** Resolves the next item of a kind (arriving after this call) that matches; rejects with TIMEOUT at the deadline. */
  private next<T>(kind: Kind, what: string, match: (item: T) => boolean, options: WaitOptions = {}): Promise<T> {
    const ms = options.timeoutMs ?? this.timeoutMs;
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        kind,
        match: match as (item: unknown) => boolean,
        resolve: (item) => {
          clearTimeout(timer);
          resolve(item as T);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new ExtensionHostError(ErrorCode.TIMEOUT, `waited ${ms} ms for the next ${what}`));
      }, ms);
      this.waiters.add(waiter);
    });
  }

  /** Runs `/name args` and returns the outcome (the callbacks are recorded too). */
  command(line: string, options?: HostCallOptions): Promise<CommandOutcome> {
    const onProgress = this.recording(options?.onProgress);
    return this.host.runCommand(line, onProgress === undefined ? options : { ...options, onProgress });
  }

  /**
   * Calls a tool; never throws (failures are `isError` with a `failure`). With `capabilities`
   * granted, a call to an in-process extension that is aborted or times out sends it `cancel`.
   */
  async callTool(name: string, args: Record<string, unknown> = {}, options?: TestCallOptions): Promise<ToolResult> {
    const { onProgress, traceparent, tracestate, ...rest } = options ?? {};
    const hostOptions: HostCallOptions = rest;
    const recording = this.recording(onProgress);
    if (recording !== undefined) hostOptions.onProgress = recording;
    if (traceparent === undefined) return this.host.callTool(name, args, hostOptions);
    const owner = this.host.tools().find((t) => t.name === name)?.extension;
    const shim = owner === undefined ? undefined : this.shims.get(owner);
    if (shim === undefined) return this.host.callTool(name, args, hostOptions);
    const key = shim.track({ traceparent, tracestate });
    try {
      return await this.host.callTool(name, { ...args, [CALL_TAG_KEY]: key }, hostOptions);
    } finally {
      shim.settle(key);
    }
  }

  /** Sends a lifecycle event to subscribers (typed as `host.sendEvent`); returns how many got it. */
  sendEvent<N extends string>(event: { event: N } & LifecycleEvent<N>): number {
    return this.host.sendEvent(event);
  }

  /** The same as `sendEvent(event)`. */
  emit<N extends string>(event: { event: N } & LifecycleEvent<N>): number {
    return this.host.sendEvent(event);
  }

  /** Asks the intercept chain about a tool call. */
  toolCall(toolName: string, args: Record<string, unknown>, toolId = 'test-tool-call'): Promise<ToolCallResult> {
    return this.host.intercepts.toolCall({ toolId, toolName, args });
  }

  /** Asks the intercept chain about a turn start. */
  turnStart(step = 1): Promise<TurnStartResult> {
    return this.host.intercepts.turnStart({ step });
  }

  /** Asks the intercept chain about an assistant message. */
  assistantMessage(text: string): Promise<AssistantMessageResult> {
    return this.host.intercepts.assistantMessage({ text });
  }

  /** Runs the before_agent_start passes over `systemPrompt`. */
  systemPrompt(systemPrompt: string, options: { sessionId?: string | undefined } = {}): Promise<PreparedSystemPrompt> {
    return this.host.prepareSystemPrompt({ systemPrompt, sessionId: options.sessionId });
  }

  /**
   * Presses a key in a panel and resolves its next frame (a redraw or the close). When several
   * extensions have `panelId` open, pass `{ extension }` (as for `host.panelKey`).
   */
  async pressKey(panelId: string, key: PanelKey, text?: string, options?: PressKeyOptions): Promise<PanelFrame> {
    const extension = options?.extension;
    const ofPanel = (f: PanelFrame) => panelOf(f).panelId === panelId && (extension === undefined || panelOf(f).extension === extension);
    const frame = this.next<PanelFrame>('panel', `panel frame of ${panelId}${extension === undefined ? '' : ` (${extension})`}`, ofPanel, options);
    let sent = false;
    try {
      sent = this.host.panelKey(panelId, key, text, extension === undefined ? undefined : { extension });
    } finally {
      // No frame follows a key that was not sent: its wait must not reject unhandled.
      if (!sent) frame.catch(() => undefined);
    }
    if (!sent) {
      throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `no open panel ${JSON.stringify(panelId)}${extension === undefined ? '' : ` of ${extension}`}`);
    }
    return frame;
  }

  /** The next note (optionally of one extension, or matching a predicate). */
  nextNote(filter?: string | ((note: NoteView) => boolean), options?: WaitOptions): Promise<NoteView> {
    const match = typeof filter === 'string' ? (n: NoteView) => n.extension === filter : (filter ?? (() => true));
    return this.next('note', 'note', match, options);
  }

  /** The next panel frame (render or close), optionally of one panel. */
  nextPanelFrame(panelId?: string, options?: WaitOptions): Promise<PanelFrame> {
    return this.next<PanelFrame>('panel', `panel frame${panelId ? ` of ${panelId}` : ''}`, (f) => panelId === undefined || panelOf(f).panelId === panelId, options);
  }

  /**
   * The next panel an extension opens (a command's `open_panel`, or one it opens by itself, e.g.
   * from an interactive tool call), optionally of one extension or matching a predicate.
   */
  nextOpenPanel(filter?: string | ((panel: PanelView) => boolean), options?: WaitOptions): Promise<PanelView> {
    const match = typeof filter === 'string' ? (p: PanelView) => p.extension === filter : (filter ?? (() => true));
    return this.next('open', 'opened panel', match, options);
  }

  /** The user closes a panel (`host.closePanel`); false when it is not open. */
  closePanel(panelId: string, options?: PanelCallOptions): boolean {
    return this.host.closePanel(panelId, options);
  }

  /** The next redraw, optionally of one panel. */
  async nextRender(panelId?: string, options?: WaitOptions): Promise<PanelView> {
    const frame = await this.next<PanelFrame>('panel', `render${panelId ? ` of ${panelId}` : ''}`, (f) => f.kind === 'render' && (panelId === undefined || f.panel.panelId === panelId), options);
    return (frame as { panel: PanelView }).panel;
  }

  /** The next `submit` from an extension. */
  nextSubmit(options?: WaitOptions): Promise<{ text: string } & Origin> {
    return this.next('submit', 'submit', () => true, options);
  }

  /** The next `toolsChanged` announcement. */
  nextToolsChanged(options?: WaitOptions): Promise<ToolInfo[]> {
    return this.next('tools', 'toolsChanged', () => true, options);
  }

  /** The next warning. */
  nextWarning(options?: WaitOptions): Promise<HostWarning> {
    return this.next('warning', 'warning', () => true, options);
  }

  /** Stops every extension and removes the temporary home. Idempotent. */
  async close(): Promise<void> {
    await this.host.stop();
    this.cleanup?.();
  }
}

/**
 * Starts a host over the given extensions — SDK definitions run in-process (no subprocess), directories
 * run as real subprocesses — with a temporary home, and records every callback. Rejects (after
 * stopping everything) when an extension fails to load, so a broken extension fails the test early.
 */
export async function createTestHost(options: TestHostOptions): Promise<TestHost> {
  const t = new TestHost(options);
  t.report = await t.host.start();
  if (t.report.failed.length > 0) {
    await t.close();
    const first = t.report.failed[0]!;
    throw new ExtensionHostError(first.error.code, `createTestHost: ${first.name} failed to load: ${first.error.message}`, { extension: first.name, logPath: first.logPath, cause: first.error });
  }
  return t;
}
