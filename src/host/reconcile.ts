// Registrations across a restart. While an extension restarts, the registries keep what it had and
// tools() / commands() go on listing it (calls fail fast with RESTARTING), so the model's tool list
// does not flap. The new process's registrations of names it had replace them in place; new names
// are added as usual but listed only once it is ready. At ready the names it did not register again
// go, and `toolsChanged` / `commands:changed` fire only when what is listed of it really changed.
import { listCommands } from './commands.js';
import type { HostContext } from './context.js';
import type { Carried, LoadedExtension } from './loaded-extension.js';
import { listTools, toolsChangedSoon } from './tools.js';
import type { CommandInfo, ToolInfo } from './types.js';

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
export function takeOverCommand(ctx: HostContext, ext: LoadedExtension, key: string, name: string, description: string): boolean {
  const before = ext.state === 'starting' ? ext.carried?.commands.get(key) : undefined;
  if (before === undefined) return false;
  ext.setCommand(key, { name, description });
  if (before.name !== name || before.description !== description) ctx.commandRegistry.update(name, ext.name, { description });
  return true;
}

/** A restart attempt registering a tool it had: taken over in place (an equal one keeps its objects). True when handled here. */
export function takeOverTool(ctx: HostContext, ext: LoadedExtension, name: string, description: string, schema: Record<string, unknown>, deferred: boolean): boolean {
  const before = ext.state === 'starting' ? ext.carried?.tools.get(name) : undefined;
  if (before === undefined) return false;
  const same = before.description === description && before.deferred === deferred && JSON.stringify(before.schema) === JSON.stringify(schema);
  ext.setTool(name, same ? before : { name, description, schema, deferred });
  if (!same) ctx.toolRegistry.update(name, ext.name, { description, schema, deferred });
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
  if (!sameCommands(carried.listed.commands, now.commands)) ctx.commandsChangedSoon();
}

/** A restart that will not happen (limit, failed attempt, stop): activations of the tools it had go with them. */
export function dropCarried(ctx: HostContext, ext: LoadedExtension): void {
  const carried = ext.slot.carry;
  ext.slot.carry = undefined;
  ext.carried = undefined;
  if (carried !== undefined) for (const name of carried.tools.keys()) if (ctx.toolRegistry.isActive(name, ext.name)) ctx.activated.delete(name);
}

function sameTools(a: readonly ToolInfo[], b: readonly ToolInfo[]): boolean {
  return a.length === b.length && a.every((t, i) => t.name === b[i]!.name && t.description === b[i]!.description && t.schema === b[i]!.schema);
}

function sameCommands(a: readonly CommandInfo[], b: readonly CommandInfo[]): boolean {
  return a.length === b.length && a.every((c, i) => c.name === b[i]!.name && c.description === b[i]!.description);
}
