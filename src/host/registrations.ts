import { TOOL_NAME } from '../protocol/limits.js';
import { INTERCEPT_NAMES } from '../protocol/names.js';
import { listCommands } from './commands.js';
import type { HostContext } from './context.js';
import { addInterceptor, removeInterceptor } from './interceptors.js';
import type { LoadedExtension } from './loaded-extension.js';
import { takeOverCommand, takeOverTool } from './reconcile.js';
import { MAX_EVENT_NAMES, MAX_REGISTRATION_CHARS, MAX_REGISTRATIONS, registrationChars } from './registration-limits.js';
import { toolsChangedSoon } from './tools.js';

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
  const key = name.toLowerCase();
  if (ext.commands.has(key)) {
    ctx.diagnostics.diagnose({ code: 'DUPLICATE_REGISTRATION', message: `${ext.name} registered command /${name} twice; the first registration stays`, extension: ext.name, severity: 'warning' });
    return;
  }
  if (!registrationAllowed(ctx, ext, 'command /', name, registrationChars(name, description))) return;
  if (takeOverCommand(ctx, ext, key, name, description)) return;
  // One object for the extension's record and the registry's value.
  const entry = { name, description };
  const { conflict } = ctx.commandRegistry.add({ name, extension: ext.name, order: ext.order, value: entry });
  ext.setCommand(key, entry);
  if (conflict !== undefined) recordConflict(ctx, 'command', `/${conflict.name}`, conflict.loser, conflict.winner);
  if (ext.state === 'ready') ctx.commandsChangedSoon();
}

/** A register_tool frame. */
export function registerTool(ctx: HostContext, ext: LoadedExtension, name: string, description: string, schema: Record<string, unknown>, deferred: boolean): void {
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
  if (!registrationAllowed(ctx, ext, 'tool ', name, registrationChars(name, description, schema))) return;
  if (takeOverTool(ctx, ext, name, description, schema, deferred)) return;
  const entry = { name, description, schema, deferred };
  const { conflict, changed } = ctx.toolRegistry.add({ name, extension: ext.name, order: ext.order, value: entry });
  ext.setTool(name, entry);
  if (conflict !== undefined) recordConflict(ctx, 'tool', name, conflict.loser, conflict.winner);
  if (changed && !deferred && ext.state === 'ready') toolsChangedSoon(ctx);
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
    ext.addEvent(event);
    ctx.subscribers = undefined;
  }
  for (const event of intercept) {
    if (!INTERCEPTABLE.has(event)) {
      ctx.diagnostics.diagnose({ code: 'UNKNOWN_INTERCEPT', message: `${ext.name} asked to intercept ${JSON.stringify(event)}, which cannot be intercepted; ignored`, extension: ext.name, severity: 'warning' });
      continue;
    }
    ext.addIntercept(event);
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
