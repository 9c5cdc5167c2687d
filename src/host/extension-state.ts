import type { ExtensionHostError } from '../errors.js';
import type { HostContext } from './context.js';
import type { LoadedExtension } from './loaded-extension.js';
import { toolsChangedSoon } from './tools.js';
import type { ReadyVia } from './types.js';

/** `ext` is ready (by its `ready` frame, the idle rule or the grace); a no-op unless it is starting and said hello. */
export function becomeReady(ctx: HostContext, ext: LoadedExtension, via: ReadyVia): void {
  if (!ext.markReady(via)) return;
  ctx.adapterList = undefined;
  ext.process.logLine(`ready (${via}) after ${ext.readyMs} ms`);
  ctx.out.emit('extension:state', { name: ext.name, state: 'ready', previous: 'starting' });
  // A late joiner (start() went on without it): its registrations are announced now.
  if (ctx.status === 'running') {
    if (ext.tools.size > 0) toolsChangedSoon(ctx);
    if (ext.commands.size > 0) ctx.commandsChangedSoon();
  }
}

/** Moves `ext` to a terminal state; the event fires only when the state changed. */
export function endExtension(ctx: HostContext, ext: LoadedExtension, state: 'failed' | 'exited' | 'stopped', error?: ExtensionHostError): void {
  ext.diagnostics.flush();
  const previous = ext.end(state, error);
  ctx.adapterList = undefined;
  if (previous !== undefined) ctx.out.emit('extension:state', { name: ext.name, state, previous });
}
