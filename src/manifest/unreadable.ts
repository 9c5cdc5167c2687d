import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { DiagnosticCode } from './diagnostics.js';
import type { ExtensionSource } from './discovered.js';
import { describeFsError, errnoCode } from './fs-utils.js';
import { problem, type Slot } from './slot.js';

/** Why `<dir>/<file>` could not be read, told apart by listing the directory (error path only). */
export async function unreadable(dir: string, file: string, source: ExtensionSource, err: unknown): Promise<Slot> {
  const manifestPath = path.join(dir, file);
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (listErr) {
    return problem(
      DiagnosticCode.DIR_UNREADABLE,
      'error',
      `cannot list extension directory ${dir}: it ${describeFsError(listErr)}; fix its permissions`,
      dir,
    );
  }
  const entry = entries.find((e) => e.name === file);
  if (entry === undefined) {
    return problem(
      DiagnosticCode.MANIFEST_MISSING,
      // Inside a root a stray directory is suspicious; an explicit path without a manifest is a plain error.
      source === 'explicit' ? 'error' : 'warning',
      `${dir} has no ${file}; add a manifest (at least {"name": ..., "exec": ...}) or remove the directory`,
      manifestPath,
    );
  }
  const reason = entry.isSymbolicLink() && errnoCode(err) === 'ENOENT' ? 'is a symlink to nothing' : describeFsError(err);
  return problem(
    DiagnosticCode.MANIFEST_UNREADABLE,
    'error',
    `cannot read ${manifestPath}: it ${reason}; make it a readable JSON file`,
    manifestPath,
  );
}
