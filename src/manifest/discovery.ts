import type { Dirent } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { DiagnosticCode, type DiagnosticSeverity, type DiscoveryDiagnostic } from './diagnostics.js';
import { describeFsError, errnoCode, mapLimit, readWholeFile, sortByBytes } from './fs-utils.js';
import { resolveExec } from '../protocol/exec-path.js';
import { resolveHome } from './home.js';
import { parseJson } from './json.js';
import { MANIFEST_FILE, MAX_MANIFEST_BYTES } from './limits.js';
import type { Manifest } from './schema.js';
import { resolveSkills, type SkillInfo } from './skills.js';

export interface ManifestDiscoveryOptions {
  /** The user's project directory; the project root is `<cwd>/.<appName>/extensions`. Relative explicit paths resolve against it. */
  cwd: string;
  /** Names the `.<app>` project directory and the `$<APP>_HOME` variable. @default 'zot' */
  appName?: string | undefined;
  /** The app's home directory; the global root is `<home>/extensions`. @default resolveHome({ appName, env, platform, homedir }) */
  home?: string | undefined;
  /** Extension directories (or paths to a manifest file), like `--ext`: loaded first, in this order, winning name conflicts. @default [] */
  explicit?: readonly string[] | undefined;
  /** Scan the project and global roots; `false` loads the explicit paths only. @default true */
  discover?: boolean | undefined;
  /** Environment used for home resolution. @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
  /** Platform whose home rules apply. @default process.platform */
  platform?: NodeJS.Platform | undefined;
  /** The user's home directory, for home resolution. @default os.homedir() */
  homedir?: string | undefined;
  /**
   * Also stat each path-like `exec` and report EXEC_NOT_FOUND / EXEC_NOT_EXECUTABLE. Off by default:
   * it costs a stat per extension, and spawning reports the same problem anyway. `zot-ext doctor`
   * turns it on. @default false
   */
  checkExec?: boolean | undefined;
}

/** Where an extension was found; also its precedence (explicit beats project beats global). */
export type ExtensionSource = 'explicit' | 'project' | 'global';

/** `process` is spawned; `skills` and `theme` bundles never are. */
export type ExtensionKind = 'process' | 'skills' | 'theme';

/** The extension that wins over a shadowed one. */
export interface ShadowingExtension {
  name: string;
  dir: string;
  source: ExtensionSource;
}

/** One extension with a valid manifest, as discovery found it. */
export interface DiscoveredExtension {
  /** The manifest name: unique key, log name, must match the `hello` frame. */
  name: string;
  /** Real absolute path of the extension directory (symlinks resolved). */
  dir: string;
  /** Absolute path of the manifest file. */
  manifestPath: string;
  source: ExtensionSource;
  /** `process` when the manifest has `exec`; else `skills` when it lists skills; else `theme`. */
  kind: ExtensionKind;
  /** The manifest's `enabled` (default true). Disabled extensions are listed, not spawned. */
  enabled: boolean;
  /** Set when an earlier extension has the same name; this one is never spawned. */
  shadowedBy?: ShadowingExtension | undefined;
  /** The parsed manifest, unknown fields included. */
  manifest: Manifest;
  /** The skills the extension ships (see `skills` in the manifest). */
  skills: SkillInfo[];
  /** `theme.json` or `themes/theme.json`, when the extension ships one. */
  themePath?: string | undefined;
  /** Position in load order among all listed extensions (0-based; equals the array index). */
  order: number;
}

export interface DiscoveryResult {
  /** Every extension with a valid manifest, in load order, disabled and shadowed ones included. */
  extensions: DiscoveredExtension[];
  /** Every problem found, in load order of what it concerns. */
  diagnostics: DiscoveryDiagnostic[];
}

/** True for the extensions a host spawns: process kind, enabled, not shadowed. */
export function isSpawnable(extension: DiscoveredExtension): boolean {
  return extension.kind === 'process' && extension.enabled && extension.shadowedBy === undefined;
}

type ManifestSchema = (typeof import('./schema.js'))['Manifest'];

/** The outcome for one directory (or explicit path), in load order. */
interface Slot {
  /** Not shared: merge() fills in `order` and `shadowedBy`. */
  extension?: DiscoveredExtension | undefined;
  diagnostics: DiscoveryDiagnostic[];
}

// Bounds open file descriptors on huge roots. Below it everything is in flight at once, which is
// measurably faster than any queue (and Node raises RLIMIT_NOFILE to the hard limit at startup).
const CONCURRENCY = 1024;

/**
 * Finds, validates and orders extensions: the explicit paths in the order given, then
 * `<cwd>/.<app>/extensions/*`, then `<home>/extensions/*`, each root in byte order of directory
 * names. Spawns nothing. Bad input never throws: it becomes a diagnostic and discovery goes on.
 */
export class ManifestDiscovery {
  /** Absolute project directory. */
  readonly cwd: string;
  readonly appName: string;
  /** The resolved home directory. */
  readonly home: string;
  /** `<cwd>/.<app>/extensions` */
  readonly projectRoot: string;
  /** `<home>/extensions` */
  readonly globalRoot: string;
  /** The explicit paths, absolute, in load order. */
  readonly explicit: readonly string[];
  /** Whether the project and global roots are scanned. */
  readonly scansRoots: boolean;
  /** Whether path-like `exec` values are checked on disk. */
  readonly checkExec: boolean;

  constructor(options: ManifestDiscoveryOptions) {
    this.cwd = path.resolve(options.cwd);
    this.appName = options.appName ?? 'zot';
    this.home =
      options.home ??
      resolveHome({
        appName: this.appName,
        env: options.env,
        platform: options.platform,
        homedir: options.homedir,
      });
    this.projectRoot = path.join(this.cwd, `.${this.appName}`, 'extensions');
    this.globalRoot = path.join(this.home, 'extensions');
    this.explicit = (options.explicit ?? []).map((p) => path.resolve(this.cwd, p));
    this.scansRoots = options.discover ?? true;
    this.checkExec = options.checkExec ?? false;
  }

  /** Reads every root (in parallel) and returns the ordered, deduplicated list. Never throws for bad input. */
  async discover(): Promise<DiscoveryResult> {
    const [explicit, project, global] = await Promise.all([
      Promise.all(this.explicit.map(locateExplicit)),
      this.scansRoots ? locateRoot(this.projectRoot, 'project') : NO_ROOT,
      this.scansRoots ? locateRoot(this.globalRoot, 'global') : NO_ROOT,
    ]);
    // Home inside the project (e.g. ZOT_HOME=<cwd>/.zot): one directory, not two roots.
    const sameRoot = project.real !== undefined && project.real === global.real;
    return merge(await this.load([...explicit, ...project.items, ...(sameRoot ? [] : global.items)]));
  }

  /**
   * Reads every manifest first, all in flight at once, and only then parses them in one tight loop:
   * interleaving parsing with I/O completions slows the reads down more than the parsing costs.
   */
  private async load(located: readonly (Target | Slot)[]): Promise<Slot[]> {
    const targets = located.filter(isTarget);
    // The schema (and zod) is loaded on first use, while the manifests are read.
    const [data, { Manifest }] = await Promise.all([
      mapLimit(targets, CONCURRENCY, (t) => readWholeFile(t.manifestPath).catch((err: unknown) => new ReadFailure(err))),
      targets.length > 0 ? import('./schema.js') : { Manifest: undefined },
    ]);
    let next = 0;
    return Promise.all(located.map((item) => (isTarget(item) ? this.finish(item, data[next++] as Buffer | ReadFailure, Manifest!) : item)));
  }

  /** Validates one read manifest; synchronous unless skills, a theme lookup or an exec check is needed. */
  private finish(target: Target, data: Buffer | ReadFailure, Manifest: ManifestSchema): Slot | Promise<Slot> {
    const { dir, file, source, manifestPath } = target;
    if (data instanceof ReadFailure) return unreadable(dir, file, source, data.error);
    if (data.length > MAX_MANIFEST_BYTES) {
      return problem(
        DiagnosticCode.MANIFEST_TOO_LARGE,
        'error',
        `${manifestPath} is larger than ${MAX_MANIFEST_BYTES} bytes; a manifest is a few lines of JSON`,
        manifestPath,
      );
    }
    const json = parseJson(data.toString('utf8'));
    if (!json.ok) {
      return {
        diagnostics: [
          {
            code: DiagnosticCode.MANIFEST_INVALID_JSON,
            severity: 'error',
            message: `${manifestPath}:${json.line}:${json.column}: invalid JSON: ${json.message}`,
            path: manifestPath,
            line: json.line,
            column: json.column,
          },
        ],
      };
    }
    const parsed = Manifest.safeParse(json.value);
    if (!parsed.success) return { diagnostics: manifestIssues(parsed.error.issues, json.value, manifestPath) };
    const manifest = parsed.data;
    const slot: Slot = {
      extension: {
        name: manifest.name,
        dir,
        manifestPath,
        source,
        kind: 'process',
        enabled: manifest.enabled,
        shadowedBy: undefined,
        manifest,
        skills: [],
        themePath: undefined,
        order: -1, // set by merge()
      },
      diagnostics: [],
    };
    const hasSkills = manifest.skills !== undefined && manifest.skills.length > 0;
    if (manifest.exec !== undefined && !hasSkills && !this.checkExec) return slot;
    return this.complete(slot, manifest);
  }

  /** The asynchronous rest: kind of a bundle without exec (theme lookup), exec check, skills. */
  private async complete(slot: Slot, manifest: Manifest): Promise<Slot> {
    const ext = slot.extension as DiscoveredExtension;
    const { dir, manifestPath, name } = ext;
    if (manifest.exec === undefined) {
      // Only bundles without exec are looked at for a theme: it decides whether they are valid at all.
      ext.themePath = await findTheme(dir);
      if ((manifest.skills?.length ?? 0) > 0) ext.kind = 'skills';
      else if (ext.themePath !== undefined) ext.kind = 'theme';
      else {
        return problem(
          DiagnosticCode.EXEC_MISSING,
          'error',
          `${manifestPath}: "exec" is required (the program to run, relative to the manifest), unless the extension ships theme.json, themes/theme.json or a "skills" list`,
          manifestPath,
          name,
        );
      }
    } else if (this.checkExec) {
      slot.diagnostics.push(...(await checkExec(manifest.exec, dir, manifestPath, name)));
    }
    if (manifest.skills !== undefined && manifest.skills.length > 0) {
      const found = await resolveSkills(dir, manifest.skills, manifestPath, name);
      ext.skills = found.skills;
      slot.diagnostics.push(...found.diagnostics);
    }
    return slot;
  }
}

/** A manifest to read. */
interface Target {
  dir: string;
  file: string;
  manifestPath: string;
  source: ExtensionSource;
}

const isTarget = (item: Target | Slot): item is Target => !('diagnostics' in item);

const target = (dir: string, file: string, source: ExtensionSource): Target => ({
  dir,
  file,
  manifestPath: path.join(dir, file),
  source,
});

class ReadFailure {
  constructor(readonly error: unknown) {}
}

const NO_ROOT = { real: undefined, items: [] } as const;

/** The extension directories of one root (byte order), or why the root cannot be read. */
async function locateRoot(
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

/** An explicit path: an extension directory, or a manifest file of any name. */
async function locateExplicit(given: string): Promise<Target | Slot> {
  const link = await followLink(given);
  if ('slot' in link) return link.slot;
  if (link.isDir) return target(link.real, MANIFEST_FILE, 'explicit');
  return target(path.dirname(link.real), path.basename(link.real), 'explicit');
}

function problem(
  code: DiagnosticCode,
  severity: DiagnosticSeverity,
  message: string,
  at: string,
  extension?: string,
): Slot {
  return { diagnostics: [{ code, severity, message, path: at, extension }] };
}

/** Resolves a root entry or explicit path through symlinks; failures come back as a diagnostic slot. */
async function followLink(given: string): Promise<{ real: string; isDir: boolean } | { slot: Slot }> {
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

/** `theme.json`, else `themes/theme.json`, when it is a file. */
async function findTheme(dir: string): Promise<string | undefined> {
  for (const candidate of [path.join(dir, 'theme.json'), path.join(dir, 'themes', 'theme.json')]) {
    const isFile = await stat(candidate).then(
      (s) => s.isFile(),
      () => false,
    );
    if (isFile) return candidate;
  }
  return undefined;
}

/** Why `<dir>/<file>` could not be read, told apart by listing the directory (error path only). */
async function unreadable(dir: string, file: string, source: ExtensionSource, err: unknown): Promise<Slot> {
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

/**
 * Checks a path-like `exec` (absolute, or containing a separator: relative to the manifest). A bare
 * name is looked up on PATH at spawn time and not checked here.
 */
async function checkExec(exec: string, dir: string, manifestPath: string, name: string): Promise<DiscoveryDiagnostic[]> {
  const { command, onPath } = resolveExec(exec, dir);
  if (onPath) return [];
  const report = (code: DiagnosticCode, message: string): DiscoveryDiagnostic[] => [
    { code, severity: 'warning', message, path: command, extension: name },
  ];
  try {
    const info = await stat(command);
    if (!info.isFile()) {
      return report(
        DiagnosticCode.EXEC_NOT_EXECUTABLE,
        `${manifestPath}: exec ${JSON.stringify(exec)} is ${info.isDirectory() ? 'a directory' : 'not a regular file'} (${command}); point it at the program`,
      );
    }
    if (process.platform !== 'win32' && (info.mode & 0o111) === 0) {
      return report(
        DiagnosticCode.EXEC_NOT_EXECUTABLE,
        `${manifestPath}: exec ${JSON.stringify(exec)} is not executable; run chmod +x ${command}`,
      );
    }
    return [];
  } catch (err) {
    return report(
      DiagnosticCode.EXEC_NOT_FOUND,
      `${manifestPath}: exec ${JSON.stringify(exec)} ${errnoCode(err) === 'ENOENT' ? 'was not found' : describeFsError(err)} at ${command}; build it, or fix "exec" (it is relative to the manifest)`,
    );
  }
}

/** Turns schema issues into diagnostics: unsafe names apart (NAME_UNSAFE), the rest in one MANIFEST_INVALID. */
function manifestIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string; code: string; params?: unknown }[],
  value: unknown,
  manifestPath: string,
): DiscoveryDiagnostic[] {
  const rawName = (value as { name?: unknown } | null)?.name;
  const unsafe = issues.filter(
    (i) => i.code === 'custom' && (i.params as { unsafeName?: boolean } | undefined)?.unsafeName === true,
  );
  const nameOk = typeof rawName === 'string' && unsafe.length === 0;
  const extension = nameOk ? rawName : undefined;
  const out: DiscoveryDiagnostic[] = unsafe.map((i) => ({
    code: DiagnosticCode.NAME_UNSAFE,
    severity: 'error',
    message: `${manifestPath}: ${i.message}; use a short name of letters, digits, "-", "_" or "."`,
    path: manifestPath,
  }));
  const rest = issues.filter((i) => !unsafe.includes(i));
  if (rest.length > 0) {
    const lines = rest.map((i) => describeIssue(i, value));
    out.push({
      code: DiagnosticCode.MANIFEST_INVALID,
      severity: 'error',
      message: `${manifestPath}: ${lines.join('; ')}`,
      path: manifestPath,
      extension,
    });
  }
  return out;
}

const EXPECTED: Record<string, string> = {
  name: 'a string',
  version: 'a string',
  exec: 'a string (path to the program)',
  args: 'an array of strings',
  language: 'a string',
  description: 'a string',
  skills: 'an array of paths (strings)',
  enabled: 'true or false',
};

function describeIssue(issue: { path: readonly PropertyKey[]; message: string; code: string }, value: unknown): string {
  if (issue.path.length === 0) {
    return `the manifest must be a JSON object, got ${kindOf(value)}`;
  }
  const [field, ...rest] = issue.path;
  const key = String(field);
  const where = `"${key}"${rest.map((p) => `[${String(p)}]`).join('')}`;
  const actual = issue.path.reduce<unknown>(
    (v, p) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined),
    value,
  );
  if (issue.code === 'invalid_type') {
    if (actual === undefined) return `${where} is required (${EXPECTED[key] ?? 'see docs/discovery.md'})`;
    const expected = rest.length > 0 ? 'a string' : (EXPECTED[key] ?? 'another type');
    return `${where} must be ${expected}, got ${kindOf(actual)}`;
  }
  return `${where}: ${issue.message}`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

/** Orders slots into the result: dedup by name, first wins; the rest are listed as shadowed. */
function merge(slots: readonly Slot[]): DiscoveryResult {
  const extensions: DiscoveredExtension[] = [];
  const diagnostics: DiscoveryDiagnostic[] = [];
  const winners = new Map<string, DiscoveredExtension>();
  for (const slot of slots) {
    diagnostics.push(...slot.diagnostics);
    if (slot.extension === undefined) continue;
    const ext = slot.extension;
    ext.order = extensions.length;
    const winner = winners.get(ext.name);
    if (winner === undefined) {
      winners.set(ext.name, ext);
    } else {
      ext.shadowedBy = { name: winner.name, dir: winner.dir, source: winner.source };
      const same = winner.source === ext.source;
      diagnostics.push({
        code: same ? DiagnosticCode.DUPLICATE_NAME : DiagnosticCode.SHADOWED,
        severity: 'warning',
        message: same
          ? `two ${ext.source} extensions are named "${ext.name}": ${winner.dir} is loaded, ${ext.dir} is ignored; change "name" in one of their extension.json files`
          : `${ext.source} extension "${ext.name}" in ${ext.dir} is shadowed by the ${winner.source} one in ${winner.dir} and will not be spawned; remove or rename one of them if that is not intended`,
        path: ext.manifestPath,
        extension: ext.name,
      });
    }
    extensions.push(ext);
  }
  return { extensions, diagnostics };
}
