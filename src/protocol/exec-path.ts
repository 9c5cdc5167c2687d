import path from 'node:path';

/**
 * Resolves a manifest's `exec` the way zot does: an absolute path is used as is; `./x`, `../x` and
 * any path containing a separator are relative to the extension directory; a bare name is looked up
 * on PATH by the spawner (`onPath`). The one rule for discovery's checks and the process's spawn.
 */
export function resolveExec(exec: string, dir: string): { command: string; onPath: boolean } {
  if (path.isAbsolute(exec)) return { command: exec, onPath: false };
  if (exec.includes('/') || exec.includes('\\') || exec === '.' || exec === '..') {
    return { command: path.resolve(dir, exec), onPath: false };
  }
  return { command: exec, onPath: true };
}
