// What extensions register (commands, tools, subscriptions), within bounds, into the host's
// registries; what tools() and commands() list, and their change announcements; and how
// registrations are carried across a restart.
import { nameKey } from '../manifest/limits.js';
import { COMMAND_NAME, TOOL_NAME } from '../protocol/limits.js';
import { INTERCEPT_NAMES } from '../protocol/names.js';
import type { RegisterToolFrame } from '../protocol/frames.js';
import type { Carried, HostContext, LoadedExtension, ToolMeta } from './context.js';
import { addInterceptor, removeInterceptor } from './interceptors.js';
import type { CommandInfo, ToolExposure, ToolInfo, ToolReplay } from './types.js';

// What one extension may register: a bound on the host's memory however many or however large
// the registration frames are (each frame alone is capped at 4 MiB, their number is not).

/** Commands plus tools one extension may register. */
export const MAX_REGISTRATIONS = 10_000;
/** Custom and lifecycle event names one extension may subscribe to. */
export const MAX_EVENT_NAMES = 1000;
/** Characters of names, descriptions and JSON schemas one extension's registrations may hold. */
export const MAX_REGISTRATION_CHARS = 16 * 1024 * 1024;

/** Characters a registration holds: its name, description and (for a tool) its schema as JSON. */
export function registrationChars(name: string, description: string, schema?: Record<string, unknown>): number {
  let chars = name.length + description.length;
  if (schema !== undefined) {
    try {
      chars += JSON.stringify(schema).length;
    } catch {
      // Schemas come from a parsed frame: always encodable. Count nothing more if not.
    }
  }
  return chars;
}

// ---------------------------------------------------------------------------------------------
// Listing and announcing
// ---------------------------------------------------------------------------------------------

/** Active extension tools (deferred ones only once activated), in load order. */
export function listTools(ctx: HostContext): ToolInfo[] {
  const list: ToolInfo[] = [];
  for (const r of ctx.toolRegistry.active()) {
    if (r.value.deferred && !ctx.activated.has(r.name)) continue;
    // A late joiner, until it is ready; during a restart, what it had.
    if (ctx.byName.get(r.extension)?.lists('tools', r.name) !== true) continue;
    const tool: ToolInfo = { name: r.name, description: r.value.description, schema: r.value.schema, extension: r.extension, ...r.value.meta };
    if (r.value.interactive) tool.interactive = true;
    list.push(tool);
  }
  return list;
}

/** Registered extension commands (active ones of ready extensions), in load order. */
export function listCommands(ctx: HostContext): CommandInfo[] {
  const list: CommandInfo[] = [];
  for (const r of ctx.commandRegistry.active()) {
    // A late joiner, until it is ready; during a restart, what it had.
    if (ctx.byName.get(r.extension)?.lists('commands', nameKey(r.name)) !== true) continue;
    list.push({ name: r.name, description: r.value.description, extension: r.extension });
  }
  return list;
}

/**
 * `toolsChanged` / `tools:changed` (`commands:changed`) once per burst: frames parsed from one stdout
 * chunk are handled synchronously, so a burst of registrations is one snapshot, not one per command
 * or tool (that was O(n^2)). During start/reload the announcement at the end covers it.
 */
export function toolsChangedSoon(ctx: HostContext): void {
  announceSoon(ctx, 'tools');
}

export function commandsChangedSoon(ctx: HostContext): void {
  announceSoon(ctx, 'commands');
}

function announceSoon(ctx: HostContext, kind: 'tools' | 'commands'): void {
  if (kind === 'tools' && ctx.status !== 'running') return;
  if (ctx.announcing[kind]) return;
  ctx.announcing[kind] = true;
  queueMicrotask(() => {
    ctx.announcing[kind] = false;
    if (kind === 'tools') announceTools(ctx);
    else ctx.out.emit('commands:changed', listCommands(ctx));
  });
}

export function announceTools(ctx: HostContext): void {
  const tools = listTools(ctx);
  ctx.out.call('toolsChanged', tools);
  ctx.out.emit('tools:changed', tools);
}

// ---------------------------------------------------------------------------------------------
// Registration frames
// ---------------------------------------------------------------------------------------------

const INTERCEPTABLE: ReadonlySet<string> = new Set(INTERCEPT_NAMES);

/**
 * Whether `ext` may register one more item (`kind` and `name`: `command /x`, `tool x`, ...) of
 * `chars` characters, having `count` of at most `limit` (`what` it limits); a refusal is a
 * (limited) diagnostic. Its text is built only then: not once per registration.
 */
function withinLimits(ctx: HostContext, ext: LoadedExtension, kind: string, name: string, chars: number, count: number, limit: number, what: string): boolean {
  if (count < limit && ext.registrationChars + chars <= MAX_REGISTRATION_CHARS) {
    ext.registrationChars += chars;
    return true;
  }
  const item = `${kind}${name.slice(0, 120)}`;
  ctx.diagnostics.diagnose({ code: 'REGISTRATION_LIMIT', message: `${ext.name}: ${item} refused: an extension may register at most ${limit} ${what}, of ${MAX_REGISTRATION_CHARS} characters in all`, extension: ext.name, severity: 'warning' });
  return false;
}

function registrationAllowed(ctx: HostContext, ext: LoadedExtension, kind: string, name: string, chars: number): boolean {
  return withinLimits(ctx, ext, kind, name, chars, ext.commands.size + ext.tools.size, MAX_REGISTRATIONS, 'commands and tools');
}

/** A register_command frame. */
export function registerCommand(ctx: HostContext, ext: LoadedExtension, name: string, description: string): void {
  // Shown to the user and typed by them: no control sequence, whitespace or invisible character.
  if (!COMMAND_NAME.test(name)) {
    const escaped = JSON.stringify(name.length > 80 ? name.slice(0, 80) : name).replace(/[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const shown = name.length > 80 ? `${escaped}… (${name.length} characters)` : escaped;
    ctx.diagnostics.diagnose({
      code: 'INVALID_COMMAND_NAME',
      message: `${ext.name}: command ${shown} refused: command names are 1 to 64 letters, digits, _, - and : (no whitespace, control or invisible characters)`,
      extension: ext.name,
      severity: 'warning',
    });
    return;
  }
  const key = nameKey(name);
  if (ext.commands.has(key)) {
    ctx.diagnostics.diagnose({ code: 'DUPLICATE_REGISTRATION', message: `${ext.name} registered command /${name} twice; the first registration stays`, extension: ext.name, severity: 'warning' });
    return;
  }
  if (!registrationAllowed(ctx, ext, 'command /', name, registrationChars(name, description))) return;
  if (takeOverCommand(ctx, ext, key, name, description)) return;
  // One object for the extension's record and the registry's value.
  const entry = { name, description };
  const { conflict } = ctx.commandRegistry.add({ name, extension: ext.name, order: ext.order, value: entry });
  ext.commands.set(key, entry);
  if (conflict !== undefined) recordConflict(ctx, 'command', `/${conflict.name}`, conflict.loser, conflict.winner);
  if (ext.state === 'ready') commandsChangedSoon(ctx);
}

const EXPOSURES: ReadonlySet<string> = new Set<ToolExposure>(['direct', 'codemode', 'deferred', 'model-only']);
const REPLAYS: ReadonlySet<string> = new Set<ToolReplay>(['never', 'safe', 'idempotent', 'reconcile']);

/**
 * A register_tool frame, with zot's leniency and metadata (docs/protocol.md "zot versions"): a schema
 * that is not a JSON object is listed as `{type:"object"}` (SCHEMA_NORMALISED); an unknown `exposure`
 * refuses the tool (UNKNOWN_EXPOSURE), as zot skips it; an unknown `replay` is `never` (UNKNOWN_REPLAY).
 */
export function registerToolFrame(ctx: HostContext, ext: LoadedExtension, frame: RegisterToolFrame): void {
  const { name } = frame;
  const warn = (code: string, message: string) => ctx.diagnostics.diagnose({ code, message: `${ext.name}: tool ${JSON.stringify(name.slice(0, 80))} ${message}`, extension: ext.name, severity: 'warning' });
  const exposure = frame.exposure === '' ? undefined : frame.exposure;
  if (exposure !== undefined && !EXPOSURES.has(exposure)) {
    warn('UNKNOWN_EXPOSURE', `refused: unknown exposure ${JSON.stringify(exposure.slice(0, 80))} (one of ${[...EXPOSURES].join(', ')}), as zot skips it`);
    return;
  }
  let replay = frame.replay === '' ? undefined : frame.replay;
  if (replay !== undefined && !REPLAYS.has(replay)) {
    warn('UNKNOWN_REPLAY', `has an unknown replay policy ${JSON.stringify(replay.slice(0, 80))} (one of ${[...REPLAYS].join(', ')}); treated as never`);
    replay = 'never';
  }
  let schema: Record<string, unknown> = { type: 'object' };
  if (isJsonObject(frame.schema)) schema = frame.schema;
  else if (frame.schema !== undefined) warn('SCHEMA_NORMALISED', 'sent a schema that is not a JSON object; listed as {"type":"object"}');
  const meta: ToolMeta = {};
  if (frame.output_schema !== undefined) meta.outputSchema = frame.output_schema;
  if (frame.namespace !== undefined) meta.namespace = frame.namespace;
  if (frame.namespace_description !== undefined) meta.namespaceDescription = frame.namespace_description;
  if (frame.namespace_instructions !== undefined) meta.namespaceInstructions = frame.namespace_instructions;
  if (exposure !== undefined) meta.exposure = exposure as ToolExposure;
  if (replay !== undefined) meta.replay = replay as ToolReplay;
  if (isJsonObject(frame.annotations)) meta.annotations = frame.annotations;
  // An explicit exposure overrides the snapshot's deferred flag, as in zot.
  const deferred = exposure !== undefined ? exposure === 'deferred' : (frame.deferred ?? false);
  registerTool(ctx, ext, name, frame.description ?? '', schema, deferred, Object.keys(meta).length === 0 ? undefined : meta, frame.interactive ?? false);
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A tool registration. */
export function registerTool(ctx: HostContext, ext: LoadedExtension, name: string, description: string, schema: Record<string, unknown>, deferred: boolean, meta?: ToolMeta, interactive = false): void {
  // A tool named otherwise would make every model request that lists the tools fail, for every extension.
  if (!TOOL_NAME.test(name)) {
    const shown = name.length > 80 ? `${JSON.stringify(name.slice(0, 80))}… (${name.length} characters)` : JSON.stringify(name);
    ctx.diagnostics.diagnose({
      code: 'INVALID_TOOL_NAME',
      message: `${ext.name}: tool ${shown} refused: model providers accept tool names of 1 to 64 characters a-z, A-Z, 0-9, _ and - only, and one such name would fail every model request that lists the tools`,
      extension: ext.name,
      severity: 'warning',
    });
    return;
  }
  if (ext.tools.has(name)) {
    ctx.diagnostics.diagnose({ code: 'DUPLICATE_REGISTRATION', message: `${ext.name} registered tool ${name} twice; the first registration stays`, extension: ext.name, severity: 'warning' });
    return;
  }
  if (!registrationAllowed(ctx, ext, 'tool ', name, registrationChars(name, description, schema) + (meta === undefined ? 0 : registrationChars('', '', meta)))) return;
  if (takeOverTool(ctx, ext, name, description, schema, deferred, meta, interactive)) return;
  const entry = { name, description, schema, deferred, interactive, meta };
  const { conflict, changed } = ctx.toolRegistry.add({ name, extension: ext.name, order: ext.order, value: entry });
  ext.tools.set(name, entry);
  if (conflict !== undefined) recordConflict(ctx, 'tool', name, conflict.loser, conflict.winner);
  if (changed && !deferred && ext.state === 'ready') toolsChangedSoon(ctx);
}

/**
 * An `unregister_tool` frame (capability "unregister"): the extension withdraws a tool it
 * registered; the next registration of the name (a shadowed one, or its own again) takes its place.
 */
export function unregisterTool(ctx: HostContext, ext: LoadedExtension, name: string): void {
  const entry = ext.tools.get(name);
  if (entry === undefined) {
    ext.process.logLine(`unregister_tool ${JSON.stringify(name.slice(0, 80))}: it registered no such tool; ignored`);
    return;
  }
  ext.tools.delete(name);
  ext.registrationChars -= registrationChars(name, entry.description, entry.schema) + (entry.meta === undefined ? 0 : registrationChars('', '', entry.meta));
  if (ctx.toolRegistry.isActive(name, ext.name)) ctx.activated.delete(name);
  const wasActive = ctx.toolRegistry.remove(name, ext.name);
  if (wasActive && ext.state === 'ready') toolsChangedSoon(ctx);
}

function recordConflict(ctx: HostContext, kind: 'command' | 'tool', name: string, loser: string, winner: string): void {
  const by = winner === 'built-in' ? 'a built-in' : winner === loser ? 'its own earlier registration' : `${winner} (earlier in load order)`;
  const message = `${kind} ${name} of ${loser} is shadowed by ${by}`;
  ctx.byName.get(loser)?.process.logLine(message);
  ctx.diagnostics.diagnose({ code: 'REGISTRATION_CONFLICT', message, extension: loser, severity: 'warning' }, false);
}

/** A subscribe frame: events (bounded) and intercepts (known ones only). */
export function subscribe(ctx: HostContext, ext: LoadedExtension, events: readonly string[], intercept: readonly string[]): void {
  for (const event of events) {
    if (ext.events.has(event)) continue;
    if (!withinLimits(ctx, ext, 'subscription to ', event, event.length, ext.events.size, MAX_EVENT_NAMES, 'event names')) break;
    ext.events.add(event);
  }
  for (const event of intercept) {
    if (!INTERCEPTABLE.has(event)) {
      ctx.diagnostics.diagnose({ code: 'UNKNOWN_INTERCEPT', message: `${ext.name} asked to intercept ${JSON.stringify(event)}, which cannot be intercepted; ignored`, extension: ext.name, severity: 'warning' });
      continue;
    }
    ext.intercept.add(event);
  }
  if (ext.intercept.size > 0) addInterceptor(ctx, ext);
}

/** `ext` is gone: its commands, tools and interceptor go; the owners' registrations take over. */
export function removeRegistrations(ctx: HostContext, ext: LoadedExtension): void {
  // Only names this extension owned: a shadowed registration must not deactivate the owner's tool.
  for (const tool of ext.tools.values()) if (ctx.toolRegistry.isActive(tool.name, ext.name)) ctx.activated.delete(tool.name);
  ctx.commandRegistry.removeExtension(ext.name);
  const changed = ctx.toolRegistry.removeExtension(ext.name);
  removeInterceptor(ctx, ext);
  if (changed.length > 0) toolsChangedSoon(ctx);
  ctx.out.emit('commands:changed', listCommands(ctx));
}

// ---------------------------------------------------------------------------------------------
// Registrations across a restart. While an extension restarts, the registries keep what it had and
// tools() / commands() go on listing it (calls fail fast with RESTARTING), so the model's tool list
// does not flap. The new process's registrations of names it had replace them in place; new names
// are added as usual but listed only once it is ready. At ready the names it did not register again
// go, and `toolsChanged` / `commands:changed` fire only when what is listed of it really changed.
// ---------------------------------------------------------------------------------------------

/** Records what a restart of `ext` takes over, unless a restart under way already did. */
export function carryOver(ctx: HostContext, ext: LoadedExtension): Carried {
  const slot = ext.slot;
  if (slot.carry !== undefined) return slot.carry;
  const state = ext.state;
  // Down (failed, exited): its registrations are gone already.
  const had = state === 'ready' || state === 'starting' || state === 'restarting';
  slot.carry = {
    commands: had ? new Map(ext.commands) : new Map(),
    tools: had ? new Map(ext.tools) : new Map(),
    listed: state === 'ready' ? listedOf(ctx, ext.name) : { tools: [], commands: [] },
    interceptor: had ? ctx.adapters.get(ext)?.interceptor : undefined,
  };
  return slot.carry;
}

function listedOf(ctx: HostContext, name: string): Carried['listed'] {
  return { tools: listTools(ctx).filter((t) => t.extension === name), commands: listCommands(ctx).filter((c) => c.extension === name) };
}

/** A restart attempt registering a command it had: taken over in place. True when handled here. */
function takeOverCommand(ctx: HostContext, ext: LoadedExtension, key: string, name: string, description: string): boolean {
  const before = ext.state === 'starting' ? ext.carried?.commands.get(key) : undefined;
  if (before === undefined) return false;
  ext.commands.set(key, { name, description });
  if (before.name !== name || before.description !== description) ctx.commandRegistry.update(name, ext.name, { description });
  return true;
}

/** A restart attempt registering a tool it had: taken over in place (an equal one keeps its objects). True when handled here. */
function takeOverTool(ctx: HostContext, ext: LoadedExtension, name: string, description: string, schema: Record<string, unknown>, deferred: boolean, meta: ToolMeta | undefined, interactive: boolean): boolean {
  const before = ext.state === 'starting' ? ext.carried?.tools.get(name) : undefined;
  if (before === undefined) return false;
  const same =
    before.description === description &&
    before.deferred === deferred &&
    before.interactive === interactive &&
    JSON.stringify(before.schema) === JSON.stringify(schema) &&
    JSON.stringify(before.meta) === JSON.stringify(meta);
  ext.tools.set(name, same ? before : { name, description, schema, deferred, interactive, meta });
  if (!same) ctx.toolRegistry.update(name, ext.name, { description, schema, deferred, interactive, meta });
  return true;
}

/** A restart attempt is about to be ready: what it did not register again goes. */
export function dropNotRegisteredAgain(ctx: HostContext, ext: LoadedExtension, carried: Carried): void {
  ext.carried = undefined;
  ext.slot.carry = undefined;
  for (const [key, command] of carried.commands) if (!ext.commands.has(key)) ctx.commandRegistry.remove(command.name, ext.name);
  for (const name of carried.tools.keys()) {
    if (ext.tools.has(name)) continue;
    if (ctx.toolRegistry.isActive(name, ext.name)) ctx.activated.delete(name);
    ctx.toolRegistry.remove(name, ext.name);
  }
}

/** A restart attempt is ready: `toolsChanged` / `commands:changed` fire when what is listed of it really changed. */
export function announceIfChanged(ctx: HostContext, ext: LoadedExtension, carried: Carried): void {
  const now = listedOf(ctx, ext.name);
  if (!sameTools(carried.listed.tools, now.tools)) toolsChangedSoon(ctx);
  if (!sameCommands(carried.listed.commands, now.commands)) commandsChangedSoon(ctx);
}

/** A restart that will not happen (limit, failed attempt, stop): activations of the tools it had go with them. */
export function dropCarried(ctx: HostContext, ext: LoadedExtension): void {
  const carried = ext.slot.carry;
  ext.slot.carry = undefined;
  ext.carried = undefined;
  if (carried !== undefined) for (const name of carried.tools.keys()) if (ctx.toolRegistry.isActive(name, ext.name)) ctx.activated.delete(name);
}

function sameTools(a: readonly ToolInfo[], b: readonly ToolInfo[]): boolean {
  return a.length === b.length && a.every((t, i) => t.name === b[i]!.name && t.description === b[i]!.description && t.schema === b[i]!.schema && t.interactive === b[i]!.interactive);
}

function sameCommands(a: readonly CommandInfo[], b: readonly CommandInfo[]): boolean {
  return a.length === b.length && a.every((c, i) => c.name === b[i]!.name && c.description === b[i]!.description);
}
