// ExtensionHost, the facade the embedder sees: every public method is a line that calls into the
// host file that owns it, over one HostContext.
import path from 'node:path';
import { EventEmitter } from 'eventemitter3';
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { InterceptChain } from '../intercept/chain.js';
import { SystemPromptPreparer, type PreparedSystemPrompt, type PrepareSystemPromptOptions } from '../intercept/system-prompt.js';
import { resolveHome } from '../manifest/home.js';
import { nameKey } from '../manifest/limits.js';
import { KNOWN_EVENTS } from '../protocol/names.js';
import { callTool, runCommand, toolProgressEvent } from './calls.js';
import { type HostContext, type LoadedExtension, Registry } from './context.js';
import { routeFrame, sendEvent } from './frames.js';
import { InterceptWarnings, extensionSteps } from './interceptors.js';
import { onExtensionExit, restartByHand } from './lifecycle.js';
import { loadExtensions, respawnExtension, startReport, tapFrames, unloadExtensions } from './loader.js';
import { DEFAULT_TIMEOUTS, modelInput, timeoutsOf, validateOptions } from './options.js';
import { Embedder, HostDiagnostics } from './outlet.js';
import { ClosedPanels, closePanelByUser, openPanels, panelKey } from './panels.js';
import { announceTools, listCommands, listTools } from './registrations.js';
import { startTracing } from './tracing.js';
import { TrustSession } from './trust.js';
import type { CommandInfo, CommandOutcome, ExtensionHostOptions, ExtensionInfo, HostCallOptions, HostDiagnostic, HostEvents, LifecycleEvent, PanelCallOptions, PanelKey, StartReport, ToolInfo, ToolResult } from './types.js';

export type { HostCallOptions } from './types.js';

// Node 20.3 may lack Symbol.asyncDispose: the fallback is the one TypeScript's downlevel `await using` uses.
const asyncDispose: typeof Symbol.asyncDispose = (Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose')) as typeof Symbol.asyncDispose;
const DEFAULT_BUILTIN_TOOLS = ['read', 'write', 'edit', 'bash', 'skill'];

/**
 * Runs zot-compatible extensions (one subprocess each) and connects them to an agent through
 * provider-agnostic callbacks. See docs/embedding.md.
 *
 * A facade: the state is one HostContext (context.ts); loading (loader.ts), the lifecycle and
 * restarts (lifecycle.ts), frames (frames.ts), registrations, calls, panels, interceptors,
 * security, the way out (outlet.ts) and tracing each live in their own file and act on it.
 */
export class ExtensionHost extends EventEmitter<HostEvents> {
  /** Interception chain: one adapter per subscribed extension in load order; add your own too. */
  readonly intercepts: InterceptChain;
  readonly cwd: string;
  readonly appName: string;
  readonly home: string;
  readonly logDir: string;
  private readonly ctx: HostContext;
  private operation: Promise<unknown> = Promise.resolve();

  constructor(options: ExtensionHostOptions = {}) {
    super();
    validateOptions(options, DEFAULT_TIMEOUTS);
    this.cwd = path.resolve(options.cwd ?? process.cwd());
    this.appName = options.appName ?? 'zot';
    this.home = options.home !== undefined ? path.resolve(options.home) : resolveHome({ appName: this.appName });
    this.logDir = options.logDir !== undefined ? path.resolve(options.logDir) : path.join(this.home, 'logs');
    const timeouts = timeoutsOf(options.timeouts);
    const byName = new Map<string, LoadedExtension>();
    const diagnostics = new HostDiagnostics(byName, (d) => out.emit('diagnostic', d));
    const out = new Embedder(this, options.callbacks ?? {}, diagnostics);
    const interceptWarnings = new InterceptWarnings();
    const chain = new InterceptChain({
      timeoutMs: timeouts.intercept,
      extensionSteps: () => extensionSteps(ctx),
      // Tracing loads at start(): until then (and with it off) no chain call is observed.
      observer: { chainStarted: (event) => ctx.tracer?.chainStarted(event) },
      revalidate: options.revalidateIntercepts ?? false,
      onDiagnostic: (d) => {
        const ext = byName.get(d.interceptor);
        diagnostics.diagnose({ code: `INTERCEPT_${d.kind.toUpperCase()}`, message: `${d.interceptor} (${d.event}): ${d.message}`, extension: ext?.name, severity: 'warning' }, ext !== undefined);
        const warning = interceptWarnings.warningFor(d, ext?.logPath);
        if (warning !== undefined) out.warn(warning);
      },
    });
    const preparer = new SystemPromptPreparer({
      chain,
      context: () => ({ cwd: ctx.cwd, provider: ctx.provider, model: ctx.model }),
      onWarning: (message, interceptor) => {
        const ext = interceptor === undefined ? undefined : byName.get(interceptor);
        out.warn({ message: `system prompt: ${message}`, extension: interceptor, logPath: ext?.logPath, code: 'SYSTEM_PROMPT' });
      },
    });
    const ctx: HostContext = {
      options,
      timeouts,
      cwd: this.cwd,
      appName: this.appName,
      home: this.home,
      logDir: this.logDir,
      provider: options.provider ?? '',
      model: options.model ?? '',
      status: 'idle',
      loaded: [],
      byName,
      searched: [],
      commandRegistry: new Registry(nameKey, new Set((options.builtinCommands ?? []).map(nameKey))),
      toolRegistry: new Registry((name) => name, new Set(options.builtinTools ?? DEFAULT_BUILTIN_TOOLS)),
      activated: new Set(),
      panels: new Map(),
      closedPanels: new ClosedPanels(),
      adapters: new Map(),
      chain,
      preparer,
      interceptWarnings,
      diagnostics,
      out,
      on: {
        frame: (ext, frame) => routeFrame(ctx, ext, frame),
        progress: (ext, frame, request) => toolProgressEvent(ctx, ext, frame, request),
        exit: (ext, info) => onExtensionExit(ctx, ext, info),
      },
      announcing: { tools: false, commands: false },
      respawn: (old, reason) => respawnExtension(ctx, old, reason),
      tracer: undefined,
      events: { sequence: 0, sessionId: options.sessionId },
      trust: new TrustSession(),
    };
    this.ctx = ctx;
    this.intercepts = chain;
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
    this.ctx.trust.resume();
    return this.serialize(async () => {
      if (this.ctx.status === 'running') return startReport(this.ctx, [], [], 0);
      await startTracing(this.ctx);
      const report = await loadExtensions(this.ctx);
      announceTools(this.ctx);
      return report;
    });
  }

  /**
   * Stops everything, rediscovers (explicit paths remembered), respawns and rebuilds the registries;
   * deferred activations and the cached system prompt are reset and `toolsChanged` fires. Calls in
   * flight on old processes settle at once.
   */
  reload(): Promise<StartReport> {
    this.ctx.trust.resume();
    return this.serialize(async () => {
      await unloadExtensions(this.ctx);
      const report = await loadExtensions(this.ctx);
      announceTools(this.ctx);
      return report;
    });
  }

  /**
   * Shuts every extension down in parallel (shutdown, grace, SIGTERM, SIGKILL to the process group).
   * Resolves once each log file holds its last lines (waiting for a log at most the kill grace, 1 s,
   * after its process is gone). Idempotent.
   */
  stop(): Promise<void> {
    const ctx = this.ctx;
    // A start or reload in progress may wait on slow handshakes: end them now, not after.
    ctx.trust.stop();
    if (ctx.status === 'starting') {
      for (const ext of ctx.loaded) {
        ext.end('stopped');
        void ext.process.stop();
      }
    }
    return this.serialize(async () => {
      if (ctx.status === 'stopped' || ctx.status === 'idle') {
        ctx.status = 'stopped';
        return;
      }
      await unloadExtensions(ctx);
      ctx.status = 'stopped';
      ctx.tracer?.close();
    });
  }

  /**
   * Restarts one extension now, whatever its state and whether a `restart` policy is on: its process
   * is shut down as stop() does (shutdown, grace, SIGTERM, SIGKILL), a new one starts at once and
   * handshakes; its registrations are carried over (see docs/embedding.md, "Restarts"). Not counted
   * against the policy's limit; it starts a fresh window. Resolves with its snapshot when it is ready
   * again; rejects with its start error (SPAWN_FAILED, EXITED_BEFORE_HELLO, ...), NOT_STARTED when
   * the host is not running or stops meanwhile, INVALID_ARGUMENT for an unknown name, RESTARTING
   * when another restart of it took over.
   */
  async restart(name: string): Promise<ExtensionInfo> {
    await restartByHand(this.ctx, name);
    return this.extensions().find((ext) => ext.name === name)!;
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

  // ------------------------------------------------------------------------------------------
  // System prompt
  // ------------------------------------------------------------------------------------------

  /**
   * Runs the `before_agent_start` chain and caches the result: repeated calls return it without
   * asking anyone until `invalidateSystemPrompt()` (or a different base prompt / session).
   */
  prepareSystemPrompt(options: PrepareSystemPromptOptions): Promise<PreparedSystemPrompt> {
    return this.ctx.preparer.prepare(options);
  }

  /** Call on model change, conversation clear, session change or prompt rebuild. */
  invalidateSystemPrompt(): void {
    this.ctx.preparer.invalidate();
  }

  /** Changes the provider/model sent in before_agent_start (and to extensions started later); invalidates the system prompt. */
  setModel(model: { provider?: string | undefined; model?: string | undefined }): void {
    const { provider, model: name } = modelInput(model);
    if (provider !== undefined) this.ctx.provider = provider;
    if (name !== undefined) this.ctx.model = name;
    this.ctx.preparer.invalidate();
  }

  // ------------------------------------------------------------------------------------------
  // Commands and tools
  // ------------------------------------------------------------------------------------------

  /** Registered extension commands (active ones), in load order. */
  commands(): CommandInfo[] {
    return listCommands(this.ctx);
  }

  /**
   * Runs `/name args` (or `{ name, args }`): dispatches to the owning extension and applies its answer
   * through the callbacks. Unknown commands return `{ handled: false }` so the agent can fall back to its own;
   * so does every command before start() has finished, during a reload and after stop() (no extension
   * owns a command then), with `failure` NOT_STARTED as `callTool` has.
   * Never throws for extension faults: they are in `failure` (and reported through `warning`).
   */
  runCommand(input: string | { name: string; args?: string | undefined }, options: HostCallOptions = {}): Promise<CommandOutcome> {
    return runCommand(this.ctx, input, options);
  }

  /** Active extension tools (deferred ones only once activated), in load order. The schema is exactly as sent. */
  tools(): ToolInfo[] {
    return listTools(this.ctx);
  }

  /**
   * Calls an extension tool. Always resolves: timeouts, crashes, aborts, unknown tools and malformed
   * results come back as `isError: true` with a readable text and a typed `failure`. Before start()
   * has finished, during a reload and after stop() the failure is NOT_STARTED. `args` are the tool's
   * arguments, a JSON object. @default {}
   */
  callTool(name: string, args: Record<string, unknown> = {}, options?: HostCallOptions): Promise<ToolResult> {
    return callTool(this.ctx, name, args, options);
  }

  // ------------------------------------------------------------------------------------------
  // Events and panels
  // ------------------------------------------------------------------------------------------

  /**
   * Sends a lifecycle event (`{ event: 'turn_start', step: 1 }`, wire field names) to the extensions
   * that subscribed to it, in order, without waiting. Returns how many extensions it was sent to.
   * A known event (`EVENT_NAMES`) takes exactly its fields (typed; at run time a wrong one throws
   * INVALID_ARGUMENT); any other name is a custom event whose fields pass through. Each call that
   * passes the check is numbered (`sequence`, from 1, whether or not it reaches anyone); to an
   * extension that declared a capability the host adds `session_id`, `cwd` and `sequence` unless the
   * event names them (docs/protocol.md "zot versions").
   */
  sendEvent<N extends string>(event: { event: N } & LifecycleEvent<N>): number {
    return sendEvent(this.ctx, event);
  }

  // The `frame` event costs nothing until someone listens: adding the first listener installs the tap.
  override on<T extends keyof HostEvents>(event: T, fn: EventEmitter.EventListener<HostEvents, T>, context?: unknown): this {
    super.on(event, fn, context);
    if (event === 'frame') tapFrames(this.ctx);
    return this;
  }

  override addListener<T extends keyof HostEvents>(event: T, fn: EventEmitter.EventListener<HostEvents, T>, context?: unknown): this {
    return this.on(event, fn, context);
  }

  override once<T extends keyof HostEvents>(event: T, fn: EventEmitter.EventListener<HostEvents, T>, context?: unknown): this {
    super.once(event, fn, context);
    if (event === 'frame') tapFrames(this.ctx);
    return this;
  }

  /** The same as `sendEvent(event)`: sends a lifecycle event to its subscribers. */
  override emit<N extends string>(event: { event: N } & LifecycleEvent<N>): number;
  /**
   * Emits a host event (`HostEvents`) to the `host.on()` listeners (eventemitter3). A lifecycle event
   * name (`emit('turn_start', ...)`) throws INVALID_ARGUMENT: that would reach no extension; use
   * `sendEvent({ event: 'turn_start', step })`.
   */
  override emit<K extends keyof HostEvents>(name: K, ...args: HostEvents[K]): boolean;
  override emit(first: unknown, ...rest: unknown[]): number | boolean {
    if (typeof first !== 'string') return sendEvent(this.ctx, first as object);
    if (KNOWN_EVENTS.has(first)) {
      throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `emit('${first}', ...) emits a host event to host.on() listeners and reaches no extension; send the lifecycle event with host.sendEvent({ event: '${first}', ... })`);
    }
    // Host events from listeners of the embedder go through the same guard as the host's own.
    return this.ctx.out.emitRaw(first, rest);
  }

  /**
   * Sends a key to the extension that owns the panel. Returns false when no extension owns it. A key
   * name outside the spec's list (`PANEL_KEYS`) is forwarded as it is, as zot does (extensions ignore
   * keys they do not know); only a key that is not a non-empty string is INVALID_ARGUMENT. A panel is
   * the pair (extension, panel id): when several extensions have `panelId` open, pass
   * `{ extension }` (without it the call throws INVALID_ARGUMENT naming them).
   */
  panelKey(panelId: string, key: PanelKey, text?: string, options?: PanelCallOptions): boolean {
    return panelKey(this.ctx, panelId, key, text, options);
  }

  /**
   * The user closed a panel: tells its extension (`panel_close`). Returns false when no extension owns
   * it. When several extensions have `panelId` open, pass `{ extension }` (as for `panelKey`).
   */
  closePanel(panelId: string, options?: PanelCallOptions): boolean {
    return closePanelByUser(this.ctx, panelId, options);
  }

  /** Open panels and their owners. */
  openPanels(): { panelId: string; extension: string }[] {
    return openPanels(this.ctx);
  }

  // ------------------------------------------------------------------------------------------
  // Introspection
  // ------------------------------------------------------------------------------------------

  /** Every extension of the current start, in load order, with state, pid, log path and registrations. */
  extensions(): ExtensionInfo[] {
    const { commandRegistry, toolRegistry } = this.ctx;
    return this.ctx.loaded.map((ext) => ext.info({ command: (name) => commandRegistry.isActive(name, ext.name), tool: (name) => toolRegistry.isActive(name, ext.name) }));
  }

  /**
   * Diagnostics since start (the last 1,000): bad frames, conflicts, refused panels, interceptor
   * failures, manifests that could not be loaded (MANIFEST_INVALID) and every other discovery
   * diagnostic with its own code (PATH_NOT_FOUND, SHADOWED, SKILL_*, ...).
   */
  diagnostics(): HostDiagnostic[] {
    return this.ctx.diagnostics.snapshot();
  }
}
