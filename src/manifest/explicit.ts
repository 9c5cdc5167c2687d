// Explicit paths (`--ext`, the `explicit` option): loaded first, in the order given. An entry that
// is a ws:// or wss:// URL is a remote extension without a manifest.
import path from 'node:path';
import { DiagnosticCode } from './diagnostics.js';
import { followLink } from './follow-link.js';
import { MANIFEST_FILE } from './limits.js';
import { nameFromUrl, redactUrl, urlProblem } from './remote.js';
import type { Manifest } from './schema.js';
import { problem, type Slot, type Target, target } from './slot.js';

/** An explicit path: an extension directory, or a manifest file of any name. */
export async function locateExplicit(given: string): Promise<Target | Slot> {
  const link = await followLink(given);
  if ('slot' in link) return link.slot;
  if (link.isDir) return target(link.real, MANIFEST_FILE, 'explicit');
  return target(path.dirname(link.real), path.basename(link.real), 'explicit');
}

/**
 * An explicit URL: a remote extension named from the URL (host, port and path), its directory the
 * host's cwd, its `manifestPath` the URL (redacted). A name of its own takes a manifest with `url`.
 */
export function remoteSlot(url: string, cwd: string): Slot {
  const shown = redactUrl(url);
  const bad = urlProblem(url);
  if (bad !== undefined) return problem(DiagnosticCode.URL_INVALID, 'error', `explicit entry ${bad}`, shown);
  const manifest = { name: nameFromUrl(url), url, enabled: true } as Manifest;
  return {
    extension: { name: manifest.name, dir: cwd, manifestPath: shown, source: 'explicit', kind: 'process', enabled: true, shadowedBy: undefined, manifest, skills: [], themePath: undefined, order: -1 },
    diagnostics: [],
  };
}
