import { access, constants } from 'node:fs/promises';
import path from 'node:path';

/**
 * Resolves a manifest's `exec` the way zot does: an absolute path is used as is; `./x`, `../x` and
 * any path containing a separator are relative to the extension directory; a bare name is looked up
 * on PATH by the spawner.
 */
export function resolveExec(exec: string, dir: string): { command: string; onPath: boolean } {
  if (path.isAbsolute(exec)) return { command: exec, onPath: false };
  if (exec.includes('/') || exec.includes('\\') || exec === '.' || exec === '..') {
    return { command: path.resolve(dir, exec), onPath: false };
  }
  return { command: exec, onPath: true };
}

/** Why a path-based executable cannot be started, or undefined when it looks runnable. */
export async function checkExecutable(command: string): Promise<string | undefined> {
  try {
    await access(command, constants.F_OK);
  } catch {
    return `executable not found: ${command}`;
  }
  if (process.platform === 'win32') return undefined;
  try {
    await access(command, constants.X_OK);
  } catch {
    return `not executable (chmod +x?): ${command}`;
  }
  return undefined;
}
