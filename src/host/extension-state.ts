import type { ExtensionHostError } from '../errors.js';
import type { HostContext } from './context.js';
import type { StateChange } from './lifecycle.js';
import type { LoadedExtension } from './loaded-extension.js';
import { announceIfChanged, dropNotRegisteredAgain } from './reconcile.js';
import type { Supervisor } from './supervisor.js';
import { toolsChangedSoon } from './tools.js';
import type { HostEvents, ReadyVia } from './types.js';

/** A state or the load set changed: the lists made from them (intercept steps, event subscribers) are made again when next needed. */
export function dropDerived(ctx: HostContext): void {
  ctx.adapterList = undefined;
  ctx.subscribers = undefined;
}

/** Every lifecycle transition of extension `name` (its Lifecycle's callback): the 'extension:state' event. */
export function stateChanged(ctx: HostContext, name: string, supervisor: Supervisor, c: StateChange): void {
  dropDerived(ctx);
  const change: HostEvents['extension:state'][0] = { name, state: c.to, previous: c.from };
  if (c.reason !== undefined) change.reason = c.reason;
  if (c.to === 'restarting' || supervisor.restarts > 0) change.restarts = supervisor.restarts;
  ctx.out.emit('extension:state', change);
}

/** `ext` is ready (by its `ready` frame, the idle rule or the grace); a no-op unless it is starting and said hello. */
export function becomeReady(ctx: HostContext, ext: LoadedExtension, via: ReadyVia): void {
  const carried = ext.carried;
  if (!ext.canBecomeReady) return;
  // A restart attempt: the registries are settled before anyone hears it is ready.
  if (carried !== undefined) dropNotRegisteredAgain(ctx, ext, carried);
  ext.markReady(via, carried !== undefined ? 'restart' : undefined);
  ext.process.logLine(`ready (${via}) after ${ext.readyMs} ms`);
  if (carried !== undefined) return announceIfChanged(ctx, ext, carried);
  // A late joiner (start() went on without it): its registrations are announced now.
  if (ctx.status === 'running') {
    if (ext.tools.size > 0) toolsChangedSoon(ctx);
    if (ext.commands.size > 0) ctx.commandsChangedSoon();
  }
}

/** Moves `ext` to a terminal state; the event fires only when the state changed. */
export function endExtension(ctx: HostContext, ext: LoadedExtension, state: 'failed' | 'exited' | 'stopped', error?: ExtensionHostError, reason?: string): void {
  ext.flushDiagnostics();
  ext.end(state, error, reason);
  ctx.adapterList = undefined;
}
