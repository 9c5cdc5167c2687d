// The scan of one extensions root (project or global): its directories, in byte order.
import type { Dirent } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { DiagnosticCode } from './diagnostics.js';
import type { ExtensionSource } from './discovered.js';
import { followLink } from './follow-link.js';
import { describeFsError, errnoCode, sortByBytes } from './fs-utils.js';
import { MANIFEST_FILE } from './limits.js';
import { problem, type Slot, type Target, target } from './slot.js';

export const NO_ROOT = { real: undefined, items: [] } as const;

/** The extension directories of one root (byte order), or why the root cannot be read. */
export async function locateRoot(
  root: string,
  source: ExtensionSource,
): Promise<{ real: string | undefined; items: readonly (Target | Slot)[] }> {
  let entries: Dirent[];
  let real: string;
  try {
    [entries, real] = await Promise.all([readdir(root, { withFileTypes: true }), realpath(root)]);
  } catch (err) {
    // A missing root is normal.
    if (errnoCode(err) === 'ENOENT') return NO_ROOT;
    return {
      real: undefined,
      items: [
        problem(
          DiagnosticCode.DIR_UNREADABLE,
          'error',
          `cannot list the ${source} extensions directory ${root}: it ${describeFsError(err)}; fix its permissions or remove it`,
          root,
        ),
      ],
    };
  }
  // Dot-entries are never extensions (editor files, in-progress installs).
  const candidates = sortByBytes(
    entries.filter((e) => !e.name.startsWith('.') && (e.isDirectory() || e.isSymbolicLink())),
    (e) => e.name,
  );
  if (!candidates.some((e) => e.isSymbolicLink())) {
    return { real, items: candidates.map((e) => target(path.join(real, e.name), MANIFEST_FILE, source)) };
  }
  const items = await Promise.all(
    candidates.map(async (entry): Promise<Target | Slot | undefined> => {
      if (entry.isDirectory()) return target(path.join(real, entry.name), MANIFEST_FILE, source);
      const link = await followLink(path.join(root, entry.name));
      if ('slot' in link) return link.slot;
      // A link to a file is not an extension, as a plain file is not.
      return link.isDir ? target(link.real, MANIFEST_FILE, source) : undefined;
    }),
  );
  return { real, items: items.filter((i) => i !== undefined) };
}
