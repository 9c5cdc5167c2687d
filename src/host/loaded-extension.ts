import { ExtensionHostError } from '../errors.js';
import { headerVariable } from '../manifest/remote.js';
import { DiagnosticLimiter } from '../process/diagnostic-limiter.js';
import type { Interceptor } from '../intercept/types.js';
import type { ExitInfo, ExtensionProcess, ProcessDiagnostic, ProcessWatcher, RequestFrame, RequestType, ResponseMapper } from '../process/extension-process.js';
import type { ExtensionFrame, ProgressFrame, ToolResultFrame } from '../protocol/frames.js';
import { onExtensionExit } from './extension-exit.js';
import { routeFrame } from './frame-router.js';
import { toolProgressEvent } from './progress.js';
import type { Lifecycle } from './lifecycle.js';
import type { Supervisor } from './supervisor.js';
import type { HostContext } from './context.js';
import type { CommandInfo, ExtensionInfo, ExtensionState, HostDiagnostic, InMemoryExtension, ReadyVia, RegisteredCommand, RegisteredTool, ToolInfo, ToolResult } from './types.js';
import { UNRESTRICTED, type ExtensionSecurity } from './extension-security.js';
import type { FrameRates } from './frame-rates.js';
import { scopeNames } from './permissions.js';
import { OneEntryMap } from './one-entry-map.js';
import { monotonicMs } from '../clock.js';

const NO_CAPABILITIES: readonly string[] = Object.freeze([]);

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
  /** The manifest's `env` (variable names it needs). */
  envDeclared?: readonly string[] | undefined;
  /** The manifest's `permissions`. */
  permissionsRequested?: readonly string[] | undefined;
}

/** A host diagnostic about an extension, as its limiter carries it. */
export interface LimitedDiagnostic {
  d: HostDiagnostic;
  log: boolean;
}

/**
 * What a restart attempt takes over from the process before it (reconcile.ts): the registrations the
 * registries still hold for the extension, and what tools() / commands() listed of it before the crash.
 */
export interface Carried {
  commands: Map<string, Omit<RegisteredCommand, 'active'>>;
  tools: Map<string, Omit<RegisteredTool, 'active'> & { schema: Record<string, unknown> }>;
  listed: { tools: ToolInfo[]; commands: CommandInfo[] };
  /** Its interceptor before the crash: a fail-closed one is stood in for while it restarts (pending-guard.ts). */
  interceptor: Interceptor | undefined;
}

/** One extension across its restarts: the state machine and the restart policy outlive each process. */
export interface ExtensionSlot {
  readonly spec: ExtensionSpec;
  readonly lifecycle: Lifecycle;
  readonly supervisor: Supervisor;
  /** While a restart is under way: what the next attempt takes over. */
  carry: Carried | undefined;
}

type CommandEntry = Omit<RegisteredCommand, 'active'>;
type ToolEntry = Omit<RegisteredTool, 'active'> & { schema: Record<string, unknown> };

// What an extension that registered nothing of a kind reads: one shared empty collection, not one each.
const NO_ENTRIES: ReadonlyMap<string, never> = new Map<string, never>();
const NO_NAMES: ReadonlySet<string> = new Set();

/** `map` with `key` set to `value`: one entry needs no Map. */
function withEntry<V>(map: Map<string, V> | OneEntryMap<string, V> | undefined, key: string, value: V): Map<string, V> | OneEntryMap<string, V> {
  if (map === undefined || (map instanceof OneEntryMap && map.key === key)) return new OneEntryMap(key, value);
  if (map instanceof OneEntryMap) return new Map([[map.key, map.value], [key, value]]);
  map.set(key, value);
  return map;
}

/**
 * The host's record of one extension process: its connection, state and what it registered. A
 * restart builds a new record (so every identity guard keeps the old process out) on the same slot.
 * Collections and the limiter are made when first written: an idle extension holds none of them.
 */
export class LoadedExtension implements ProcessWatcher {
  readyVia: ReadyVia | undefined;
  readyMs: number | undefined;
  error: ExtensionHostError | undefined;
  version: string | undefined;
  capabilities: readonly string[] = NO_CAPABILITIES;
  // One entry in two fields, a Map from the second (one-entry-map.ts).
  private commandMap: Map<string, CommandEntry> | OneEntryMap<string, CommandEntry> | undefined;
  private toolMap: Map<string, ToolEntry> | OneEntryMap<string, ToolEntry> | undefined;
  private eventSet: Set<string> | undefined;
  private interceptSet: Set<string> | undefined;
  private refusalMap: Map<string, number> | undefined;
  private limiter: DiagnosticLimiter<LimitedDiagnostic> | undefined;
  /** Its `submit` / `notify` windows (frame-rates.ts), made at the first such frame. */
  rates: FrameRates | undefined;
  /** Resolves when the extension is ready, failed or gone. */
  readonly settled: Promise<void>;
  /** Dropped once called: a settled record keeps no resolver. */
  private resolveSettled: (() => void) | undefined;
  readonly startedAt = monotonicMs();
  lastFrameAt = 0;
  /** Characters its registrations hold (see registration-limits.ts). */
  registrationChars = 0;
  /** panel_render / panel_close frames for its own panels after they closed, dropped. */
  latePanelFrames = 0;
  /** Set on a restart attempt until it is ready: what it takes over (see reconcile.ts). */
  carried: Carried | undefined;
  /** This process was given up by a restart (crash or manual): its events are ignored. */
  retired = false;
  /** Its environment and permission scope (extension-security.ts). */
  security: ExtensionSecurity = UNRESTRICTED;
  /** What its tool results are turned into, made at its first tool call (tools.ts): no lookup per call. */
  toolMapper: ResponseMapper<ToolResultFrame, ToolResult> | undefined;

  constructor(
    readonly order: number,
    readonly process: ExtensionProcess,
    /** The host it belongs to (its process's listeners reach the host through it, not through closures). */
    readonly host: HostContext,
    readonly slot: ExtensionSlot,
  ) {
    this.settled = new Promise((resolve) => {
      this.resolveSettled = resolve;
    });
  }

  // What its process tells it (ProcessWatcher; set in startExtension).
  processFrame(frame: ExtensionFrame): void {
    routeFrame(this.host, this, frame);
  }

  processDiagnostic(d: ProcessDiagnostic): void {
    this.host.diagnostics.fromProcess(this, d);
  }

  processProgress(frame: ProgressFrame, request: RequestFrame<RequestType>): void {
    toolProgressEvent(this.host, this, frame, request);
  }

  processExit(info: ExitInfo): void {
    onExtensionExit(this.host, this, info);
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

  /** Registrations by key (commands: lower case). Whether each is active lives in the host's registries. */
  get commands(): ReadonlyMap<string, CommandEntry> {
    return this.commandMap ?? NO_ENTRIES;
  }

  get tools(): ReadonlyMap<string, ToolEntry> {
    return this.toolMap ?? NO_ENTRIES;
  }

  get events(): ReadonlySet<string> {
    return this.eventSet ?? NO_NAMES;
  }

  get intercept(): ReadonlySet<string> {
    return this.interceptSet ?? NO_NAMES;
  }

  /** Frames refused by its permission scope, per scope (permission-check.ts). */
  get refusals(): ReadonlyMap<string, number> {
    return this.refusalMap ?? NO_ENTRIES;
  }

  setCommand(key: string, entry: CommandEntry): void {
    this.commandMap = withEntry(this.commandMap, key, entry);
  }

  setTool(name: string, entry: ToolEntry): void {
    this.toolMap = withEntry(this.toolMap, name, entry);
  }

  addEvent(event: string): void {
    (this.eventSet ??= new Set()).add(event);
  }

  addIntercept(event: string): void {
    (this.interceptSet ??= new Set()).add(event);
  }

  /** Counts one refused frame of `scope`; returns how many were refused before it. */
  countRefusal(scope: string): number {
    const refusals = (this.refusalMap ??= new Map());
    const seen = refusals.get(scope) ?? 0;
    refusals.set(scope, seen + 1);
    return seen;
  }

  /** The host's own diagnostics about this extension (the process limits its own). */
  get diagnostics(): DiagnosticLimiter<LimitedDiagnostic> {
    return (this.limiter ??= new DiagnosticLimiter<LimitedDiagnostic>({ emit: (_code, message, { d, log }) => this.host.diagnostics.record({ ...d, message }, log) }));
  }

  /** Summarises what the limiter counted (exit, stop, restart); makes no limiter. */
  flushDiagnostics(): void {
    this.rates?.submit?.flush();
    this.rates?.notify?.flush();
    this.limiter?.flush();
  }

  private settle(): void {
    this.resolveSettled?.();
    this.resolveSettled = undefined;
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
    this.settle();
    return true;
  }

  /**
   * Moves to a final state; returns the previous state when it changed. A move the table refuses
   * (an exit after stop(), a failed one stopped) changes nothing: it stays as it is.
   */
  end(state: 'failed' | 'exited' | 'stopped', error?: ExtensionHostError, reason?: string): ExtensionState | undefined {
    const previous = this.state;
    if (!this.slot.lifecycle.can(state)) return undefined;
    if (state === 'stopped') this.slot.supervisor.cancel();
    if (error !== undefined) this.error = error;
    this.slot.lifecycle.moveTo(state, reason);
    this.settle();
    return previous;
  }

  /**
   * Whether tools() / commands() list its registration `key` (commands: lower case) now: when it is
   * ready, and during a restart the ones it had before (see reconcile.ts).
   */
  lists(kind: 'tools' | 'commands', key: string): boolean {
    if (this.state === 'ready') return true;
    if (!this.restarting) return false;
    return this.slot.carry?.[kind].has(key) ?? false;
  }

  /** Given up for a restart: its pending start settles, its process's events are ignored from now on. */
  retire(): void {
    this.retired = true;
    this.settle();
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
    };
  }
}
