import { ErrorCode, ExtensionHostError } from '../errors.js';
import type { ExitInfo } from '../process/extension-process.js';
import type { HostContext } from './context.js';
import { endExtension } from './extension-state.js';
import type { LoadedExtension } from './loaded-extension.js';
import { closePanelsOf } from './panels.js';
import { dropCarried } from './reconcile.js';
import { removeRegistrations } from './registrations.js';
import { restartAfterCrash } from './restarts.js';

/**
 * The handler of an extension's 'exit' event. Under a restart policy restarts.ts takes a crash over;
 * otherwise dead until reload (the spec): it is `exited` (or `failed` while starting), its commands,
 * tools, interceptor and panels go, and 'extension:exit' and one warning say why.
 */
export function onExtensionExit(ctx: HostContext, ext: LoadedExtension, info: ExitInfo): void {
  // A retired process was given up for a restart: its end is expected.
  if (ctx.byName.get(ext.name) !== ext || ext.retired || ext.state === 'stopped') return;
  const exit = { name: ext.name, code: info.code, signal: info.signal, reason: info.reason };
  if (ext.state === 'starting' && !ext.process.saidHello) {
    ctx.out.emit('extension:exit', exit); // startExtension reports the failure
    return;
  }
  const status = info.signal !== null ? `signal ${info.signal}` : `code ${info.code}`;
  const why = info.reason === 'exited' ? `exited with ${status}` : info.reason === 'stdout_closed' ? 'closed its stdout' : info.reason === 'frame_too_large' ? 'sent an oversized frame' : info.reason === 'stdin_blocked' ? 'stopped reading its stdin' : 'stopped';
  if (restartAfterCrash(ctx, ext, { why, exitCode: info.code, signal: info.signal })) {
    ctx.out.emit('extension:exit', exit);
    return;
  }
  const error = new ExtensionHostError(ErrorCode.PROCESS_EXITED, `${ext.name} ${why}; its commands and tools were removed; see ${ext.logPath}`, { extension: ext.name, logPath: ext.logPath, exitCode: info.code, signal: info.signal });
  dropCarried(ctx, ext);
  endExtension(ctx, ext, ext.state === 'starting' ? 'failed' : 'exited', error);
  removeRegistrations(ctx, ext);
  closePanelsOf(ctx, ext);
  ctx.out.emit('extension:exit', exit);
  ctx.out.warn({ message: error.message, extension: ext.name, logPath: ext.logPath, code: error.code, error });
}
