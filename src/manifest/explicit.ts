// Explicit paths (`--ext`, the `explicit` option): loaded first, in the order given.
import path from 'node:path';
import { followLink } from './follow-link.js';
import { MANIFEST_FILE } from './limits.js';
import { type Slot, type Target, target } from './slot.js';

/** An explicit path: an extension directory, or a manifest file of any name. */
export async function locateExplicit(given: string): Promise<Target | Slot> {
  const link = await followLink(given);
  if ('slot' in link) return link.slot;
  if (link.isDir) return target(link.real, MANIFEST_FILE, 'explicit');
  return target(path.dirname(link.real), path.basename(link.real), 'explicit');
}
