// Finds an installed extension by manifest name, for remove / enable / disable.
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { MANIFEST_FILE, type DiscoveredExtension } from '../manifest/index.js';
import { nameKey } from '../manifest/limits.js';
import { discoveryFor, realRoots, type CommandContext, type Scope } from './context.js';
import { CliError, CliErrorCode } from './errors.js';

export interface Installed {
  name: string;
  scope: Scope;
  /** The extensions root of the scope, as discovery names it (`<home>/extensions`, `<cwd>/.zot/extensions`). */
  root: string;
  /** The entry in the scope's root: the directory, or a symlink to it. */
  entry: string;
  /** True when `entry` is a symlink (remove unlinks it and keeps the target). */
  isLink: boolean;
  /** Real directory of the extension. */
  dir: string;
  manifestPath: string;
  /** Undefined when the manifest is broken and the extension was found by its directory name. */
  extension: DiscoveredExtension | undefined;
}

/**
 * The installed extension named `name` (its manifest name; for a broken manifest, its directory
 * name). With `scope` undefined, a name installed in both scopes is refused as AMBIGUOUS.
 */
export async function findInstalled(ctx: CommandContext, name: string, scope: Scope | undefined): Promise<Installed> {
  refusePathLike(name);
  const discovery = discoveryFor(ctx);
  const [{ extensions }, roots] = await Promise.all([discovery.discover(), realRoots(discovery)]);
  const rootOf: Record<Scope, string> = { project: discovery.projectRoot, global: discovery.globalRoot };

  let found: Installed[] = [];
  for (const ext of extensions) {
    if (ext.name !== name || ext.source === 'explicit') continue;
    const s = ext.source;
    const entry = (await entryFor(rootOf[s], ext.dir)) ?? { entry: ext.dir, isLink: false };
    found.push({ name, scope: s, root: rootOf[s], ...entry, dir: ext.dir, manifestPath: ext.manifestPath, extension: ext });
  }
  if (found.length === 0) found = await byDirectoryName(name, rootOf, roots, extensions);

  const wanted = scope === undefined ? found : found.filter((f) => f.scope === scope);
  if (wanted.length === 0) {
    const where = scope === undefined ? `${rootOf.project} or ${rootOf.global}` : `the ${scope} scope (${rootOf[scope]})`;
    const elsewhere = scope !== undefined && found.length > 0 ? `; it is installed in the ${found[0]!.scope} scope` : '';
    const similar = closest(name, extensions.filter((e) => e.source !== 'explicit'));
    const hint = similar !== undefined ? `; did you mean "${similar.name}"?` : '; run zot-ext list to see the installed names';
    throw new CliError(CliErrorCode.NOT_FOUND, `no extension named "${name}" in ${where}${elsewhere}${elsewhere === '' ? hint : ''}`);
  }
  const scopes = new Set(wanted.map((f) => f.scope));
  if (scopes.size > 1) {
    const [p, g] = [wanted.find((f) => f.scope === 'project')!, wanted.find((f) => f.scope === 'global')!];
    throw new CliError(
      CliErrorCode.AMBIGUOUS,
      `"${name}" is installed in both scopes (project: ${p.entry}, global: ${g.entry}); add --project or --global to pick one`,
    );
  }
  if (wanted.length > 1) {
    throw new CliError(
      CliErrorCode.FAILED,
      `two ${wanted[0]!.scope} extensions are named "${name}" (${wanted.map((f) => f.entry).join(', ')}); rename or delete one of them by hand`,
    );
  }
  return wanted[0]!;
}

/**
 * The installed extension whose name is nearest to a misspelt `name`: the same under the identity
 * rule (case, NFC), else within an edit distance of 2 (1 for names of up to 4 characters).
 */
function closest(name: string, extensions: readonly DiscoveredExtension[]): DiscoveredExtension | undefined {
  const key = nameKey(name);
  const limit = [...key].length <= 4 ? 1 : 2;
  let best: { ext: DiscoveredExtension; distance: number } | undefined;
  for (const ext of extensions) {
    const distance = editDistance(key, nameKey(ext.name));
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { ext, distance };
  }
  return best?.ext;
}

/** Levenshtein distance (insertions, deletions, substitutions), by code point. */
function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[y.length]!;
}

/**
 * A name, never a path: `remove ""` once resolved to the extensions root itself. Refused as a usage
 * error before anything is looked up.
 */
function refusePathLike(name: string): void {
  const why =
    name === '' ? 'it is empty'
    : name === '.' || name === '..' ? `it names a directory, not an extension`
    : name.includes('/') || name.includes('\\') || path.isAbsolute(name) ? 'it is a path'
    : undefined;
  if (why === undefined) return;
  throw new CliError(CliErrorCode.USAGE, `${JSON.stringify(name)} is not an extension name (${why}); give the name that zot-ext list shows`);
}

/** The root entry (directory or symlink) whose real path is `dir`. */
export async function entryFor(root: string, dir: string): Promise<{ entry: string; isLink: boolean } | undefined> {
  const direct = path.join(root, path.basename(dir));
  const candidates = [direct, ...(await readdir(root).catch(() => [] as string[])).map((n) => path.join(root, n))];
  for (const candidate of candidates) {
    const real = await realpath(candidate).catch(() => undefined);
    if (real !== dir) continue;
    const info = await lstat(candidate);
    return { entry: candidate, isLink: info.isSymbolicLink() };
  }
  return undefined;
}

/** `<root>/<name>` in each scope, when no valid manifest claims that directory. */
async function byDirectoryName(
  name: string,
  rootOf: Record<Scope, string>,
  roots: Record<Scope, string>,
  extensions: readonly DiscoveredExtension[],
): Promise<Installed[]> {
  if (name.startsWith('.')) return [];
  const out: Installed[] = [];
  for (const s of ['project', 'global'] as const) {
    if (s === 'global' && roots.global === roots.project) continue;
    const entry = path.join(rootOf[s], name);
    const info = await lstat(entry).catch(() => undefined);
    // Only a directory (or a link to one) is an extension; a stray file in the root is not.
    if (info === undefined || !(await stat(entry).then((i) => i.isDirectory(), () => info.isSymbolicLink()))) continue;
    const dir = await realpath(entry).catch(() => entry);
    if (extensions.some((e) => e.dir === dir)) continue;
    out.push({ name, scope: s, root: rootOf[s], entry, isLink: info.isSymbolicLink(), dir, manifestPath: path.join(dir, MANIFEST_FILE), extension: undefined });
  }
  return out;
}
