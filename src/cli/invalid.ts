import path from 'node:path';
import type { DiscoveryDiagnostic } from '../manifest/index.js';
import { scopeOfPath, type Scope } from './context.js';

/** An extension directory that discovery could not load at all (missing or broken manifest). */
export interface InvalidExtension {
  /** The manifest name when it could be read, else the directory name. */
  name: string;
  scope: Scope;
  dir: string;
  diagnostic: DiscoveryDiagnostic;
}

/**
 * Error diagnostics that belong to no listed extension (`dirs`): each is an extension that did not
 * load. Errors inside a listed extension (a bad skills entry) are not.
 */
export function invalidExtensions(diagnostics: readonly { severity: string }[], dirs: readonly string[], roots: Record<Scope, string>): InvalidExtension[] {
  const out: InvalidExtension[] = [];
  for (const d of diagnostics as readonly DiscoveryDiagnostic[]) {
    if (d.severity !== 'error' || typeof d.path !== 'string' || dirs.some((dir) => d.path === dir || d.path.startsWith(dir + path.sep))) continue;
    const scope = scopeOfPath(roots, d.path) ?? 'global';
    const rel = path.relative(roots[scope], d.path);
    const inRoot = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
    const dir = inRoot ? path.join(roots[scope], rel.split(path.sep)[0]!) : path.basename(d.path) === 'extension.json' ? path.dirname(d.path) : d.path;
    out.push({ name: d.extension ?? path.basename(dir), scope, dir, diagnostic: d });
  }
  return out;
}
