import { ErrorCode, ExtensionHostError } from '../errors.js';
import type { LoadedExtension } from './loaded-extension.js';

/** The failure of a call (`what`) that reached `ext` while it restarts: fast, before any write. */
export function restartingError(ext: LoadedExtension, what: string): ExtensionHostError {
  return new ExtensionHostError(ErrorCode.RESTARTING, `${what}: ${ext.name} is restarting; try again when it is ready`, { extension: ext.name, logPath: ext.logPath });
}
