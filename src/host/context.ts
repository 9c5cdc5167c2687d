// The state of one ExtensionHost (HostContext), the host's record of each extension process
// (LoadedExtension) with the slot it keeps across restarts, and the name registries of its commands
// and tools (Registry): what the other host files act on.
import { isRemote, type McpServerConfig } from '../manifest/mcp.js';
import { monotonicMs } from '../clock.js';
import { ErrorCode, ExtensionHostError } from '../errors.js';
import type { InterceptChain } from '../intercept/chain.js';
import type { SystemPromptPreparer } from '../intercept/system-prompt.js';
import type { ChainStep, Interceptor } from '../intercept/types.js';
import { headerVariable } from '../manifest/remote.js';
import { DiagnosticLimiter } from '../process/diagnostic-limiter.js';
import type { ExitInfo, ExtensionProcess, ProcessDiagnostic, ProcessWatcher, RequestFrame, RequestType } from '../process/extension-process.js';
import type { ExtensionFrame, ProgressFrame, UnregisterToolFrame } from '../protocol/frames.js';
import { type ManifestSandbox, type SandboxLaunch, sandboxInfo } from '../transport/sandbox.js';
import type { FrameRates } from './frames.js';
import type { InterceptWarnings } from './interceptors.js';
import type { Lifecycle, Supervisor } from './lifecycle.js';
import type { TimeoutValues } from './options.js';
import type { Embedder, HostDiagnostics } from './outlet.js';
import type { ClosedPanels, InteractiveCall } from './panels.js';
import { UNRESTRICTED, scopeNames, type ExtensionSecurity } from './security.js';
import type { HostTracer } from './tracing.js';
import type { TrustSession } from './trust.js';
import type { CommandInfo, ExtensionHostOptions, ExtensionInfo, ExtensionState, HostDiagnostic, InMemoryExtension, ReadyVia, RegisteredCommand, RegisteredTool, ToolInfo, TrustState } from './types.js';

export type HostStatus = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped';

export interface CommandValue {
  description: string;
}

export interface ToolValue {
  description: string;
  schema: Record<string, unknown>;
  deferred: boolean;
  /** `register_tool.interactive`: its calls wait for the user (calls.ts, panels.ts). */
  interactive: boolean;
  /** zot's tool metadata, only the fields sent (registrations.ts `toolMeta`). */
  meta?: ToolMeta | undefined;
}

/** zot's tool metadata as tools() lists it. */
export type ToolMeta = Pick<ToolInfo, 'outputSchema' | 'namespace' | 'namespaceDescription' | 'namespaceInstructions' | 'exposure' | 'replay' | 'annotations'>;

/**
 * A host tool call in flight to an extension that declared zot's "call_tool" (calls.ts): the tool
 * names from the outermost call to it, and a signal that aborts when it settles (its children's end).
 */
export interface ToolCallLink {
  readonly chain: readonly string[];
  readonly ended: AbortSignal;
}

/** What each extension's process reports, handed to the host file that owns it (wired by ExtensionHost). */
export interface ExtensionEvents {
  /** Every frame that is not a response or hello (frames.ts `routeFrame`). */
  frame(ext: LoadedExtension, frame: ExtensionFrame | UnregisterToolFrame): void;
  /** A `progress` frame of one of its requests (calls.ts). */
  progress(ext: LoadedExtension, frame: ProgressFrame, request: RequestFrame<RequestType>): void;
  /** Its process ended (lifecycle.ts `onExtensionExit`). */
  exit(ext: LoadedExtension, info: ExitInfo): void;
}

/**
 * The state of one ExtensionHost, shared by the files that act on it (loader, frames, registrations,
 * calls, panels, interceptors, lifecycle): each is a set of functions taking this object, so no part
 * holds a reference to another. Internal; built by ExtensionHost.
 */
export interface HostContext {
  readonly options: ExtensionHostOptions;
  readonly timeouts: TimeoutValues;
  readonly cwd: string;
  readonly appName: string;
  readonly home: string;
  readonly logDir: string;
  provider: string;
  model: string;
  status: HostStatus;
  /** The extensions of the current start, in load order. */
  loaded: LoadedExtension[];
  /** `loaded` by name: the identity check that keeps a stale process (after reload) out. */
  readonly byName: Map<string, LoadedExtension>;
  /** The directories discovery searched in the last start. */
  searched: string[];
  readonly commandRegistry: Registry<CommandValue>;
  readonly toolRegistry: Registry<ToolValue>;
  /** Deferred tools activated since start. */
  readonly activated: Set<string>;
  /** Open panels: each panel id and the extensions that have it open (a panel is the pair), in open order. */
  readonly panels: Map<string, LoadedExtension[]>;
  readonly closedPanels: ClosedPanels<LoadedExtension>;
  /** One chain step per extension that subscribed to an intercept. */
  readonly adapters: Map<LoadedExtension, ChainStep>;
  readonly chain: InterceptChain;
  readonly preparer: SystemPromptPreparer;
  readonly interceptWarnings: InterceptWarnings;
  readonly diagnostics: HostDiagnostics;
  readonly out: Embedder;
  readonly on: ExtensionEvents;
  /** A `tools:changed` / `commands:changed` announcement waits for the end of this burst of frames (registrations.ts). */
  announcing: { tools: boolean; commands: boolean };
  /** Starts a restart attempt of `old` (loader.ts `respawnExtension`); a hook so lifecycle.ts needs no loader import. */
  readonly respawn: (old: LoadedExtension, reason: string) => { ext: LoadedExtension; started: Promise<void> };
  /** With `tracing` on, from the first start(): the host's spans (tracing.ts). */
  tracer: HostTracer | undefined;
  /** zot's event fields (frames.ts `sendEvent`): the last `sequence` numbered, and the session id. */
  /** The event counter, and the session id (the embedder's, else made at the first event that carries it). */
  readonly events: { sequence: number; sessionId: string | undefined };
  /** Workspace trust decisions of this host (trust.ts). */
  readonly trust: TrustSession;
}

/** What one extension is started from: a discovered manifest or an in-memory extension. */
export interface ExtensionSpec {
  name: string;
  dir: string;
  source: ExtensionInfo['source'];
  exec?: string;
  args?: readonly string[];
  /** A remote extension's `url` and `headers` (instead of `exec`). */
  url?: string | undefined;
  headers?: Readonly<Record<string, string>> | undefined;
  memory?: InMemoryExtension;
  /** An MCP server (the manifest's `mcp`, or the host option `mcpServers`), instead of `exec` or `url`. */
  mcp?: McpServerConfig | undefined;
  /** The manifest's `env` (variable names it needs). */
  envDeclared?: readonly string[] | undefined;
  /** The manifest's `permissions`. */
  permissionsRequested?: readonly string[] | undefined;
  /** The manifest's `sandbox`. */
  sandboxRequested?: ManifestSandbox | undefined;
  /** Its sandbox policy and the backend found for it (loader.ts); undefined: none asked for. */
  sandbox?: SandboxLaunch | undefined;
  /** The manifest file (what the trust hash covers, trust.ts). */
  manifestPath?: string | undefined;
}

/** A host diagnostic about an extension, as its limiter carries it. */
export interface LimitedDiagnostic {
  d: HostDiagnostic;
  log: boolean;
}

type CommandEntry = Omit<RegisteredCommand, 'active'>;
type ToolEntry = Omit<RegisteredTool, 'active'> & { schema: Record<string, unknown>; interactive: boolean; meta?: ToolMeta | undefined };

/**
 * What a restart attempt takes over from the process before it (registrations.ts): the registrations
 * the registries still hold for the extension, and what tools() / commands() listed of it before the crash.
 */
export interface Carried {
  commands: Map<string, CommandEntry>;
  tools: Map<string, ToolEntry>;
  listed: { tools: ToolInfo[]; commands: CommandInfo[] };
  /** Its interceptor before the crash: a fail-closed one is stood in for while it restarts (interceptors.ts). */
  interceptor: Interceptor | undefined;
}

/** One extension across its restarts: the state machine and the restart policy outlive each process. */
export interface ExtensionSlot {
  readonly spec: ExtensionSpec;
  readonly lifecycle: Lifecycle;
  readonly supervisor: Supervisor;
  /** While a restart is under way: what the next attempt takes over. */
  carry: Carried | undefined;
  /** Its workspace trust (trust.ts); `exempt` unless it is a project extension. */
  trust: TrustState;
}

/** The failure of a call (`what`) that reached `ext` while it restarts: fast, before any write. */
export function restartingError(ext: LoadedExtension, what: string): ExtensionHostError {
  return new ExtensionHostError(ErrorCode.RESTARTING, `${what}: ${ext.name} is restarting; try again when it is ready`, { extension: ext.name, logPath: ext.logPath });
}

/**
 * The host's record of one extension process: its connection, state and what it registered. A
 * restart builds a new record (so every identity guard keeps the old process out) on the same slot.
 */
export class LoadedExtension implements ProcessWatcher {
  readyVia: ReadyVia | undefined;
  readyMs: number | undefined;
  error: ExtensionHostError | undefined;
  version: string | undefined;
  capabilities: readonly string[] = [];
  /** Registrations by key (commands: lower case). Whether each is active lives in the host's registries. */
  readonly commands = new Map<string, CommandEntry>();
  readonly tools = new Map<string, ToolEntry>();
  readonly events = new Set<string>();
  readonly intercept = new Set<string>();
  /** Frames refused by its permission scope, per scope (security.ts). */
  readonly refusals = new Map<string, number>();
  private limiter: DiagnosticLimiter<LimitedDiagnostic> | undefined;
  /** Its `submit` / `notify` windows (frames.ts), made at the first such frame. */
  rates: FrameRates | undefined;
  /** Resolves when the extension is ready, failed or gone. */
  readonly settled: Promise<void>;
  private resolveSettled!: () => void;
  readonly startedAt = monotonicMs();
  lastFrameAt = 0;
  /** Characters its registrations hold (see registrations.ts). */
  registrationChars = 0;
  /** panel_render / panel_close frames for its own panels after they closed, dropped. */
  latePanelFrames = 0;
  /** Its interactive tool calls in flight, with the panels each opened (panels.ts). */
  readonly interactive = new Set<InteractiveCall>();
  /** Set on a restart attempt until it is ready: what it takes over (see registrations.ts). */
  carried: Carried | undefined;
  /** This process was given up by a restart (crash or manual): its events are ignored. */
  retired = false;
  /** Its environment and permission scope (security.ts). */
  security: ExtensionSecurity = UNRESTRICTED;
  /** zot's call_tool (call-tool.ts): the host's tool calls in flight to it by wire id, when it declared "call_tool". */
  toolLinks: Map<string, ToolCallLink> | undefined;
  /** Its own `call_tool` requests in flight, by its id (call-tool.ts); each aborts when it exits. */
  callTools: Map<string, AbortController> | undefined;

  constructor(
    readonly order: number,
    readonly process: ExtensionProcess,
    /** The host it belongs to: what its process reports goes there. */
    readonly host: HostContext,
    readonly slot: ExtensionSlot,
  ) {
    this.settled = new Promise((resolve) => {
      this.resolveSettled = resolve;
    });
  }

  // What its process tells it (ProcessWatcher; set in loader.ts startExtension).
  processFrame(frame: ExtensionFrame | UnregisterToolFrame): void {
    this.host.on.frame(this, frame);
  }

  processDiagnostic(d: ProcessDiagnostic): void {
    this.host.diagnostics.fromProcess(this, d);
  }

  processProgress(frame: ProgressFrame, request: RequestFrame<RequestType>): void {
    this.host.on.progress(this, frame, request);
  }

  processExit(info: ExitInfo): void {
    // Its call_tool requests end with it: nothing of the calls it asked for runs on for no one.
    const calls = this.callTools;
    if (calls !== undefined && calls.size > 0) {
      const reason = new ExtensionHostError(ErrorCode.PROCESS_EXITED, `${this.name} ended`, { extension: this.name, logPath: this.logPath });
      for (const controller of [...calls.values()]) controller.abort(reason);
    }
    this.host.on.exit(this, info);
  }

  // Its spec's, not copies (a record per process, the spec per slot).
  get name(): string {
    return this.slot.spec.name;
  }

  get dir(): string {
    return this.slot.spec.dir;
  }

  get source(): ExtensionInfo['source'] {
    return this.slot.spec.source;
  }

  /** The host's own diagnostics about this extension (the process limits its own), made at the first. */
  get diagnostics(): DiagnosticLimiter<LimitedDiagnostic> {
    return (this.limiter ??= new DiagnosticLimiter<LimitedDiagnostic>({ emit: (_code, message, { d, log }) => this.host.diagnostics.record({ ...d, message }, log) }));
  }

  /** Summarises what the limiters counted (exit, stop, restart). */
  flushDiagnostics(): void {
    this.rates?.submit?.flush();
    this.rates?.notify?.flush();
    this.rates?.openPanel?.flush();
    this.rates?.clearNotes?.flush();
    this.rates?.panelRender?.end();
    this.limiter?.flush();
  }

  get logPath(): string {
    return this.process.logPath;
  }

  get state(): ExtensionState {
    return this.slot.lifecycle.state;
  }

  /** A restart is under way: waiting out the backoff, or this attempt is spawning / handshaking. */
  get restarting(): boolean {
    const state = this.state;
    return state === 'restarting' || (state === 'starting' && this.carried !== undefined);
  }

  /** Whether `markReady` would move it: starting, said hello, not given up. */
  get canBecomeReady(): boolean {
    return !this.retired && this.state === 'starting' && this.process.saidHello;
  }

  markReady(via: ReadyVia, reason?: string): boolean {
    if (!this.canBecomeReady) return false;
    this.readyVia = via;
    this.readyMs = Math.round(monotonicMs() - this.startedAt);
    this.slot.lifecycle.moveTo('ready', reason);
    this.resolveSettled();
    return true;
  }

  /**
   * Moves to a final state (its counted diagnostics summarised first); returns the previous state
   * when it changed. A move the table refuses (an exit after stop(), a failed one stopped) changes
   * nothing: it stays as it is, and the `extension:state` event fires only for a change.
   */
  end(state: 'failed' | 'exited' | 'stopped', error?: ExtensionHostError, reason?: string): ExtensionState | undefined {
    this.flushDiagnostics();
    const previous = this.state;
    if (!this.slot.lifecycle.can(state)) return undefined;
    if (state === 'stopped') this.slot.supervisor.cancel();
    if (error !== undefined) this.error = error;
    this.slot.lifecycle.moveTo(state, reason);
    this.resolveSettled();
    return previous;
  }

  /**
   * Whether tools() / commands() list its registration `key` (commands: lower case) now: when it is
   * ready, and during a restart the ones it had before (see registrations.ts).
   */
  lists(kind: 'tools' | 'commands', key: string): boolean {
    if (this.state === 'ready') return true;
    if (!this.restarting) return false;
    return this.slot.carry?.[kind].has(key) ?? false;
  }

  /** Given up for a restart: its pending start settles, its process's events are ignored from now on. */
  retire(): void {
    this.retired = true;
    this.resolveSettled();
  }

  /** A snapshot; `isActive` says whether a registration of this extension owns its name. */
  info(isActive: { command(name: string): boolean; tool(name: string): boolean }): ExtensionInfo {
    return {
      name: this.name,
      dir: this.dir,
      source: this.source,
      state: this.state,
      pid: this.process.pid,
      ...(this.process.url !== undefined ? { url: this.process.url } : {}),
      ...(this.slot.spec.headers !== undefined ? { headers: Object.entries(this.slot.spec.headers).map(([name, value]) => ({ name, variable: headerVariable(value) })) } : {}),
      logPath: this.logPath,
      version: this.version,
      capabilities: [...this.capabilities],
      readyVia: this.readyVia,
      readyMs: this.readyMs,
      commands: [...this.commands.values()].map(({ name, description }) => ({ name, description, active: isActive.command(name) })),
      tools: [...this.tools.values()].map(({ name, description, deferred }) => ({ name, description, deferred, active: isActive.tool(name) })),
      subscriptions: { events: [...this.events], intercept: [...this.intercept] },
      error: this.error,
      order: this.order,
      latePanelFrames: this.latePanelFrames,
      restarts: this.slot.supervisor.restarts,
      permissions: { granted: scopeNames(this.security.granted), requested: this.security.requested === undefined ? undefined : [...this.security.requested] },
      sandbox: sandboxInfo(this.slot.spec.sandbox, isRemote(this.slot.spec) ? 'not applicable (remote)' : this.slot.spec.memory !== undefined ? 'not applicable (in-memory)' : undefined),
      trust: this.slot.trust,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Registry: the host's commands and tools by name (registrations.ts fills them)
// ---------------------------------------------------------------------------------------------

/**
 * A name registry where conflicts are settled by LOAD ORDER, never by arrival time: each name is
 * owned by the registration with the lowest order; built-ins always win.
 */
export interface Registration<T> {
  /** Name as registered (canonical spelling). */
  name: string;
  /** Owner extension. */
  extension: string;
  /** Owner's load order. */
  order: number;
  value: T;
}

export interface Conflict {
  name: string;
  /** The registration that lost. */
  loser: string;
  /** Who owns the name: an extension name or `built-in`. */
  winner: string;
}

export class Registry<T> {
  private readonly byKey = new Map<string, Registration<T>[]>();

  constructor(
    private readonly keyOf: (name: string) => string,
    private readonly builtins: ReadonlySet<string>,
  ) {}

  /** Adds a registration; returns the conflict it causes (if any) and whether the active owner changed. */
  add(entry: Registration<T>): { conflict: Conflict | undefined; changed: boolean } {
    const key = this.keyOf(entry.name);
    if (this.builtins.has(key)) {
      return { conflict: { name: entry.name, loser: entry.extension, winner: 'built-in' }, changed: false };
    }
    const list = this.byKey.get(key);
    if (list === undefined) {
      this.byKey.set(key, [entry]);
      return { conflict: undefined, changed: true };
    }
    const same = list.findIndex((r) => r.extension === entry.extension);
    if (same !== -1) {
      // The same extension registering the name again (any case): first registration stays.
      return { conflict: { name: entry.name, loser: entry.extension, winner: entry.extension }, changed: false };
    }
    const before = list[0];
    let index = list.findIndex((r) => r.order > entry.order);
    if (index === -1) index = list.length;
    list.splice(index, 0, entry);
    const winner = list[0]!;
    if (before === undefined) return { conflict: undefined, changed: true };
    const loser = winner === entry ? before : entry;
    return { conflict: { name: entry.name, loser: loser.extension, winner: winner.extension }, changed: winner === entry };
  }

  /** Removes every registration of one extension; returns the keys whose active owner changed. */
  removeExtension(extension: string): string[] {
    const changed: string[] = [];
    for (const [key, list] of this.byKey) {
      const index = list.findIndex((r) => r.extension === extension);
      if (index === -1) continue;
      list.splice(index, 1);
      if (index === 0) changed.push(key);
      if (list.length === 0) this.byKey.delete(key);
    }
    return changed;
  }

  /** Replaces `extension`'s registration of `name` (spelling and value) in place, as a restart registers it again; false when it has none. */
  update(name: string, extension: string, value: T): boolean {
    const entry = this.byKey.get(this.keyOf(name))?.find((r) => r.extension === extension);
    if (entry === undefined) return false;
    entry.name = name;
    entry.value = value;
    return true;
  }

  /** Removes `extension`'s registration of `name`; true when it was the active one. */
  remove(name: string, extension: string): boolean {
    const key = this.keyOf(name);
    const list = this.byKey.get(key);
    const index = list === undefined ? -1 : list.findIndex((r) => r.extension === extension);
    if (list === undefined || index === -1) return false;
    list.splice(index, 1);
    if (list.length === 0) this.byKey.delete(key);
    return index === 0;
  }

  /** True when the agent owns `name` (a built-in). */
  isBuiltin(name: string): boolean {
    return this.builtins.has(this.keyOf(name));
  }

  /** The active registration for a name. */
  get(name: string): Registration<T> | undefined {
    return this.byKey.get(this.keyOf(name))?.[0];
  }

  /** True when this extension's registration of `name` is the active one. */
  isActive(name: string, extension: string): boolean {
    return this.get(name)?.extension === extension;
  }

  /** Active registrations, in load order of their owners, then registration order. */
  active(): Registration<T>[] {
    const result: Registration<T>[] = [];
    for (const list of this.byKey.values()) result.push(list[0]!);
    return result.sort((a, b) => a.order - b.order);
  }

  clear(): void {
    this.byKey.clear();
  }
}
