// The manifest's `exec`: how it resolves, and the one check of whether it can be started, used by
// discovery (`checkExec`, `zot-ext doctor`) and by the spawn alike.
import { access, constants, stat } from 'node:fs/promises';
import path from 'node:path';
import { DiagnosticCode, type DiscoveryDiagnostic } from './diagnostics.js';
import { describeFsError, errnoCode } from './fs-utils.js';

/**
 * Resolves a manifest's `exec` the way zot does: an absolute path is used as is; `./x`, `../x` and
 * any path containing a separator are relative to the extension directory; a bare name is looked up
 * on PATH by the spawner (`onPath`).
 */
export function resolveExec(exec: string, dir: string): { command: string; onPath: boolean } {
  if (path.isAbsolute(exec)) return { command: exec, onPath: false };
  if (exec.includes('/') || exec.includes('\\') || exec === '.' || exec === '..') {
    return { command: path.resolve(dir, exec), onPath: false };
  }
  return { command: exec, onPath: true };
}

/** Why a path-based executable cannot be started. */
export type ExecProblem =
  /** `reason` follows "it": "does not exist", "is not accessible (permission denied)", ... */
  | { kind: 'not_found'; missing: boolean; reason: string }
  | { kind: 'not_a_file'; what: 'a directory' | 'not a regular file' }
  | { kind: 'not_executable' };

/**
 * Why the program at `command` (an absolute path) cannot be started, or undefined when it looks
 * runnable: a stat, then execute permission for this process (not on Windows, which has none).
 */
export async function execProblem(command: string): Promise<ExecProblem | undefined> {
  let info;
  try {
    info = await stat(command);
  } catch (err) {
    return { kind: 'not_found', missing: errnoCode(err) === 'ENOENT', reason: describeFsError(err) };
  }
  if (!info.isFile()) return { kind: 'not_a_file', what: info.isDirectory() ? 'a directory' : 'not a regular file' };
  if (process.platform === 'win32') return undefined;
  try {
    await access(command, constants.X_OK);
  } catch {
    return { kind: 'not_executable' };
  }
  return undefined;
}

/** The spawn's wording of execProblem(): why `command` cannot be started, or undefined. */
export async function checkExecutable(command: string): Promise<string | undefined> {
  const problem = await execProblem(command);
  if (problem === undefined) return undefined;
  switch (problem.kind) {
    case 'not_found':
      return `executable not found: ${command}`;
    case 'not_a_file':
      return `not a program (${problem.what}): ${command}`;
    case 'not_executable':
      return `not executable (chmod +x?): ${command}`;
  }
}

/**
 * Discovery's wording of execProblem() for a path-like `exec` (absolute, or containing a separator:
 * relative to the manifest), as warnings. A bare name is looked up on PATH at spawn time and not
 * checked here.
 */
export async function execDiagnostics(exec: string, dir: string, manifestPath: string, name: string): Promise<DiscoveryDiagnostic[]> {
  const { command, onPath } = resolveExec(exec, dir);
  if (onPath) return [];
  const problem = await execProblem(command);
  if (problem === undefined) return [];
  const shown = `${manifestPath}: exec ${JSON.stringify(exec)}`;
  const report = (code: DiagnosticCode, message: string): DiscoveryDiagnostic[] => [
    { code, severity: 'warning', message, path: command, extension: name },
  ];
  switch (problem.kind) {
    case 'not_found':
      return report(
        DiagnosticCode.EXEC_NOT_FOUND,
        `${shown} ${problem.missing ? 'was not found' : problem.reason} at ${command}; build it, or fix "exec" (it is relative to the manifest)`,
      );
    case 'not_a_file':
      return report(DiagnosticCode.EXEC_NOT_EXECUTABLE, `${shown} is ${problem.what} (${command}); point it at the program`);
    case 'not_executable':
      return report(DiagnosticCode.EXEC_NOT_EXECUTABLE, `${shown} is not executable; run chmod +x ${command}`);
  }
}
