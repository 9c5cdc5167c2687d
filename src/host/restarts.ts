// Restarts: a crash under the `restart` policy, the end of the budget, a failed restart attempt, and
// host.restart(). The supervisor (supervisor.ts) decides and keeps the timer; reconcile.ts carries
// the registrations over; the respawn itself is the loader's (ctx.respawn).
import { ErrorCode, ExtensionHostError } from '../errors.js';
import type { HostContext } from './context.js';
import { endExtension } from './extension-state.js';
import { removeInterceptor } from './interceptors.js';
import type { LoadedExtension } from './loaded-extension.js';
import { closePanelsOf } from './panels.js';
import { carryOver, dropCarried } from './reconcile.js';
import { removeRegistrations } from './registrations.js';

/** How a process ended, for the messages. */
export interface Crash {
  /** `exited with code 3`, `closed its stdout`, ... */
  why: string;
  exitCode?: number | null | undefined;
  signal?: NodeJS.Signals | null | undefined;
  cause?: unknown;
}

/**
 * `ext` crashed (exited without being stopped). Under a restart policy, an extension that has been
 * ready since it was loaded (or a restart attempt of one, also before hello) goes `restarting` and is
 * respawned after the backoff, or, past the limit, `failed` with one RESTART_LIMIT diagnostic. Returns
 * false when the policy does not apply (off, or it never got ready: a load error start() reports);
 * the caller then ends it as before.
 */
export function restartAfterCrash(ctx: HostContext, ext: LoadedExtension, crash: Crash): boolean {
  const { supervisor, lifecycle } = ext.slot;
  const policy = supervisor.policy;
  if (policy === undefined || (ext.state !== 'ready' && ext.carried === undefined)) return false;
  const decision = supervisor.crashed();
  const errorOptions = { extension: ext.name, logPath: ext.logPath, exitCode: crash.exitCode, signal: crash.signal, cause: crash.cause };
  if (!decision.restart) {
    const message = `${ext.name} ${crash.why}; it was restarted ${decision.recent} times within ${policy.windowMs} ms, the limit: it stays down until host.restart() or reload(); its commands and tools were removed; see ${ext.logPath}`;
    const error = new ExtensionHostError(ErrorCode.PROCESS_EXITED, message, errorOptions);
    dropCarried(ctx, ext);
    endExtension(ctx, ext, 'failed', error, 'restart limit');
    removeRegistrations(ctx, ext);
    closePanelsOf(ctx, ext);
    ctx.diagnostics.diagnose({ code: 'RESTART_LIMIT', message, extension: ext.name, severity: 'error' });
    ctx.out.warn({ message, extension: ext.name, logPath: ext.logPath, code: 'RESTART_LIMIT', error });
    return true;
  }
  const message = `${ext.name} ${crash.why}; restart ${decision.attempt} of ${policy.maxRestarts} within ${policy.windowMs} ms in ${decision.delayMs} ms; see ${ext.logPath}`;
  const error = new ExtensionHostError(ErrorCode.PROCESS_EXITED, message, errorOptions);
  leave(ctx, ext, error);
  lifecycle.moveTo('restarting', 'crashed');
  ext.process.logLine(`restarting in ${decision.delayMs} ms (restart ${decision.attempt} of ${policy.maxRestarts} within ${policy.windowMs} ms)`);
  supervisor.schedule(() => {
    // stop() or reload() cancel the timer; a manual restart replaces it.
    if (ctx.byName.get(ext.name) === ext && ext.state === 'restarting' && (ctx.status === 'running' || ctx.status === 'starting')) void ctx.respawn(ext, 'restart').started;
  }, decision.delayMs);
  ctx.out.warn({ message, extension: ext.name, logPath: ext.logPath, code: error.code, error });
  return true;
}

/** `ext`'s process is given up for a restart: what it carried is kept, what needs the process goes. */
function leave(ctx: HostContext, ext: LoadedExtension, error: ExtensionHostError | undefined): void {
  carryOver(ctx, ext);
  ext.flushDiagnostics();
  ext.retire();
  if (error !== undefined) ext.error = error;
  removeInterceptor(ctx, ext);
  closePanelsOf(ctx, ext);
}

/**
 * A restart attempt failed to start (spawn failure, bad hello, hello timeout, or a crash before
 * hello): a crash before hello is one more crash for the policy; anything else leaves it `failed`
 * with the registrations it carried removed. Returns false for an extension's first start.
 */
export function restartAttemptFailed(ctx: HostContext, ext: LoadedExtension, error: ExtensionHostError): boolean {
  if (ext.carried === undefined) return false;
  if (error.code === ErrorCode.EXITED_BEFORE_HELLO && restartAfterCrash(ctx, ext, { why: 'exited before hello', exitCode: error.exitCode, signal: error.signal, cause: error })) return true;
  dropCarried(ctx, ext);
  endExtension(ctx, ext, 'failed', error);
  removeRegistrations(ctx, ext);
  ctx.out.warn({ message: `failed to restart ${ext.name}: ${error.message}`, extension: ext.name, logPath: ext.logPath, code: error.code, error });
  return true;
}

/**
 * host.restart(name): whatever its state and whether a policy is on. The running process (if any) is
 * shut down as stop() does, then a new one starts at once (no backoff). Not counted in the policy's
 * window, and it starts a fresh window. Resolves when the new process is ready; rejects with its
 * start error, NOT_STARTED when the host stops meanwhile, RESTARTING when another restart replaced it.
 */
export async function restartByHand(ctx: HostContext, name: string): Promise<void> {
  if (ctx.status !== 'running') throw new ExtensionHostError(ErrorCode.NOT_STARTED, `restart(${JSON.stringify(name)}): the host is ${ctx.status === 'idle' ? 'not started' : ctx.status}`);
  const ext = typeof name === 'string' ? ctx.byName.get(name) : undefined;
  if (ext === undefined) throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `restart: no extension named ${JSON.stringify(name)}`);
  ext.slot.supervisor.manual();
  if (ext.state !== 'restarting') {
    leave(ctx, ext, undefined);
    ext.slot.lifecycle.moveTo('restarting', 'manual restart');
    ext.process.logLine('restarting by host.restart()');
    await ext.process.stop();
    if (ctx.status !== 'running') throw new ExtensionHostError(ErrorCode.NOT_STARTED, `restart(${JSON.stringify(name)}): the host stopped`, { extension: name });
    // Read through the slot: the state may have moved while the process stopped.
    if (ctx.byName.get(name) !== ext || ext.slot.lifecycle.state !== 'restarting') throw superseded(ext);
  }
  const { ext: next, started } = ctx.respawn(ext, 'manual restart');
  await started;
  if (next.state === 'ready') return;
  if (ctx.status !== 'running' || next.state === 'stopped') throw new ExtensionHostError(ErrorCode.NOT_STARTED, `restart(${JSON.stringify(name)}): the host stopped`, { extension: name });
  // Failed, or crashed (a policy may restart it again); without an error another restart took over.
  throw next.error ?? superseded(next);
}

function superseded(ext: LoadedExtension): ExtensionHostError {
  return new ExtensionHostError(ErrorCode.RESTARTING, `restart(${JSON.stringify(ext.name)}): another restart of it took over`, { extension: ext.name, logPath: ext.logPath });
}
