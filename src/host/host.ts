import path from 'node:path';
import { EventEmitter } from 'eventemitter3';
import { ErrorCode, ExtensionHostError, toHostError } from '../errors.js';
import { InterceptChain } from '../intercept/chain.js';
import { SystemPromptPreparer, type PreparedSystemPrompt, type PrepareSystemPromptOptions } from '../intercept/system-prompt.js';
import type { Interceptor } from '../intercept/types.js';
import type { DiscoveryDiagnostic } from '../manifest/diagnostics.js';
import { ManifestDiscovery } from '../manifest/discovery.js';
import { resolveHome } from '../manifest/home.js';
import type { ChildHandle } from '../process/child.js';
import { ExtensionProcess, type ExitInfo, type ProcessDiagnostic, type ResponseMapper } from '../process/extension-process.js';
import { encodeFrame } from '../protocol/encode.js';
import { eventProblem } from '../protocol/event-check.js';
import type { CommandResponseFrame, ExtensionFrame, PanelKeyName, ToolResultFrame } from '../protocol/frames.js';
import { jsonProblem } from '../protocol/json-check.js';
import { loadCodec } from '../protocol/decode-line.js';
import { INTERCEPT_NAMES, NOTIFY_LEVELS, type NotifyLevel } from '../protocol/names.js';
import { VERSION } from '../version.js';
import { toolCallProblem } from './call-args.js';
import { policyFor, validateOptions } from './options.js';
import { interceptAdapter } from './intercept-adapter.js';
import { InterceptWarnings } from './intercept-warnings.js';
import { CALLBACK_EVENTS } from './callback-events.js';
import { ClosedPanels } from './closed-panels.js';
import { processHelloTimeout, startBound } from './late-join.js';
import { noExtensions, searchedDirs } from './searched.js';
import { LoadedExtension } from './loaded-extension.js';
import { oncePerBurst } from './once-per-burst.js';
import { pendingGuard } from './pending-guard.js';
import { Registry } from './registry.js';
import { MAX_EVENT_NAMES, MAX_REGISTRATION_CHARS, MAX_REGISTRATIONS, boundedMessage, registrationChars } from './registration-limits.js';
import { toolContent } from './tool-result.js';
import type {
  CommandInfo,
  CommandOutcome,
  ExtensionHostOptions,
  ExtensionInfo,
  HostCallbacks,
  HostDiagnostic,
  HostEvents,
  HostTimeouts,
  HostWarning,
  InMemoryExtension,
  PanelKey,
  PanelView,
  StartReport,
  ToolInfo,
  ToolResult,
} from './types.js';

const DEFAULT_TIMEOUTS: Required<{ [K in Exclude<keyof HostTimeouts, 'stuck'>]: number }> & { stuck?: number | undefined } = {
  hello: 5000,
  helloJoin: 30_000,
  ready: 3000,
  readyIdle: 250,
  command: 30_000,
  tool: 60_000,
  intercept: 5000,
  shutdown: 2000,
};

// Node 20.3 may lack Symbol.asyncDispose: the fallback is the one TypeScript's downlevel `await using` uses.
const asyncDispose: typeof Symbol.asyncDispose = (Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose')) as typeof Symbol.asyncDispose;
const TYPE_EVENT = { type: 'event' } as const;
const DEFAULT_BUILTIN_TOOLS = ['read', 'write', 'edit', 'bash', 'skill'];
const MAX_DIAGNOSTICS = 1000;
const KNOWN_LEVELS: ReadonlySet<string> = new Set(NOTIFY_LEVELS);
const INTERCEPTABLE: ReadonlySet<string> = new Set(INTERCEPT_NAMES);

type HostStatus = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped';

interface CommandValue {
  description: string;
}
interface ToolValue {
  description: string;
  schema: Record<string, unknown>;
  deferred: boolean;
}

/** Options of `callTool` and `runCommand`. */
export interface HostCallOptions {
  /** Aborts the call; the result reports ABORTED. @default undefined */
  signal?: AbortSignal | undefined;
  /** Deadline in ms; above 2^31-1 ms (Infinity included) there is none. @default the host's `timeouts.tool` / `timeouts.command` */
  timeoutMs?: number | undefined;
}

/**
 * Runs zot-compatible extensions (one subprocess each) and connects them to an agent through
 * provider-agnostic callbacks. See docs/embedding.md.
 */
export class ExtensionHost extends EventEmitter<HostEvents> {
  /** Interception chain: one adapter per subscribed extension in load order; add your own too. */
  readonly intercepts: InterceptChain;
  readonly cwd: string;
  readonly appName: string;
  readonly home: string;
  readonly logDir: string;
  private provider: string;
  private model: string;
  private readonly options: ExtensionHostOptions;
  private readonly timeouts: typeof DEFAULT_TIMEOUTS;
  private readonly callbacks: HostCallbacks;
  private readonly builtinCommands: ReadonlySet<string>;
  private readonly builtinTools: ReadonlySet<string>;
  private status: HostStatus = 'idle';
  private loaded: LoadedExtension[] = [];
  private readonly byName = new Map<string, LoadedExtension>();
  private readonly commandRegistry: Registry<CommandValue>;
  private readonly toolRegistry: Registry<ToolValue>;
  private readonly activated = new Set<string>();
  private readonly panels = new Map<string, LoadedExtension>();
  private readonly closedPanels = new ClosedPanels<LoadedExtension>();
  private readonly adapters = new Map<LoadedExtension, Interceptor>();
  /** interceptAdapters() as last computed; dropped whenever an extension state, an adapter or the load set changes. */
  private adapterList: Interceptor[] | undefined;
  private readonly toolMappers = new WeakMap<LoadedExtension, ResponseMapper<ToolResultFrame, ToolResult>>();
  private readonly preparer: SystemPromptPreparer;
  private readonly diagnosticList: HostDiagnostic[] = [];
  private operation: Promise<unknown> = Promise.resolve();
  private readonly interceptWarnings = new InterceptWarnings();
  private searched: string[] = [];
  /** Callbacks that threw at least once (their warning event was emitted). */
  private readonly callbacksThrown = new Set<string>();
  // One snapshot per burst of registrations, not one per command or tool (that was O(n^2)).
  private readonly commandsChangedSoon = oncePerBurst(() => this.emit('commands:changed', this.commands()));
  private readonly announceToolsSoon = oncePerBurst(() => this.announceTools());

  constructor(options: ExtensionHostOptions = {}) {
    super();
    validateOptions(options, DEFAULT_TIMEOUTS);
    this.options = options;
    this.cwd = path.resolve(options.cwd ?? process.cwd());
    this.appName = options.appName ?? 'zot';
    this.home = options.home !== undefined ? path.resolve(options.home) : resolveHome({ appName: this.appName });
    this.logDir = options.logDir !== undefined ? path.resolve(options.logDir) : path.join(this.home, 'logs');
    this.provider = options.provider ?? '';
    this.model = options.model ?? '';
    this.timeouts = { ...DEFAULT_TIMEOUTS };
    for (const [key, value] of Object.entries(options.timeouts ?? {})) {
      if (typeof value === 'number') this.timeouts[key as keyof HostTimeouts] = value;
    }
    this.callbacks = options.callbacks ?? {};
    this.builtinCommands = new Set((options.builtinCommands ?? []).map((name) => name.toLowerCase()));
    this.builtinTools = new Set(options.builtinTools ?? DEFAULT_BUILTIN_TOOLS);
    this.commandRegistry = new Registry((name) => name.toLowerCase(), this.builtinCommands);
    this.toolRegistry = new Registry((name) => name, this.builtinTools);
    this.intercepts = new InterceptChain({
      timeoutMs: this.timeouts.intercept,
      revalidate: options.revalidateIntercepts ?? false,
      source: () => this.interceptAdapters(),
      onDiagnostic: (d) => {
        const ext = this.byName.get(d.interceptor);
        this.diagnose({ code: `INTERCEPT_${d.kind.toUpperCase()}`, message: `${d.interceptor} (${d.event}): ${d.message}`, extension: ext?.name, severity: 'warning' }, ext !== undefined);
        const warning = this.interceptWarnings.warningFor(d, ext?.logPath);
        if (warning !== undefined) this.warn(warning);
      },
    });
    this.preparer = new SystemPromptPreparer({
      chain: this.intercepts,
      context: () => ({ cwd: this.cwd, provider: this.provider, model: this.model }),
      onWarning: (message, interceptor) => {
        const ext = interceptor === undefined ? undefined : this.byName.get(interceptor);
        this.warn({ message: `system prompt: ${message}`, extension: interceptor, logPath: ext?.logPath, code: 'SYSTEM_PROMPT' });
      },
    });
  }

  // ------------------------------------------------------------------------------------------
  // Lifecycle
  // ------------------------------------------------------------------------------------------

  /**
   * Discovers (unless `discover: false`), spawns every process extension in parallel, handshakes and
   * waits until each is ready or failed. One that has not said hello within `timeouts.hello` is not
   * waited for: it is in `report.starting` and joins later (up to `timeouts.helloJoin`). Never throws
   * because of an extension: failures are in the report (typed error + log path). Calling start() on
   * a running host returns a report of it as is.
   */
  start(): Promise<StartReport> {
    return this.serialize(async () => {
      if (this.status === 'running') return this.reportOf([], [], 0);
      const report = await this.load();
      this.announceTools();
      return report;
    });
  }

  /**
   * Stops everything, rediscovers (explicit paths remembered), respawns and rebuilds the registries;
   * deferred activations and the cached system prompt are reset and `toolsChanged` fires. Calls in
   * flight on old processes settle at once.
   */
  reload(): Promise<StartReport> {
    return this.serialize(async () => {
      await this.unload();
      const report = await this.load();
      this.announceTools();
      return report;
    });
  }

  /** Shuts every extension down in parallel (shutdown, grace, SIGTERM, SIGKILL to the process group). Idempotent. */
  stop(): Promise<void> {
    // A start or reload in progress may wait on slow handshakes: end them now, not after.
    if (this.status === 'starting') {
      for (const ext of this.loaded) {
        this.setState(ext, 'stopped');
        void ext.process.stop();
      }
    }
    return this.serialize(async () => {
      if (this.status === 'stopped' || this.status === 'idle') {
        this.status = 'stopped';
        return;
      }
      await this.unload();
      this.status = 'stopped';
    });
  }

  /** `await using host = new ExtensionHost(...)`: stop() when the scope ends. */
  [asyncDispose](): Promise<void> {
    return this.stop();
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.operation.then(fn, fn);
    this.operation = next.catch(() => undefined);
    return next;
  }

  private async load(): Promise<StartReport> {
    const began = performance.now();
    this.status = 'starting';
    const discovery = new ManifestDiscovery({
      cwd: this.cwd,
      appName: this.appName,
      home: this.home,
      explicit: this.options.explicit ?? [],
      discover: this.options.discover ?? true,
      env: this.options.env,
    });
    // The frame decoder's module (zod) loads while discovery runs: the processes need it next.
    const [found] = await Promise.all([discovery.discover(), loadCodec()]);
    this.searched = searchedDirs(discovery);
    if (found.extensions.length === 0 && (this.options.inMemory ?? []).length === 0) this.diagnose(noExtensions(this.searched));
    const skipped: StartReport['skipped'] = [];
    const toStart: { name: string; dir: string; source: ExtensionInfo['source']; exec?: string; args?: readonly string[]; memory?: InMemoryExtension }[] = [];
    for (const memory of this.options.inMemory ?? []) {
      toStart.push({ name: memory.name, dir: memory.dir ?? this.cwd, source: 'memory', memory });
    }
    for (const ext of found.extensions) {
      if (ext.shadowedBy !== undefined) skipped.push({ name: ext.name, dir: ext.dir, reason: 'shadowed' });
      else if (!ext.enabled) skipped.push({ name: ext.name, dir: ext.dir, reason: 'disabled' });
      else if (ext.kind !== 'process') skipped.push({ name: ext.name, dir: ext.dir, reason: ext.kind });
      else if (toStart.some((s) => s.name === ext.name)) skipped.push({ name: ext.name, dir: ext.dir, reason: 'shadowed' });
      else toStart.push({ name: ext.name, dir: ext.dir, source: ext.source, exec: ext.manifest.exec ?? '', args: ext.manifest.args ?? [] });
    }
    this.adapterList = undefined;
    this.loaded = toStart.map((spec, order) => {
      const proc = new ExtensionProcess({
        name: spec.name,
        dir: spec.dir,
        launch: spec.memory !== undefined ? { kind: 'connect', connect: () => memoryChild(spec.memory!) } : { kind: 'spawn', exec: spec.exec!, args: spec.args, env: this.options.env },
        logDir: this.logDir,
        host: { hostVersion: this.options.hostVersion ?? VERSION, provider: this.provider, model: this.model, cwd: this.cwd },
        timeouts: { hello: processHelloTimeout(this.timeouts.hello, this.timeouts.helloJoin), shutdown: this.timeouts.shutdown, stuck: this.timeouts.stuck ?? this.timeouts.tool },
        maxFrameBytes: this.options.maxFrameBytes,
        maxOutboundBytes: this.options.maxOutboundBytes,
        logMaxBytes: this.options.logMaxBytes,
        idPrefix: `${order}`,
      });
      return new LoadedExtension(spec.name, spec.dir, spec.source, order, proc, (_code, message, { d, log }) => this.record({ ...d, message }, log));
    });
    this.byName.clear();
    for (const ext of this.loaded) this.byName.set(ext.name, ext);
    const { hello, helloJoin } = this.timeouts;
    const late = (ext: LoadedExtension) => () => ext.process.logLine(`no hello after ${hello} ms: start() goes on without it; it joins when it says hello (up to ${helloJoin} ms)`);
    await Promise.all(this.loaded.map((ext) => startBound(this.startOne(ext), () => ext.process.hello !== undefined, hello, helloJoin, late(ext))));
    this.status = 'running';
    const failed = this.loaded.filter((ext) => ext.state === 'failed');
    return this.reportOf(skipped, found.diagnostics, performance.now() - began, failed);
  }

  private reportOf(skipped: StartReport['skipped'], discovery: readonly DiscoveryDiagnostic[], ms: number, failed: LoadedExtension[] = []): StartReport {
    return {
      loaded: this.loaded
        .filter((ext) => ext.state === 'ready')
        .map((ext) => ({ name: ext.name, source: ext.source, pid: ext.process.pid, readyVia: ext.readyVia!, readyMs: ext.readyMs!, logPath: ext.logPath })),
      failed: failed.map((ext) => ({ name: ext.name, source: ext.source, error: ext.error!, logPath: ext.logPath })),
      starting: this.loaded.filter((ext) => ext.state === 'starting').map((ext) => ({ name: ext.name, source: ext.source, logPath: ext.logPath })),
      skipped,
      searched: [...this.searched],
      diagnostics: [...discovery, ...this.diagnosticList],
      ms: Math.round(ms),
    };
  }

  private async startOne(ext: LoadedExtension): Promise<void> {
    const proc = ext.process;
    proc.on('frame', (frame) => this.onFrame(ext, frame));
    proc.on('diagnostic', (d) => this.onProcessDiagnostic(ext, d));
    proc.on('exit', (info) => this.onExit(ext, info));
    this.emit('extension:state', { name: ext.name, state: 'starting', previous: undefined });
    let idle: NodeJS.Timeout | undefined;
    let grace: NodeJS.Timeout | undefined;
    try {
      const hello = await proc.start();
      ext.version = hello.version;
      ext.capabilities = hello.capabilities ?? [];
      if (ext.state === 'starting') {
        // The idle clock runs from the last frame after hello. An extension that has said nothing
        // since hello is still reading hello_ack (slow under load), not a legacy one: only the
        // grace readies it.
        const check = () => {
          const quiet = performance.now() - ext.lastFrameAt;
          if (ext.lastFrameAt > 0 && quiet >= this.timeouts.readyIdle - 1) this.becomeReady(ext, 'idle');
          else idle = setTimeout(check, ext.lastFrameAt > 0 ? this.timeouts.readyIdle - quiet : this.timeouts.readyIdle);
        };
        idle = setTimeout(check, this.timeouts.readyIdle);
        grace = setTimeout(() => this.becomeReady(ext, 'grace'), this.timeouts.ready);
      }
      await ext.settled;
    } catch (err) {
      if (ext.state !== 'starting') return; // stopped (stop() or reload) while it started
      const error = toHostError(err, ErrorCode.SPAWN_FAILED, { extension: ext.name, logPath: ext.logPath });
      this.setState(ext, 'failed', error);
      this.warn({ message: `failed to load ${ext.name}: ${error.message}`, extension: ext.name, logPath: ext.logPath, code: error.code, error });
    } finally {
      clearTimeout(idle);
      clearTimeout(grace);
    }
  }

  private becomeReady(ext: LoadedExtension, via: 'ready' | 'idle' | 'grace'): void {
    if (!ext.markReady(via)) return;
    this.adapterList = undefined;
    ext.process.logLine(`ready (${via}) after ${ext.readyMs} ms`);
    this.emit('extension:state', { name: ext.name, state: 'ready', previous: 'starting' });
    // A late joiner (start() went on without it): its registrations are announced now.
    if (this.status === 'running') {
      if (ext.tools.size > 0) this.toolsChangedSoon();
      if (ext.commands.size > 0) this.commandsChangedSoon();
    }
  }

  private setState(ext: LoadedExtension, state: 'failed' | 'exited' | 'stopped', error?: ExtensionHostError): void {
    ext.diagnostics.flush();
    const previous = ext.end(state, error);
    this.adapterList = undefined;
    if (previous !== undefined) this.emit('extension:state', { name: ext.name, state, previous });
  }

  private async unload(): Promise<void> {
    this.status = 'stopping';
    const old = this.loaded;
    for (const ext of old) this.setState(ext, 'stopped');
    for (const [panelId, owner] of this.panels) this.call('closePanel', { panelId, extension: owner.name, by: 'exit' });
    this.panels.clear();
    this.closedPanels.clear();
    await Promise.all(old.map((ext) => ext.process.stop()));
    this.loaded = [];
    this.byName.clear();
    this.adapters.clear();
    this.adapterList = undefined;
    this.commandRegistry.clear();
    this.toolRegistry.clear();
    this.activated.clear();
    this.preparer.invalidate();
    this.interceptWarnings.reset();
  }

  private onExit(ext: LoadedExtension, info: ExitInfo): void {
    if (this.byName.get(ext.name) !== ext || ext.state === 'stopped') return;
    const exit = { name: ext.name, code: info.code, signal: info.signal, reason: info.reason };
    if (ext.state === 'starting' && ext.process.hello === undefined) {
      this.emit('extension:exit', exit); // startOne reports the failure
      return;
    }
    const status = info.signal !== null ? `signal ${info.signal}` : `code ${info.code}`;
    const why = info.reason === 'exited' ? `exited with ${status}` : info.reason === 'stdout_closed' ? 'closed its stdout' : info.reason === 'frame_too_large' ? 'sent an oversized frame' : info.reason === 'stdin_blocked' ? 'stopped reading its stdin' : 'stopped';
    const error = new ExtensionHostError(ErrorCode.PROCESS_EXITED, `${ext.name} ${why}; its commands and tools were removed; see ${ext.logPath}`, { extension: ext.name, logPath: ext.logPath, exitCode: info.code, signal: info.signal });
    this.setState(ext, ext.state === 'starting' ? 'failed' : 'exited', error);
    this.removeRegistrations(ext);
    for (const [panelId, owner] of this.panels) {
      if (owner !== ext) continue;
      this.panels.delete(panelId);
      this.call('closePanel', { panelId, extension: ext.name, by: 'exit' });
    }
    this.emit('extension:exit', exit);
    this.warn({ message: error.message, extension: ext.name, logPath: ext.logPath, code: error.code, error });
  }

  private removeRegistrations(ext: LoadedExtension): void {
    // Only names this extension owned: a shadowed registration must not deactivate the owner's tool.
    for (const tool of ext.tools.values()) if (this.toolRegistry.isActive(tool.name, ext.name)) this.activated.delete(tool.name);
    this.commandRegistry.removeExtension(ext.name);
    const changed = this.toolRegistry.removeExtension(ext.name);
    this.adapters.delete(ext);
    this.adapterList = undefined;
    if (changed.length > 0) this.toolsChangedSoon();
    this.emit('commands:changed', this.commands());
  }

  // ------------------------------------------------------------------------------------------
  // Frames from extensions
  // ------------------------------------------------------------------------------------------

  private onFrame(ext: LoadedExtension, frame: ExtensionFrame): void {
    // Guard by identity: a stale process (after reload) can never touch the new state.
    if (this.byName.get(ext.name) !== ext || ext.state === 'stopped') return;
    if (ext.state === 'starting') ext.lastFrameAt = performance.now();
    switch (frame.type) {
      case 'register_command':
        return this.registerCommand(ext, frame.name, frame.description ?? '');
      case 'register_tool':
        return this.registerTool(ext, frame.name, frame.description ?? '', frame.schema ?? { type: 'object' }, frame.deferred ?? false);
      case 'subscribe':
        return this.subscribe(ext, frame.events ?? [], frame.intercept ?? []);
      case 'ready':
        return this.becomeReady(ext, 'ready');
      case 'notify': {
        let level = frame.level ?? 'info';
        if (!KNOWN_LEVELS.has(level)) {
          this.diagnose({ code: 'UNKNOWN_LEVEL', message: `${ext.name}: notify level ${JSON.stringify(level)} is not one of ${NOTIFY_LEVELS.join(', ')}; shown as info`, extension: ext.name, severity: 'warning' });
          level = 'info';
        }
        this.call('notify', { extension: ext.name, level: level as NotifyLevel, message: frame.message });
        return;
      }
      case 'clear_notes':
        this.call('clearNotes', { extension: ext.name });
        return;
      case 'submit':
        if (frame.text.trim().length === 0) return;
        this.call('submit', { extension: ext.name, text: frame.text });
        return;
      case 'panel_render': {
        const owner = this.panels.get(frame.panel_id);
        if (owner !== ext) {
          if (owner === undefined && this.latePanelFrame(ext, frame.panel_id, 'panel_render')) return;
          this.refusePanel(ext, frame.panel_id, owner, 'panel_render');
          return;
        }
        this.call('renderPanel', { extension: ext.name, panelId: frame.panel_id, title: frame.title, lines: frame.lines ?? [], footer: frame.footer });
        return;
      }
      case 'panel_close': {
        const owner = this.panels.get(frame.panel_id);
        if (owner !== ext) {
          if (owner === undefined && this.latePanelFrame(ext, frame.panel_id, 'panel_close')) return;
          this.refusePanel(ext, frame.panel_id, owner, 'panel_close');
          return;
        }
        this.panels.delete(frame.panel_id);
        this.closedPanels.closed(frame.panel_id, ext);
        this.call('closePanel', { extension: ext.name, panelId: frame.panel_id, by: 'extension' });
        return;
      }
      case 'shutdown_ack':
        return;
      default:
        // hello and responses never get here (the process layer handles them).
        return;
    }
  }

  /** A frame for `ext`'s own panel after it closed: counted and dropped, logged once per close. */
  private latePanelFrame(ext: LoadedExtension, panelId: string, what: string): boolean {
    const late = this.closedPanels.late(panelId, ext);
    if (late === undefined) return false;
    ext.latePanelFrames++;
    if (late === 1) ext.process.logLine(`${what} for its panel ${JSON.stringify(panelId)} after it closed: dropped (later ones are only counted)`);
    return true;
  }

  private refusePanel(ext: LoadedExtension, panelId: string, owner: LoadedExtension | undefined, what: string): void {
    const message = owner === undefined ? `${ext.name}: ${what} for panel ${JSON.stringify(panelId)}, which is not open; refused` : `${ext.name}: ${what} for panel ${JSON.stringify(panelId)}, which belongs to ${owner.name}; refused`;
    this.diagnose({ code: 'PANEL_REFUSED', message, extension: ext.name, severity: 'warning' });
  }

  /**
   * Whether `ext` may register one more item of `chars` characters, having `count` of at most `limit`
   * (`what` it limits); a refusal is a (limited) diagnostic.
   */
  private withinLimits(ext: LoadedExtension, item: string, chars: number, count: number, limit: number, what: string): boolean {
    if (count < limit && ext.registrationChars + chars <= MAX_REGISTRATION_CHARS) {
      ext.registrationChars += chars;
      return true;
    }
    this.diagnose({ code: 'REGISTRATION_LIMIT', message: `${ext.name}: ${item} refused: an extension may register at most ${limit} ${what}, of ${MAX_REGISTRATION_CHARS} characters in all`, extension: ext.name, severity: 'warning' });
    return false;
  }

  private registrationAllowed(ext: LoadedExtension, item: string, chars: number): boolean {
    return this.withinLimits(ext, item, chars, ext.commands.size + ext.tools.size, MAX_REGISTRATIONS, 'commands and tools');
  }

  private registerCommand(ext: LoadedExtension, name: string, description: string): void {
    const key = name.toLowerCase();
    if (ext.commands.has(key)) {
      this.diagnose({ code: 'DUPLICATE_REGISTRATION', message: `${ext.name} registered command /${name} twice; the first registration stays`, extension: ext.name, severity: 'warning' });
      return;
    }
    if (!this.registrationAllowed(ext, `command /${name.slice(0, 120)}`, registrationChars(name, description))) return;
    const { conflict } = this.commandRegistry.add({ name, extension: ext.name, order: ext.order, value: { description } });
    ext.commands.set(key, { name, description });
    if (conflict !== undefined) this.recordConflict('command', `/${conflict.name}`, conflict.loser, conflict.winner);
    if (ext.state === 'ready') this.commandsChangedSoon();
  }

  private registerTool(ext: LoadedExtension, name: string, description: string, schema: Record<string, unknown>, deferred: boolean): void {
    if (ext.tools.has(name)) {
      this.diagnose({ code: 'DUPLICATE_REGISTRATION', message: `${ext.name} registered tool ${name} twice; the first registration stays`, extension: ext.name, severity: 'warning' });
      return;
    }
    if (!this.registrationAllowed(ext, `tool ${name.slice(0, 120)}`, registrationChars(name, description, schema))) return;
    const { conflict, changed } = this.toolRegistry.add({ name, extension: ext.name, order: ext.order, value: { description, schema, deferred } });
    ext.tools.set(name, { name, description, schema, deferred });
    if (conflict !== undefined) this.recordConflict('tool', name, conflict.loser, conflict.winner);
    if (changed && !deferred && ext.state === 'ready') this.toolsChangedSoon();
  }

  private recordConflict(kind: 'command' | 'tool', name: string, loser: string, winner: string): void {
    const by = winner === 'built-in' ? 'a built-in' : winner === loser ? 'its own earlier registration' : `${winner} (earlier in load order)`;
    const message = `${kind} ${name} of ${loser} is shadowed by ${by}`;
    const loserExt = this.byName.get(loser);
    loserExt?.process.logLine(message);
    this.diagnose({ code: 'REGISTRATION_CONFLICT', message, extension: loser, severity: 'warning' }, false);
  }


  private subscribe(ext: LoadedExtension, events: readonly string[], intercept: readonly string[]): void {
    for (const event of events) {
      if (ext.events.has(event)) continue;
      if (!this.withinLimits(ext, `subscription to ${event.slice(0, 120)}`, event.length, ext.events.size, MAX_EVENT_NAMES, 'event names')) break;
      ext.events.add(event);
    }
    for (const event of intercept) {
      if (!INTERCEPTABLE.has(event)) {
        this.diagnose({ code: 'UNKNOWN_INTERCEPT', message: `${ext.name} asked to intercept ${JSON.stringify(event)}, which cannot be intercepted; ignored`, extension: ext.name, severity: 'warning' });
        continue;
      }
      ext.intercept.add(event);
    }
    if (ext.intercept.size > 0) {
      this.adapters.set(ext, this.adapterFor(ext));
      this.adapterList = undefined;
    }
  }

  private onProcessDiagnostic(ext: LoadedExtension, d: ProcessDiagnostic): void {
    if (this.byName.get(ext.name) !== ext) return;
    const severity = d.code === 'FRAME_TOO_LARGE' || d.code === 'STDOUT_CLOSED' || d.code === 'STDIN_STUCK' ? 'error' : 'warning';
    // Already limited (and logged) by the process.
    this.record({ code: d.code, message: `${d.message} (log: ${d.logPath})`, extension: ext.name, logPath: d.logPath, severity }, false);
  }

  // ------------------------------------------------------------------------------------------
  // Interception
  // ------------------------------------------------------------------------------------------

  /**
   * The adapters of ready extensions in load order, and a stand-in for each fail-closed one still
   * starting (pending-guard.ts); cached until a state, adapter or the load set changes.
   */
  private interceptAdapters(): Interceptor[] {
    if (this.adapterList !== undefined) return this.adapterList;
    const list: Interceptor[] = [];
    for (const ext of this.loaded) {
      if (ext.state === 'starting' && policyFor(this.options.interceptPolicy, ext.name)?.onFailure === 'block') {
        list.push(pendingGuard(ext, () => this.adapters.get(ext)));
        continue;
      }
      if (ext.state !== 'ready') continue;
      const adapter = this.adapters.get(ext);
      if (adapter !== undefined) list.push(adapter);
    }
    this.adapterList = list;
    return list;
  }

  private adapterFor(ext: LoadedExtension): Interceptor {
    return interceptAdapter(ext.name, ext.process, ext.intercept, this.timeouts.intercept, policyFor(this.options.interceptPolicy, ext.name));
  }

  /**
   * Runs the `before_agent_start` chain and caches the result: repeated calls return it without
   * asking anyone until `invalidateSystemPrompt()` (or a different base prompt / session).
   */
  prepareSystemPrompt(options: PrepareSystemPromptOptions): Promise<PreparedSystemPrompt> {
    return this.preparer.prepare(options);
  }

  /** Call on model change, conversation clear, session change or prompt rebuild. */
  invalidateSystemPrompt(): void {
    this.preparer.invalidate();
  }

  /** Changes the provider/model sent in before_agent_start (and to extensions started later); invalidates the system prompt. */
  setModel(model: { provider?: string | undefined; model?: string | undefined }): void {
    if (model.provider !== undefined) this.provider = model.provider;
    if (model.model !== undefined) this.model = model.model;
    this.preparer.invalidate();
  }

  // ------------------------------------------------------------------------------------------
  // Commands
  // ------------------------------------------------------------------------------------------

  /** Registered extension commands (active ones), in load order. */
  commands(): CommandInfo[] {
    const list: CommandInfo[] = [];
    for (const r of this.commandRegistry.active()) {
      if (this.byName.get(r.extension)?.state === 'ready') list.push({ name: r.name, description: r.value.description, extension: r.extension });
    }
    return list;
  }

  /**
   * Runs `/name args` (or `{ name, args }`): dispatches to the owning extension and applies its answer
   * through the callbacks. Unknown commands return `{ handled: false }` so the agent can fall back to its own;
   * so does every command before start() has finished, during a reload and after stop() (no extension
   * owns a command then).
   * Never throws for extension faults: they are in `failure` (and reported through `warning`).
   */
  async runCommand(input: string | { name: string; args?: string | undefined }, options: HostCallOptions = {}): Promise<CommandOutcome> {
    let name: string;
    let args: string;
    if (typeof input === 'string') {
      const text = input.trimStart().replace(/^\//, '');
      const space = text.search(/\s/);
      name = space === -1 ? text : text.slice(0, space);
      args = space === -1 ? '' : text.slice(space).trim();
    } else {
      name = input.name.replace(/^\//, '');
      args = String(input.args ?? '').trim();
    }
    const registration = this.commandRegistry.get(name);
    const ext = registration === undefined ? undefined : this.byName.get(registration.extension);
    if (registration === undefined || ext === undefined || ext.state !== 'ready') return { handled: false, name, args };
    const command = registration.name;
    const base = { handled: true as const, name: command, args, extension: ext.name, text: undefined, panel: undefined, error: undefined };
    let response: CommandResponseFrame;
    try {
      response = await ext.process.request({ type: 'command_invoked', name: command, args }, { timeoutMs: options.timeoutMs ?? this.timeouts.command, signal: options.signal });
    } catch (err) {
      const failure = toHostError(err, ErrorCode.BAD_RESPONSE, { extension: ext.name, logPath: ext.logPath });
      this.warn({ message: `/${command} failed: ${failure.message}`, extension: ext.name, logPath: ext.logPath, code: failure.code, error: failure });
      return { ...base, action: 'noop', failure };
    }
    return this.applyCommandResponse(ext, command, args, response);
  }

  private applyCommandResponse(ext: LoadedExtension, command: string, args: string, r: CommandResponseFrame): CommandOutcome {
    const action = r.action ?? 'noop';
    const error = r.error !== undefined && r.error.length > 0 ? r.error : undefined;
    const outcome = { handled: true as const, name: command, args, extension: ext.name, action, text: undefined as string | undefined, panel: undefined as PanelView | undefined, error, failure: undefined as ExtensionHostError | undefined };
    // The spec: the error shows "regardless of action", so it is reported AND the action runs.
    if (error !== undefined) this.call('notify', { extension: ext.name, level: 'error', message: error });
    const missing = (field: string) => {
      outcome.failure = new ExtensionHostError(ErrorCode.BAD_RESPONSE, `${ext.name}: /${command} answered ${action} without ${field}`, { extension: ext.name, logPath: ext.logPath });
      this.diagnose({ code: 'BAD_RESPONSE', message: outcome.failure.message, extension: ext.name, severity: 'warning' });
    };
    switch (action) {
      case 'prompt':
      case 'insert':
      case 'display': {
        const text = r[action];
        // zot ignores an empty prompt; its Go SDK sends `Prompt("")` without the field at all.
        if (action === 'prompt' && (text === undefined || text.trim().length === 0)) {
          outcome.text = text;
          break;
        }
        if (text === undefined) {
          missing(action);
          break;
        }
        outcome.text = text;
        this.call(action, { extension: ext.name, command, text });
        break;
      }
      case 'open_panel': {
        const spec = r.open_panel;
        if (spec === undefined) {
          missing('open_panel');
          break;
        }
        const owner = this.panels.get(spec.id);
        if (owner !== undefined && owner !== ext) {
          this.refusePanel(ext, spec.id, owner, 'open_panel');
          outcome.failure = new ExtensionHostError(ErrorCode.BAD_RESPONSE, `${ext.name}: panel ${JSON.stringify(spec.id)} is already shown by ${owner.name}`, { extension: ext.name, logPath: ext.logPath });
          break;
        }
        const panel: PanelView = { extension: ext.name, panelId: spec.id, title: spec.title, lines: spec.lines ?? [], footer: spec.footer };
        this.panels.set(spec.id, ext);
        this.closedPanels.opened(spec.id);
        outcome.panel = panel;
        this.call('openPanel', panel);
        break;
      }
      case 'noop':
        break;
    }
    return outcome;
  }

  // ------------------------------------------------------------------------------------------
  // Tools
  // ------------------------------------------------------------------------------------------

  /** Active extension tools (deferred ones only once activated), in load order. The schema is exactly as sent. */
  tools(): ToolInfo[] {
    const list: ToolInfo[] = [];
    for (const r of this.toolRegistry.active()) {
      if (r.value.deferred && !this.activated.has(r.name)) continue;
      if (this.byName.get(r.extension)?.state !== 'ready') continue; // a late joiner, until it is ready
      list.push({ name: r.name, description: r.value.description, schema: r.value.schema, extension: r.extension });
    }
    return list;
  }

  /**
   * Calls an extension tool. Always resolves: timeouts, crashes, aborts, unknown tools and malformed
   * results come back as `isError: true` with a readable text and a typed `failure`. Before start()
   * has finished, during a reload and after stop() the failure is NOT_STARTED.
   */
  callTool(name: string, args: Record<string, unknown>, options?: HostCallOptions): Promise<ToolResult> {
    if (this.status !== 'running') return Promise.resolve(failedResult(new ExtensionHostError(ErrorCode.NOT_STARTED, `tool ${name}: the host is ${this.status === 'idle' ? 'not started' : this.status}`), undefined));
    const registration = this.toolRegistry.get(name);
    const ext = registration === undefined ? undefined : this.byName.get(registration.extension);
    if (registration === undefined || ext === undefined || ext.state !== 'ready' || (registration.value.deferred && !this.activated.has(name))) {
      const hidden = registration !== undefined && registration.value.deferred && !this.activated.has(name);
      return Promise.resolve(failedResult(new ExtensionHostError(ErrorCode.UNKNOWN_TOOL, hidden ? `tool ${name} is deferred and has not been activated` : `no extension tool named ${name}`), undefined));
    }
    const invalid = toolCallProblem(name, ext.name, args, options);
    if (invalid !== undefined) return Promise.resolve(failedResult(invalid, ext.name));
    // The result is built when the response settles (no extra promise or microtask per call).
    return ext.process.request({ type: 'tool_call', name, args }, { timeoutMs: options?.timeoutMs ?? this.timeouts.tool, signal: options?.signal }, this.toolMapper(ext));
  }

  private toolMapper(ext: LoadedExtension): ResponseMapper<ToolResultFrame, ToolResult> {
    let mapper = this.toolMappers.get(ext);
    if (mapper === undefined) {
      mapper = {
        frame: (frame) => this.toolResult(ext, frame),
        error: (err) => failedResult(toHostError(err, ErrorCode.BAD_RESPONSE, { extension: ext.name, logPath: ext.logPath }), ext.name),
      };
      this.toolMappers.set(ext, mapper);
    }
    return mapper;
  }

  private toolResult(ext: LoadedExtension, frame: ToolResultFrame): ToolResult {
    const content = toolContent(frame.content);
    // A reload may have happened while waiting: a stale extension must not activate anything.
    const current = this.byName.get(ext.name) === ext;
    const activatedTools = current && frame.activate_tools !== undefined && frame.activate_tools.length > 0 ? this.activate(frame.activate_tools) : [];
    return { content, isError: frame.is_error ?? false, extension: ext.name, activatedTools, failure: undefined };
  }

  private activate(names: readonly string[]): string[] {
    const activated: string[] = [];
    for (const name of names) {
      const r = this.toolRegistry.get(name);
      if (r === undefined || !r.value.deferred) continue; // unknown names are ignored (spec)
      activated.push(name);
      if (!this.activated.has(name)) {
        this.activated.add(name);
        this.toolsChangedSoon();
      }
    }
    return activated;
  }

  private toolsChangedSoon(): void {
    // During start/reload, the announcement at the end covers it.
    if (this.status === 'running') this.announceToolsSoon();
  }

  private announceTools(): void {
    const tools = this.tools();
    this.call('toolsChanged', tools);
    this.emit('tools:changed', tools);
  }

  // ------------------------------------------------------------------------------------------
  // Events and panels
  // ------------------------------------------------------------------------------------------

  /**
   * Sends a lifecycle event (`{ event: 'turn_start', step: 1 }`, wire field names) to the extensions
   * that subscribed to it, in order, without waiting. Returns how many extensions it was sent to.
   * Throws INVALID_ARGUMENT for a known event with wrong fields.
   */
  override emit(event: { event: string; [field: string]: unknown }): number;
  override emit<K extends keyof HostEvents>(name: K, ...args: HostEvents[K]): boolean;
  override emit(first: unknown, ...rest: unknown[]): number | boolean {
    if (typeof first === 'string') return this.safeEmit(first, rest);
    const frame: Record<string, unknown> = Object.assign({ type: 'event' }, first, TYPE_EVENT);
    const problem = eventProblem(frame);
    if (problem !== undefined) throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `emit: invalid event (${problem})`);
    const name = frame.event as string;
    let line: string | undefined;
    let sent = 0;
    for (const ext of this.loaded) {
      if (ext.state !== 'ready' || !ext.events.has(name)) continue;
      if (line === undefined) {
        try {
          line = encodeFrame(frame);
        } catch (err) {
          throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `emit: the event cannot be sent as JSON: it ${jsonProblem(frame) ?? (err as Error).message}`, { cause: err });
        }
      }
      if (ext.process.sendLine(line)) sent++;
    }
    return sent;
  }

  /**
   * Sends a key to the extension that owns the panel. Returns false when no extension owns it. A key
   * name outside the spec's list (`PANEL_KEYS`) is forwarded as it is, as zot does (extensions ignore
   * keys they do not know); only a key that is not a non-empty string is INVALID_ARGUMENT.
   */
  panelKey(panelId: string, key: PanelKey, text?: string): boolean {
    if (typeof key !== 'string' || key.length === 0) throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `panelKey: the key must be a non-empty string, got ${JSON.stringify(key)}`);
    const owner = this.panels.get(panelId);
    if (owner === undefined || owner.state !== 'ready') return false;
    // The wire type names the spec's keys; another name goes out as it is.
    const name = key as PanelKeyName;
    return owner.process.send(text === undefined ? { type: 'panel_key', panel_id: panelId, key: name } : { type: 'panel_key', panel_id: panelId, key: name, text });
  }

  /** The user closed a panel: tells its extension (`panel_close`). Returns false when no extension owns it. */
  closePanel(panelId: string): boolean {
    const owner = this.panels.get(panelId);
    if (owner === undefined) return false;
    this.panels.delete(panelId);
    this.closedPanels.closed(panelId, owner);
    return owner.process.send({ type: 'panel_close', panel_id: panelId });
  }

  /** Open panels and their owners. */
  openPanels(): { panelId: string; extension: string }[] {
    return [...this.panels].map(([panelId, ext]) => ({ panelId, extension: ext.name }));
  }

  // ------------------------------------------------------------------------------------------
  // Introspection, diagnostics, callbacks
  // ------------------------------------------------------------------------------------------

  /** Every extension of the current start, in load order, with state, pid, log path and registrations. */
  extensions(): ExtensionInfo[] {
    return this.loaded.map((ext) =>
      ext.info({ command: (name) => this.commandRegistry.isActive(name, ext.name), tool: (name) => this.toolRegistry.isActive(name, ext.name) }),
    );
  }

  /** Diagnostics since start (the last 1,000): bad frames, conflicts, refused panels, interceptor failures. */
  diagnostics(): HostDiagnostic[] {
    return [...this.diagnosticList];
  }

  /** An extension's diagnostics go through its limiter: a flood of frames costs a summary per second. */
  private diagnose(d: HostDiagnostic, log = true): void {
    d.message = boundedMessage(d.message);
    const ext = d.extension === undefined ? undefined : this.byName.get(d.extension);
    if (ext === undefined) this.record(d, log);
    else ext.diagnostics.report(d.code, d.message, { d, log });
  }

  private record(d: HostDiagnostic, log: boolean): void {
    d.message = boundedMessage(d.message);
    if (d.extension !== undefined && d.logPath === undefined) {
      const logPath = this.byName.get(d.extension)?.logPath;
      if (logPath !== undefined) d.logPath = logPath;
    }
    if (this.diagnosticList.length >= MAX_DIAGNOSTICS) this.diagnosticList.shift();
    this.diagnosticList.push(d);
    if (log && d.extension !== undefined) this.byName.get(d.extension)?.process.logLine(d.message);
    this.safeEmit('diagnostic', [d]);
  }

  private warn(warning: HostWarning): void {
    this.safeEmit('warning', [warning]);
    this.call('warning', warning);
  }

  /**
   * Host events are emitted from stdout/exit handlers and microtasks: a listener that throws must
   * neither become an uncaught exception nor stop the host half-way. It is recorded instead.
   */
  private safeEmit(name: string, args: unknown[]): boolean {
    try {
      return (EventEmitter.prototype.emit as (name: string, ...args: unknown[]) => boolean).call(this, name, ...args);
    } catch (err) {
      const message = `a listener of '${name}' threw: ${err instanceof Error ? err.message : String(err)}`;
      if (this.diagnosticList.length >= MAX_DIAGNOSTICS) this.diagnosticList.shift();
      // Recorded without emitting: a throwing 'diagnostic' listener must not recurse.
      this.diagnosticList.push({ code: 'LISTENER_THREW', message, severity: 'error' });
      return true;
    }
  }

  private call<K extends keyof HostCallbacks>(name: K, arg: Parameters<NonNullable<HostCallbacks[K]>>[0]): void {
    const fn = this.callbacks[name] as ((arg: unknown) => void) | undefined;
    if (fn !== undefined) {
      try {
        fn(arg);
      } catch (err) {
        const message = `callback ${name} threw: ${err instanceof Error ? err.message : String(err)}`;
        // Named after the extension whose frame it served, so a flood goes through that extension's
        // diagnostic limit; the warning event comes once per callback, not once per frame.
        const extension = (arg as { extension?: unknown } | undefined)?.extension;
        this.diagnose({ code: 'CALLBACK_THREW', message, extension: typeof extension === 'string' ? extension : undefined, severity: 'error' });
        if (name !== 'warning' && !this.callbacksThrown.has(name)) this.safeEmit('warning', [{ message, code: 'CALLBACK_THREW' }]);
        this.callbacksThrown.add(name);
      }
    }
    const event = (CALLBACK_EVENTS as Partial<Record<keyof HostCallbacks, string>>)[name];
    if (event !== undefined) this.safeEmit(event, [arg]);
  }
}

function failedResult(failure: ExtensionHostError, extension: string | undefined): ToolResult {
  return { content: [{ type: 'text', text: failure.message }], isError: true, extension, activatedTools: [], failure };
}

/** Adapts an in-memory extension's streams to the child interface of the process layer. */
function memoryChild(memory: InMemoryExtension): ChildHandle {
  const { input, output, close } = memory.connect();
  const exitListeners: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = [];
  let exited = false;
  const exit = () => {
    if (exited) return;
    exited = true;
    for (const listener of exitListeners) listener(0, null);
  };
  output.once('end', () => setImmediate(exit));
  output.once('close', () => setImmediate(exit));
  return {
    pid: undefined,
    stdin: input,
    stdout: output,
    kill() {
      input.destroy();
      output.destroy();
      close?.();
      setImmediate(exit);
    },
    onExit(listener) {
      if (exited) listener(0, null);
      else exitListeners.push(listener);
    },
    onError() {},
  };
}
