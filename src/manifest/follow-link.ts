import { lstat, realpath, stat } from 'node:fs/promises';
import { DiagnosticCode } from './diagnostics.js';
import { describeFsError, errnoCode } from './fs-utils.js';
import { problem, type Slot } from './slot.js';

/** Resolves a root entry or explicit path through symlinks; failures come back as a diagnostic slot. */
export async function followLink(given: string): Promise<{ real: string; isDir: boolean } | { slot: Slot }> {
  try {
    const info = await stat(given);
    return { real: await realpath(given), isDir: info.isDirectory() };
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ELOOP') {
      return {
        slot: problem(
          DiagnosticCode.SYMLINK_LOOP,
          'error',
          `${given} is a symlink loop; point the link at the extension's directory`,
          given,
        ),
      };
    }
    if (code === 'ENOENT') {
      const isLink = await lstat(given).then(
        (l) => l.isSymbolicLink(),
        () => false,
      );
      if (isLink) {
        return {
          slot: problem(
            DiagnosticCode.SYMLINK_BROKEN,
            'error',
            `${given} is a symlink to something that does not exist; fix the link or remove it`,
            given,
          ),
        };
      }
      return {
        slot: problem(
          DiagnosticCode.PATH_NOT_FOUND,
          'error',
          `extension path ${given} does not exist; check the path`,
          given,
        ),
      };
    }
    return {
      slot: problem(
        DiagnosticCode.DIR_UNREADABLE,
        'error',
        `cannot open ${given}: it ${describeFsError(err)}; check the path and its permissions`,
        given,
      ),
    };
  }
}
