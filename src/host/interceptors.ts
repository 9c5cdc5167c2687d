import { interceptorStep } from '../intercept/step.js';
import type { ChainStep } from '../intercept/types.js';
import type { HostContext } from './context.js';
import { extensionStep } from './intercept-adapter.js';
import type { LoadedExtension } from './loaded-extension.js';
import { policyFor } from './options.js';
import { pendingGuard, restartingGuard } from './pending-guard.js';

/**
 * The chain's extension steps: the adapters of ready extensions in load order, and a stand-in for each
 * fail-closed one still starting or restarting (pending-guard.ts); cached until a state, adapter or the load set
 * changes.
 */
export function extensionSteps(ctx: HostContext): ChainStep[] {
  if (ctx.adapterList !== undefined) return ctx.adapterList;
  const list: ChainStep[] = [];
  for (const ext of ctx.loaded) {
    if (ext.restarting) {
      const before = ext.slot.carry?.interceptor;
      if (before !== undefined && policyFor(ctx.options.interceptPolicy, ext.name)?.onFailure === 'block') list.push(interceptorStep(restartingGuard(ext, before)));
      continue;
    }
    if (ext.state === 'starting' && policyFor(ctx.options.interceptPolicy, ext.name)?.onFailure === 'block') {
      list.push(interceptorStep(pendingGuard(ext, () => ctx.adapters.get(ext)?.interceptor)));
      continue;
    }
    if (ext.state !== 'ready') continue;
    const adapter = ctx.adapters.get(ext);
    if (adapter !== undefined) list.push(adapter);
  }
  ctx.adapterList = list;
  return list;
}

/** `ext` subscribed to at least one intercept: (re)builds its adapter. */
export function addInterceptor(ctx: HostContext, ext: LoadedExtension): void {
  ctx.adapters.set(ext, extensionStep(ext.name, ext.process, ext.intercept, ctx.timeouts.intercept, policyFor(ctx.options.interceptPolicy, ext.name), ctx.tracer?.stepSend(ext)));
  ctx.adapterList = undefined;
}

export function removeInterceptor(ctx: HostContext, ext: LoadedExtension): void {
  ctx.adapters.delete(ext);
  ctx.adapterList = undefined;
}
