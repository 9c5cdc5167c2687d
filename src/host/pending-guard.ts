// A fail-closed guard that is still starting (it joins late, see late-join.ts) must not let calls
// pass unseen: its place in the chain waits for it within the step's deadline, then asks it (or
// lets the event pass when it does not intercept that event), and fails, so blocks, when it is not
// ready by then.
import type { InterceptContext, Interceptor } from '../intercept/types.js';
import type { LoadedExtension } from './loaded-extension.js';
import { restartingError } from './restart-error.js';

type Method = 'toolCall' | 'turnStart' | 'assistantMessage' | 'beforeAgentStart';

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * The stand-in for a fail-closed `ext` while it restarts: each event its interceptor (`before`, from
 * before the crash) took fails at once with RESTARTING, so the chain blocks; the others pass.
 */
export function restartingGuard(ext: LoadedExtension, before: Interceptor): Interceptor {
  const fail = (): Promise<never> => Promise.reject(restartingError(ext, 'intercept'));
  const guard: Record<string, unknown> = { name: ext.name, onFailure: 'block' };
  for (const method of ['toolCall', 'turnStart', 'assistantMessage', 'beforeAgentStart'] as const) if (typeof before[method] === 'function') guard[method] = fail;
  return guard as unknown as Interceptor;
}

/** The stand-in for `ext` while it starts; `adapter()` is its interceptor once it has subscribed. */
export function pendingGuard(ext: LoadedExtension, adapter: () => Interceptor | undefined): Interceptor {
  const step = (method: Method) => async (input: object, ctx: InterceptContext): Promise<unknown> => {
    await Promise.race([ext.settled, aborted(ctx.signal)]);
    if (ext.state !== 'ready') throw new Error(`${ext.name} is not ready yet (still starting or failed); blocked by its interceptPolicy`);
    const current = adapter();
    const fn = current?.[method] as ((input: object, ctx: InterceptContext) => unknown) | undefined;
    return fn === undefined ? {} : fn.call(current, input, ctx);
  };
  return {
    name: ext.name,
    onFailure: 'block',
    toolCall: step('toolCall'),
    turnStart: step('turnStart'),
    assistantMessage: step('assistantMessage'),
    beforeAgentStart: step('beforeAgentStart'),
  } as Interceptor;
}
