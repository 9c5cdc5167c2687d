// Starting and stopping extensions: discovery, one record and process per extension (how it is
// reached, what it is offered), the handshake and readiness, restart attempts, and the start report.
import path from 'node:path';
import { monotonicMs } from '../clock.js';
import { ErrorCode, ExtensionHostError, toHostError } from '../errors.js';
import { DiagnosticCode, type DiscoveryDiagnostic } from '../manifest/diagnostics.js';
import type { DiscoveredExtension } from '../manifest/discovered.js';
import { explicitFailures, ManifestDiscovery, type ExplicitFailure } from '../manifest/discovery.js';
import { nameKey } from '../manifest/limits.js';
import { isRemote, type McpServerConfig } from '../manifest/mcp.js';
import { looksLikeUrl, redactUrl } from '../manifest/remote.js';
import type { Manifest } from '../manifest/schema.js';
import { ExtensionProcess, type Launch } from '../process/extension-process.js';
import { HOST_CAPABILITIES, TRACING_CAPABILITIES } from '../process/negotiation.js';
import type { ProtocolCapability } from '../protocol/names.js';
import { memoryChild } from '../transport/memory.js';
import { checkGrants, detectSandbox, resolveSandbox, sandboxActive, sandboxDataDir } from '../transport/sandbox.js';
import { settlesWithin } from '../transport/settles-within.js';
import { VERSION } from '../version.js';
import { LoadedExtension, type ExtensionSlot, type ExtensionSpec, type HostContext } from './context.js';
import { becomeReady, newSlot, processHelloTimeout, restartAttemptFailed, startBound } from './lifecycle.js';
import { forExtension } from './options.js';
import { fromDiscovery, reportDiscovery } from './outlet.js';
import { closeAllPanels } from './panels.js';
import { headerSecrets, securityFor } from './security.js';
import { confirmTrust, decideTrust, gatedByTrust, recheckTrust, type TrustOutcome } from './trust.js';
import type { FailedReport, FrameTapEntry, HostDiagnostic, InMemoryExtension, StartReport, TrustOption } from './types.js';

/**
 * Discovers, creates every extension in load order and starts them in parallel; resolves when each
 * is ready, failed, or (not said hello within `timeouts.hello`) left starting to join later.
 */
export async function loadExtensions(ctx: HostContext): Promise<StartReport> {
  const began = monotonicMs();
  ctx.status = 'starting';
  const { options } = ctx;
  const discovery = new ManifestDiscovery({
    cwd: ctx.cwd,
    appName: ctx.appName,
    home: ctx.home,
    explicit: options.explicit ?? [],
    discover: options.discover ?? true,
    env: typeof options.env === 'object' ? options.env : undefined,
  });
  const found = await discovery.discover();
  ctx.searched = searchedDirs(discovery);
  // A global extension shadowed by a project one trust may keep out: its SHADOWED diagnostic waits
  // for the trust decision (untrusted, the global one runs instead: fallBack()).
  const fallbacks = shadowedByProject(found.extensions, options.trust ?? 'all');
  const fallbackManifests = new Set([...fallbacks.values()].map((g) => g.manifestPath));
  const waiting = new Set(fallbacks.size === 0 ? [] : found.diagnostics.flatMap((d, i) => (d.code === DiagnosticCode.SHADOWED && fallbackManifests.has(d.path) ? [i] : [])));
  reportDiscovery(ctx.diagnostics, ctx.out, waiting.size === 0 ? found.diagnostics : found.diagnostics.filter((_, i) => !waiting.has(i)));
  if (found.extensions.length === 0 && (options.inMemory ?? []).length === 0) ctx.diagnostics.diagnose(noExtensions(ctx.searched));
  const skipped: StartReport['skipped'] = [];
  const toStart: ExtensionSpec[] = [];
  for (const memory of options.inMemory ?? []) {
    toStart.push({ name: memory.name, dir: memory.dir ?? ctx.cwd, source: 'memory', memory });
  }
  for (const [name, mcp] of Object.entries(options.mcpServers ?? {})) {
    const spec: ExtensionSpec = { name, dir: ctx.cwd, source: 'explicit' };
    setMcp(spec, mcp);
    toStart.push(spec);
  }
  const inMemory = new Set(toStart.map((s) => nameKey(s.name)));
  for (const ext of found.extensions) {
    if (ext.shadowedBy !== undefined) skipped.push({ name: ext.name, dir: ext.dir, reason: 'shadowed' });
    else if (!ext.enabled) skipped.push({ name: ext.name, dir: ext.dir, reason: 'disabled' });
    else if (ext.kind !== 'process') skipped.push({ name: ext.name, dir: ext.dir, reason: ext.kind });
    else if (inMemory.has(nameKey(ext.name))) skipped.push({ name: ext.name, dir: ext.dir, reason: 'shadowed' });
    else toStart.push(processSpec(ext.name, ext.dir, ext.source, ext.manifest, ext.manifestPath));
  }
  // Before anything runs: project extensions are code from the repository (trust.ts).
  const trust = await decideTrust(ctx, toStart);
  const untrusted = fallBack(ctx, toStart, trust, fallbacks, skipped, found.diagnostics);
  if (waiting.size > 0) reportDiscovery(ctx.diagnostics, ctx.out, [...waiting].map((i) => found.diagnostics[i]!));
  const sandboxWarnings = await prepareSandboxes(ctx, toStart);
  ctx.loaded = toStart.map((spec, order) => createExtension(ctx, spec, order));
  ctx.byName.clear();
  for (const ext of ctx.loaded) ctx.byName.set(ext.name, ext);
  for (const ext of ctx.loaded) for (const warning of ext.security.warnings) ctx.diagnostics.diagnose({ ...warning });
  for (const warning of sandboxWarnings) ctx.diagnostics.diagnose(warning);
  const allowed = ctx.loaded.filter((ext) => admit(ext, trust.get(ext.slot.spec)));
  // stop() while the trust callback was asked: nothing of this start is spawned.
  if (ctx.trust.dismissed) for (const ext of allowed) ext.end('stopped');
  const { hello, helloJoin } = ctx.timeouts;
  const late = (ext: LoadedExtension) => () => ext.process.logLine(`no hello after ${hello} ms: start() goes on without it; it joins when it says hello (up to ${helloJoin} ms)`);
  const starts: Promise<void>[] = [];
  for (const ext of allowed) {
    // A project extension: its hash once more right before its spawn (trust.ts confirmTrust).
    if (ext.state === 'starting' && gatedByTrust(ext)) {
      const outcome = await confirmTrust(ctx, ext.slot.spec, { state: ext.slot.trust });
      // stop() while it was asked again: not started, as for the first question.
      if (ctx.trust.dismissed && ext.state === 'starting') ext.end('stopped');
      else if (!admit(ext, outcome)) continue;
    }
    if (ext.state === 'starting') starts.push(startBound(startExtension(ctx, ext), () => ext.process.saidHello, hello, helloJoin, late(ext)));
  }
  await Promise.all(starts);
  ctx.status = 'running';
  const failed = ctx.loaded.filter((ext) => ext.state === 'failed');
  return startReport(ctx, skipped, found.diagnostics, monotonicMs() - began, failed, [...explicitFailures(found).map(explicitFailed), ...untrusted]);
}

/**
 * The global extensions shadowed by a project one whose start trust decides (the first of each name,
 * by the project one's dir); none under `trust: 'all'` (every project extension starts).
 */
function shadowedByProject(found: readonly DiscoveredExtension[], trust: TrustOption): Map<string, DiscoveredExtension> {
  const fallbacks = new Map<string, DiscoveredExtension>();
  if (trust === 'all') return fallbacks;
  for (const ext of found) {
    if (ext.source === 'global' && ext.shadowedBy?.source === 'project' && !fallbacks.has(ext.shadowedBy.dir)) fallbacks.set(ext.shadowedBy.dir, ext);
  }
  return fallbacks;
}

/**
 * A project extension trust keeps out does not shadow the global one of its name: that one takes its
 * place in `toStart` as if the project one did not exist (report.skipped no longer lists it; its
 * SHADOWED diagnostic in `diagnostics` says why). The project one is not a loaded extension then
 * (the name is the global one's): it is only reported, failed with UNTRUSTED; returns those reports.
 * Not after stop() dismissed a trust question: nothing of that start runs.
 */
function fallBack(ctx: HostContext, toStart: ExtensionSpec[], trust: Map<ExtensionSpec, TrustOutcome>, fallbacks: ReadonlyMap<string, DiscoveredExtension>, skipped: StartReport['skipped'], diagnostics: DiscoveryDiagnostic[]): FailedReport[] {
  const untrusted: FailedReport[] = [];
  if (fallbacks.size === 0 || ctx.trust.dismissed) return untrusted;
  const kept: ExtensionSpec[] = [];
  for (const spec of toStart) {
    const global = spec.source === 'project' ? fallbacks.get(spec.dir) : undefined;
    const error = global === undefined ? undefined : trust.get(spec)?.error;
    if (global === undefined || error === undefined) {
      kept.push(spec);
      continue;
    }
    untrusted.push({ name: spec.name, source: 'project', error, logPath: undefined, path: spec.dir });
    trust.delete(spec);
    const at = skipped.findIndex((s) => s.dir === global.dir && s.reason === 'shadowed');
    if (at >= 0) skipped.splice(at, 1);
    const reason = !global.enabled ? 'disabled' : global.kind !== 'process' ? global.kind : undefined;
    if (reason !== undefined) skipped.push({ name: global.name, dir: global.dir, reason });
    else kept.push(processSpec(global.name, global.dir, global.source, global.manifest, global.manifestPath));
    const i = diagnostics.findIndex((d) => d.code === DiagnosticCode.SHADOWED && d.path === global.manifestPath);
    if (i >= 0) {
      const runs = reason === undefined ? 'runs in its place' : `is ${reason === 'disabled' ? 'disabled' : `a ${reason} bundle`}, not started`;
      const message = `global extension "${global.name}" in ${global.dir} is not shadowed: the project one of its name in ${spec.dir} is untrusted (UNTRUSTED, not started), so the global one ${runs}; trust the project one to run it instead`;
      diagnostics[i] = { ...diagnostics[i]!, message };
    }
  }
  toStart.splice(0, toStart.length, ...kept);
  return untrusted;
}

/** An explicit path the embedder asked for that could not be loaded, as report.failed has it. */
function explicitFailed({ entry, diagnostics }: ExplicitFailure): FailedReport {
  const first = diagnostics[0]!;
  const name = first.extension ?? (looksLikeUrl(entry) ? first.path : path.basename(entry));
  const error = new ExtensionHostError(ErrorCode.MANIFEST_INVALID, `${first.code}: ${first.message}`, { extension: name });
  return { name, source: 'explicit', error, logPath: undefined, path: first.path };
}

/**
 * Records `ext`'s trust `outcome` (none: it is exempt); false when it may not start, which fails it
 * (UNTRUSTED, never spawned). No warning: the embedder's own `trust` option decided.
 */
function admit(ext: LoadedExtension, outcome: TrustOutcome | undefined): boolean {
  if (outcome === undefined) return true;
  ext.slot.trust = outcome.state;
  if (outcome.error === undefined) return true;
  ext.end('failed', outcome.error, 'untrusted');
  return false;
}

/** A manifest's spec, kept for the extension's life (its restarts): the fields it has, no undefined ones. */
export function processSpec(name: string, dir: string, source: ExtensionSpec['source'], manifest: Manifest, manifestPath: string): ExtensionSpec {
  const spec: ExtensionSpec = { name, dir, source, exec: manifest.exec ?? '', args: manifest.args ?? [], manifestPath };
  if (manifest.url !== undefined) spec.url = manifest.url;
  if (manifest.headers !== undefined) spec.headers = manifest.headers;
  if (manifest.mcp !== undefined) setMcp(spec, manifest.mcp);
  if (manifest.env !== undefined) spec.envDeclared = manifest.env;
  if (manifest.permissions !== undefined) spec.permissionsRequested = manifest.permissions;
  if (manifest.sandbox !== undefined) spec.sandboxRequested = manifest.sandbox;
  return spec;
}

/** `spec` runs the MCP server `mcp`; an HTTP one's `headers` become the spec's (their `env:NAME` values are read as a remote extension's). */
function setMcp(spec: ExtensionSpec, mcp: McpServerConfig): void {
  spec.mcp = mcp;
  if ('headers' in mcp && mcp.headers !== undefined) spec.headers = mcp.headers;
}

/**
 * Each spawned extension's sandbox (docs/security.md#the-sandbox): the embedder's policy for it,
 * narrowed by its manifest, and the backend this machine has (found once). Returns the warnings of
 * `'auto'` extensions that run unsandboxed; a `'required'` one fails at its spawn (SANDBOX_UNAVAILABLE).
 */
async function prepareSandboxes(ctx: HostContext, specs: ExtensionSpec[]): Promise<HostDiagnostic[]> {
  const warnings: HostDiagnostic[] = [];
  const { sandbox, sandboxByExtension } = ctx.options;
  if (sandbox === undefined && sandboxByExtension === undefined && specs.every((s) => s.sandboxRequested === undefined)) return warnings;
  for (const spec of specs) {
    const resolved = resolveSandbox(forExtension(sandboxByExtension, spec.name) ?? sandbox, spec.sandboxRequested, ctx.cwd);
    if (resolved.mode === 'off') continue;
    const dataDir = sandboxDataDir(ctx.home, spec.name);
    const remote = isRemote(spec);
    if (remote || spec.memory !== undefined) {
      // Not a process of this machine's: nothing to confine (extensions() says so).
      spec.sandbox = { policy: resolved, backend: { kind: 'none', reason: remote ? 'not applicable (remote)' : 'not applicable (in-memory)' }, dataDir };
      continue;
    }
    // A grant through a symlink is refused: bwrap would follow it (a repository's `out -> ~`).
    const { policy, refused } = await checkGrants(resolved);
    for (const grant of refused) {
      warnings.push({ code: 'SANDBOX_GRANT_REFUSED', severity: 'warning', extension: spec.name, path: grant.path, message: `${spec.name}: the ${grant.kind} sandbox grant ${grant.path} is refused: it goes through a symlink (to ${grant.real}); grant the real path instead` });
    }
    const backend = await detectSandbox(policy.bwrap);
    spec.sandbox = { policy, backend, dataDir };
    if (backend.kind === 'none' && policy.mode === 'auto') {
      warnings.push({ code: 'SANDBOX_UNAVAILABLE', severity: 'warning', extension: spec.name, message: `${spec.name} runs unsandboxed (sandbox 'auto'): ${backend.reason ?? 'no sandbox backend'}` });
    }
  }
  return warnings;
}

/**
 * The host's record of one extension and its (not yet started) process; `order` is its load order.
 * A restart passes the slot (state machine, supervisor) the new record continues.
 */
function createExtension(ctx: HostContext, spec: ExtensionSpec, order: number, slot?: ExtensionSlot): LoadedExtension {
  const { options, timeouts } = ctx;
  slot ??= newSlot(ctx, spec);
  const security = securityFor(ctx, spec);
  // Where a remote extension's header variables come from: its environment under the env policy
  // (the host's own without one; read again at every connect).
  const remoteEnv = isRemote(spec) ? (security.env ?? process.env) : undefined;
  const proc = new ExtensionProcess({
    name: spec.name,
    dir: spec.dir,
    // Confined, its directory is read-only: hello_ack's data_dir is its own writable one.
    dataDir: sandboxActive(spec.sandbox) ? spec.sandbox!.dataDir : undefined,
    launch: launchFor(ctx, spec, security.env, remoteEnv),
    logDir: ctx.logDir,
    host: { hostVersion: options.hostVersion ?? VERSION, provider: ctx.provider, model: ctx.model, cwd: ctx.cwd },
    timeouts: { hello: processHelloTimeout(timeouts.hello, timeouts.helloJoin), shutdown: timeouts.shutdown, stuck: timeouts.stuck ?? timeouts.tool },
    maxFrameBytes: options.maxFrameBytes,
    maxOutboundBytes: options.maxOutboundBytes,
    logMaxBytes: options.logMaxBytes,
    idPrefix: `${order}`,
    secrets: remoteEnv !== undefined ? [...security.secrets, ...headerSecrets(spec.headers, remoteEnv)] : security.secrets,
    capabilities: offeredCapabilities(ctx.tracer !== undefined, spec.memory),
    frameTap: ctx.options.frameTap !== undefined || ctx.out.listens('frame') ? frameTapFor(ctx, spec.name) : undefined,
  });
  const ext = new LoadedExtension(order, proc, ctx, slot);
  ext.security = security;
  return ext;
}

/**
 * The embedder's `frameTap` and `host.on('frame')` for one extension: redacted lines without their
 * LF; a throwing tap is CALLBACK_THREW, a throwing listener LISTENER_THREW. Installed only with the
 * option or once a `frame` listener was added (tapFrames): a host that never listens pays nothing.
 */
function frameTapFor(ctx: HostContext, name: string): (direction: 'in' | 'out', line: string) => void {
  const tap = ctx.options.frameTap;
  return (direction, line) => {
    const listening = ctx.out.listens('frame');
    if (tap === undefined && !listening) return;
    const text = line.endsWith('\n') ? line.slice(0, -1) : line;
    const entry: FrameTapEntry = { extension: name, direction, line: ctx.diagnostics.redact(name, text), at: Date.now() };
    if (tap !== undefined) {
      try {
        tap(entry);
      } catch (err) {
        ctx.diagnostics.diagnose({ code: 'CALLBACK_THREW', message: `frameTap threw: ${err instanceof Error ? err.message : String(err)}`, extension: name, severity: 'error' });
      }
    }
    if (listening) ctx.out.emit('frame', tap === undefined ? entry : { ...entry });
  };
}

/** How the extension's process is reached: in-memory streams, a WebSocket (`url`), or a spawn. */
function launchFor(ctx: HostContext, spec: ExtensionSpec, env: NodeJS.ProcessEnv | undefined, remoteEnv: NodeJS.ProcessEnv | undefined): Launch {
  if (spec.memory !== undefined) return { kind: 'connect', connect: () => memoryChild(spec.memory!) };
  if (spec.mcp !== undefined) return { kind: 'mcp', server: spec.mcp, env: 'url' in spec.mcp ? remoteEnv : env, sandbox: 'url' in spec.mcp ? undefined : spec.sandbox };
  if (spec.url === undefined) return { kind: 'spawn', exec: spec.exec!, args: spec.args, env, sandbox: spec.sandbox };
  const keepAlive = ctx.options.keepAlive;
  return { kind: 'remote', url: spec.url, headers: spec.headers, env: remoteEnv, pingIntervalMs: keepAlive?.intervalMs, pingTimeoutMs: keepAlive?.timeoutMs };
}

/**
 * A restart attempt of `old` (restarting): a new record on its slot takes its place (so the identity
 * guards keep the old process out), carrying its registrations over, and starts.
 */
export function respawnExtension(ctx: HostContext, old: LoadedExtension, reason: string): { ext: LoadedExtension; started: Promise<void> } {
  const next = createExtension(ctx, old.slot.spec, old.order, old.slot);
  next.carried = old.slot.carry;
  ctx.loaded[ctx.loaded.indexOf(old)] = next;
  ctx.byName.set(next.name, next);
  next.slot.lifecycle.moveTo('starting', reason);
  if (!gatedByTrust(next)) return { ext: next, started: startExtension(ctx, next) };
  // A project extension the callback allowed: its hash again first (asked again when it changed).
  const started = recheckTrust(ctx, next).then((outcome) => {
    if (ctx.byName.get(next.name) !== next || next.retired || next.state !== 'starting') return;
    next.slot.trust = outcome.state;
    if (outcome.error === undefined) return startExtension(ctx, next);
    // Its carried registrations go, as for any restart attempt that fails to start.
    if (!restartAttemptFailed(ctx, next, outcome.error)) next.end('failed', outcome.error, 'untrusted');
  });
  return { ext: next, started };
}

/**
 * Wires `ext`'s process to the host (frames, diagnostics, exit), handshakes and waits until it is
 * ready (its `ready` frame, the idle rule or the grace), failed or gone. Never rejects.
 */
export async function startExtension(ctx: HostContext, ext: LoadedExtension): Promise<void> {
  const proc = ext.process;
  // What the process reports goes to the record, and from it to the host (ctx.on).
  proc.watcher = ext;
  // A restart attempt's `starting` came from its state machine (respawnExtension).
  if (ext.carried === undefined) ctx.out.emit('extension:state', { name: ext.name, state: 'starting', previous: undefined });
  const { ready, readyIdle } = ctx.timeouts;
  let idle: NodeJS.Timeout | undefined;
  let grace: NodeJS.Timeout | undefined;
  try {
    const hello = await proc.start();
    ext.version = hello.version;
    if (hello.capabilities !== undefined) ext.capabilities = hello.capabilities;
    if (ext.state === 'starting') {
      // The idle clock runs from the last frame after hello. An extension that has said nothing
      // since hello is still reading hello_ack (slow under load), not a legacy one: only the
      // grace readies it.
      const check = () => {
        const quiet = monotonicMs() - ext.lastFrameAt;
        if (ext.lastFrameAt > 0 && quiet >= readyIdle - 1) becomeReady(ctx, ext, 'idle');
        else idle = setTimeout(check, ext.lastFrameAt > 0 ? readyIdle - quiet : readyIdle);
      };
      idle = setTimeout(check, readyIdle);
      grace = setTimeout(() => becomeReady(ctx, ext, 'grace'), ready);
    }
    await ext.settled;
  } catch (err) {
    // Stopped (stop(), reload() or a restart) while it started.
    if (ctx.byName.get(ext.name) !== ext || ext.retired || ext.state !== 'starting') return;
    const error = toHostError(err, ErrorCode.SPAWN_FAILED, { extension: ext.name, logPath: ext.logPath });
    if (restartAttemptFailed(ctx, ext, error)) return;
    ext.end('failed', error);
    ctx.out.warn({ message: `failed to load ${ext.name}: ${error.message}`, extension: ext.name, logPath: ext.logPath, code: error.code, error });
  } finally {
    clearTimeout(idle);
    clearTimeout(grace);
  }
}

/** The report of the current start; `failed` are the extensions that failed in it. */
export function startReport(ctx: HostContext, skipped: StartReport['skipped'], discovery: readonly DiscoveryDiagnostic[], ms: number, failed: LoadedExtension[] = [], unloaded: FailedReport[] = []): StartReport {
  return {
    loaded: ctx.loaded
      .filter((ext) => ext.state === 'ready')
      .map((ext) => ({ name: ext.name, source: ext.source, pid: ext.process.pid, readyVia: ext.readyVia!, readyMs: ext.readyMs!, logPath: ext.logPath })),
    // An untrusted one never started: it has no log.
    failed: [...unloaded, ...failed.map((ext): FailedReport => ({ name: ext.name, source: ext.source, error: ext.error!, logPath: ext.slot.trust === 'denied' ? undefined : ext.logPath }))],
    starting: ctx.loaded.filter((ext) => ext.state === 'starting').map((ext) => ({ name: ext.name, source: ext.source, logPath: ext.logPath })),
    skipped,
    searched: [...ctx.searched],
    diagnostics: [...discovery, ...ctx.diagnostics.snapshot().filter((d) => !fromDiscovery(d))],
    ms: Math.round(ms),
  };
}

/** How long stop() waits for a log's last `[host]` lines once its process is gone: the kill grace. */
export const LOG_FLUSH_MS = 1000;

/** Stops one process, then waits (at most LOG_FLUSH_MS: a stuck disk never holds stop()) until its log holds every line. */
async function stopAndFlush(process: ExtensionProcess): Promise<void> {
  await process.stop();
  await settlesWithin(process.logFlushed(), LOG_FLUSH_MS);
}

/** Stops every extension (in parallel) and empties every registry, for stop() and reload(). */
export async function unloadExtensions(ctx: HostContext): Promise<void> {
  ctx.status = 'stopping';
  const old = ctx.loaded;
  for (const ext of old) ext.end('stopped');
  closeAllPanels(ctx);
  await Promise.all(old.map((ext) => stopAndFlush(ext.process)));
  ctx.loaded = [];
  ctx.byName.clear();
  ctx.adapters.clear();
  ctx.commandRegistry.clear();
  ctx.toolRegistry.clear();
  ctx.activated.clear();
  ctx.preparer.invalidate();
  ctx.interceptWarnings.reset();
}

// ---------------------------------------------------------------------------------------------
// Where start() looked for extensions, so that "nothing loaded" says where nothing was found.
// ---------------------------------------------------------------------------------------------

/** The explicit paths, then (unless `discover: false`) the project and the global root, absolute. */
function searchedDirs(discovery: ManifestDiscovery): string[] {
  return [...discovery.explicit.map((p) => (looksLikeUrl(p) ? redactUrl(p) : p)), ...(discovery.scansRoots ? [discovery.projectRoot, discovery.globalRoot] : [])];
}

function noExtensions(searched: readonly string[]): HostDiagnostic {
  const where = searched.length === 0 ? 'nowhere (discover: false and no explicit paths)' : searched.join(', ');
  return { code: 'NO_EXTENSIONS', message: `no extensions found; searched ${where}`, severity: 'info' };
}

// ---------------------------------------------------------------------------------------------
// Which protocol extensions the host offers one extension in its handshake (process/negotiation.ts).
// ---------------------------------------------------------------------------------------------

/** Set by the test kit (`createTestHost({ capabilities })`): what an in-process extension is offered. Internal. */
const memoryOffers = new WeakMap<InMemoryExtension, readonly ProtocolCapability[]>();

/** Internal (the test kit's): offer exactly `capabilities` to `ext` (those the host supports). */
export function offerToInMemory(ext: InMemoryExtension, capabilities: readonly ProtocolCapability[]): void {
  memoryOffers.set(ext, capabilities);
}

/** The capabilities offered: `trace` only with tracing on (or when the test kit offers it). */
function offeredCapabilities(tracing: boolean, memory: InMemoryExtension | undefined): readonly ProtocolCapability[] {
  const offer = memory === undefined ? undefined : memoryOffers.get(memory);
  if (offer !== undefined) return TRACING_CAPABILITIES.filter((c) => offer.includes(c));
  return tracing ? TRACING_CAPABILITIES : HOST_CAPABILITIES;
}

/** A `frame` listener was added: every loaded extension's lines reach it from now on (those started later get the tap at creation). */
export function tapFrames(ctx: HostContext): void {
  for (const ext of ctx.loaded) ext.process.tap ??= frameTapFor(ctx, ext.name);
}
