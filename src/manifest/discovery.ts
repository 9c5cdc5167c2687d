import path from 'node:path';
import { dedup } from './dedup.js';
import { DiagnosticCode, type DiscoveryDiagnostic } from './diagnostics.js';
import type { DiscoveredExtension, DiscoveryResult } from './discovered.js';
import { execDiagnostics } from './exec.js';
import { locateExplicit, remoteSlot } from './explicit.js';
import { mapLimit, readWholeFile } from './fs-utils.js';
import { resolveHome } from './home.js';
import { parseJson } from './json.js';
import { MAX_MANIFEST_BYTES } from './limits.js';
import { looksLikeUrl } from './remote.js';
import { manifestIssues } from './manifest-issues.js';
import { plainManifest } from './plain-manifest.js';
import { locateRoot, NO_ROOT } from './root-scan.js';
import type { Manifest } from './schema.js';
import { resolveSkills } from './skills.js';
import { isTarget, problem, type Slot, type Target } from './slot.js';
import { findTheme } from './theme.js';
import { unreadable } from './unreadable.js';

export interface ManifestDiscoveryOptions {
  /** The user's project directory; the project root is `<cwd>/.<appName>/extensions`. Relative explicit paths resolve against it. */
  cwd: string;
  /** Names the `.<app>` project directory and the `$<APP>_HOME` variable. @default 'zot' */
  appName?: string | undefined;
  /** The app's home directory; the global root is `<home>/extensions`. @default resolveHome({ appName, env, platform, homedir }) */
  home?: string | undefined;
  /**
   * Extension directories (or paths to a manifest file), like `--ext`, or `ws://` / `wss://` URLs of
   * remote extensions (named by nameFromUrl()): loaded first, in this order, winning name conflicts. @default []
   */
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

export type { DiscoveredExtension, DiscoveryResult, ExtensionKind, ExtensionSource, ShadowingExtension } from './discovered.js';
export { isSpawnable } from './discovered.js';

type ManifestSchema = (typeof import('./schema.js'))['Manifest'];

/** finish(): this manifest's JSON is off the plain path; validate() checks it with the schema. */
class NeedsSchema {
  constructor(readonly value: unknown) {}
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
    this.explicit = (options.explicit ?? []).map((p) => (looksLikeUrl(p) ? p : path.resolve(this.cwd, p)));
    this.scansRoots = options.discover ?? true;
    this.checkExec = options.checkExec ?? false;
  }

  /** Reads every root (in parallel) and returns the ordered, deduplicated list. Never throws for bad input. */
  async discover(): Promise<DiscoveryResult> {
    const [explicit, project, global] = await Promise.all([
      Promise.all(this.explicit.map((p) => (looksLikeUrl(p) ? remoteSlot(p, this.cwd) : locateExplicit(p)))),
      this.scansRoots ? locateRoot(this.projectRoot, 'project') : NO_ROOT,
      this.scansRoots ? locateRoot(this.globalRoot, 'global') : NO_ROOT,
    ]);
    // Home inside the project (e.g. ZOT_HOME=<cwd>/.zot): one directory, not two roots.
    const sameRoot = project.real !== undefined && project.real === global.real;
    const slots = await this.load([...explicit, ...project.items, ...(sameRoot ? [] : global.items)]);
    const result = dedup(slots);
    const failed: ExplicitFailure[] = [];
    for (let i = 0; i < explicit.length; i++) {
      const errors = slots[i]!.extension === undefined ? slots[i]!.diagnostics.filter((d) => d.severity === 'error') : [];
      if (errors.length > 0) failed.push({ entry: this.explicit[i]!, diagnostics: errors });
    }
    if (failed.length > 0) explicitFailed.set(result, failed);
    return result;
  }

  /**
   * Reads every manifest first, all in flight at once, and only then parses them in one tight loop:
   * interleaving parsing with I/O completions slows the reads down more than the parsing costs.
   * The schema (and zod) loads only when a manifest is not in its plain valid shape (plain-manifest.ts).
   */
  private async load(located: readonly (Target | Slot)[]): Promise<Slot[]> {
    const targets = located.filter(isTarget);
    const data = await mapLimit(targets, CONCURRENCY, (t) => readWholeFile(t.manifestPath).catch((err: unknown) => new ReadFailure(err)));
    const read = new Map(targets.map((t, i) => [t, data[i] as Buffer | ReadFailure]));
    const slots = located.map((item) => (isTarget(item) ? this.finish(item, read.get(item)!) : item));
    if (!slots.some((slot) => slot instanceof NeedsSchema)) return Promise.all(slots as (Slot | Promise<Slot>)[]);
    const { Manifest } = await import('./schema.js');
    return Promise.all(slots.map((slot, i) => (slot instanceof NeedsSchema ? this.validate(located[i] as Target, slot.value, Manifest) : slot)));
  }

  /** Parses one read manifest; synchronous unless skills, a theme lookup or an exec check is needed. */
  private finish(target: Target, data: Buffer | ReadFailure): Slot | Promise<Slot> | NeedsSchema {
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
    const manifest = plainManifest(json.value);
    return manifest === undefined ? new NeedsSchema(json.value) : this.slotOf(target, manifest);
  }

  /** A manifest off the plain path, checked by the schema (its JSON parsed once, by finish()). */
  private validate(target: Target, value: unknown, Manifest: ManifestSchema): Slot | Promise<Slot> {
    const parsed = Manifest.safeParse(value);
    if (!parsed.success) return { diagnostics: manifestIssues(parsed.error.issues, value, target.manifestPath) };
    return this.slotOf(target, parsed.data);
  }

  /** The slot of a valid manifest. */
  private slotOf(target: Target, manifest: Manifest): Slot | Promise<Slot> {
    const { dir, source, manifestPath } = target;
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
        order: -1, // set by dedup()
      },
      diagnostics: [],
    };
    const hasSkills = manifest.skills !== undefined && manifest.skills.length > 0;
    if ((manifest.exec !== undefined || manifest.url !== undefined || manifest.mcp !== undefined) && !hasSkills && !this.checkExec) return slot;
    return this.complete(slot, manifest);
  }

  /** The asynchronous rest: kind of a bundle without exec (theme lookup), exec check, skills. */
  private async complete(slot: Slot, manifest: Manifest): Promise<Slot> {
    const ext = slot.extension as DiscoveredExtension;
    const { dir, manifestPath, name } = ext;
    if (manifest.exec === undefined && manifest.url === undefined && manifest.mcp === undefined) {
      // Only bundles without exec are looked at for a theme: it decides whether they are valid at all.
      ext.themePath = await findTheme(dir);
      if ((manifest.skills?.length ?? 0) > 0) ext.kind = 'skills';
      else if (ext.themePath !== undefined) ext.kind = 'theme';
      else {
        return problem(
          DiagnosticCode.EXEC_MISSING,
          'error',
          `${manifestPath}: "exec" is required (the program to run, relative to the manifest) , "url" (a remote extension) or "mcp" (an MCP server), unless the extension ships theme.json, themes/theme.json or a "skills" list`,
          manifestPath,
          name,
        );
      }
    } else if (this.checkExec && manifest.exec !== undefined) {
      slot.diagnostics.push(...(await execDiagnostics(manifest.exec, dir, manifestPath, name)));
    }
    if (manifest.skills !== undefined && manifest.skills.length > 0) {
      const found = await resolveSkills(dir, manifest.skills, manifestPath, name);
      ext.skills = found.skills;
      slot.diagnostics.push(...found.diagnostics);
    }
    return slot;
  }
}

/** An explicit entry that could not be loaded (it does not exist, or its manifest is invalid). */
export interface ExplicitFailure {
  /** The entry, absolute (or the URL as given). */
  entry: string;
  /** Discovery's error diagnostics about it (also in the result's `diagnostics`). */
  diagnostics: DiscoveryDiagnostic[];
}

// Internal (the host's report.failed): kept beside a result rather than in it, so that
// DiscoveryResult stays { extensions, diagnostics }.
const explicitFailed = new WeakMap<DiscoveryResult, ExplicitFailure[]>();

/** Internal: the explicit entries of `result` that could not be loaded, in the order given. */
export function explicitFailures(result: DiscoveryResult): readonly ExplicitFailure[] {
  return explicitFailed.get(result) ?? [];
}

class ReadFailure {
  constructor(readonly error: unknown) {}
}
