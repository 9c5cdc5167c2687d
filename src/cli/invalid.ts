import path from 'node:path';
import type { DiscoveryDiagnostic } from '../manifest/index.js';
import { scopeOfPath, type Scope } from './context.js';

/** An extension directory that discovery could not load at all (missing or broken manifest). */
export interface InvalidExtension<S extends string = Scope | 'explicit'> {
  /** The manifest name when it could be read, else the directory name. */
  name: string;
  /** `explicit` for a path given on the command line. */
  scope: S;
  dir: string;
  diagnostic: DiscoveryDiagnostic;
}

/**
 * Error diagnostics that belong to no listed extension (`dirs`): each is an extension that did not
 * load. Errors inside a listed extension (a bad skills entry) are not. Those under an `explicit`
 * path (given on the command line) are labelled `explicit`.
 */
export function invalidExtensions(diagnostics: readonly { severity: string }[], dirs: readonly string[], roots: Record<Scope, string>): InvalidExtension<Scope>[];
export function invalidExtensions(
  diagnostics: readonly { severity: string }[],
  dirs: readonly string[],
  roots: Record<Scope, string>,
  explicit: readonly string[],
): InvalidExtension[];
export function invalidExtensions(
  diagnostics: readonly { severity: string }[],
  dirs: readonly string[],
  roots: Record<Scope, string>,
  explicit: readonly string[] = [],
): InvalidExtension[] {
  const out: InvalidExtension[] = [];
  const within = (p: string, dir: string) => p === dir || p.startsWith(dir + path.sep);
  for (const d of diagnostics as readonly DiscoveryDiagnostic[]) {
    if (d.severity !== 'error' || typeof d.path !== 'string' || dirs.some((dir) => within(d.path, dir))) continue;
    if (explicit.some((dir) => within(d.path, dir))) {
      const dir = path.basename(d.path) === 'extension.json' ? path.dirname(d.path) : d.path;
      out.push({ name: d.extension ?? path.basename(dir), scope: 'explicit', dir, diagnostic: d });
      continue;
    }
    const scope = scopeOfPath(roots, d.path) ?? 'global';
    const rel = path.relative(roots[scope], d.path);
    const inRoot = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
    const dir = inRoot ? path.join(roots[scope], rel.split(path.sep)[0]!) : path.basename(d.path) === 'extension.json' ? path.dirname(d.path) : d.path;
    out.push({ name: d.extension ?? path.basename(dir), scope, dir, diagnostic: d });
  }
  return out;
}
