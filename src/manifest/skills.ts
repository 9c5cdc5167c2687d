import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { DiagnosticCode, type DiscoveryDiagnostic } from './diagnostics.js';
import { parseFrontMatter } from './frontmatter.js';
import { compareCodePoints, describeFsError, isInside, readWholeFile, sortByBytes } from './fs-utils.js';

/** One skill an extension ships. */
export interface SkillInfo {
  /** Real absolute path of the skill file (normally `SKILL.md`). */
  path: string;
  /** `name` from the file's front matter, when present. */
  name?: string | undefined;
  /** `description` from the file's front matter, when present. */
  description?: string | undefined;
}

/** The file looked for when a `skills` entry is a directory. */
export const SKILL_FILE = 'SKILL.md';

interface Context {
  dir: string;
  manifestPath: string;
  extension: string;
  diagnostics: DiscoveryDiagnostic[];
}

/**
 * Resolves an extension's `skills` entries, relative to its (real) directory. A directory is
 * scanned recursively for `SKILL.md` (skipping dot-directories and `node_modules`); a file is taken
 * as the skill itself. Anything resolving outside the directory, lexically or through a symlink, is
 * refused. Skills come in entry order, each entry's in byte order of path, without duplicates.
 */
export async function resolveSkills(
  dir: string,
  entries: readonly string[],
  manifestPath: string,
  extension: string,
): Promise<{ skills: SkillInfo[]; diagnostics: DiscoveryDiagnostic[] }> {
  const perEntry = await Promise.all(
    entries.map(async (entry) => {
      const ctx: Context = { dir, manifestPath, extension, diagnostics: [] };
      const files = await resolveEntry(ctx, entry);
      // Scans run in parallel; sorting keeps the report independent of timing.
      return { files, diagnostics: ctx.diagnostics.sort((a, b) => compareCodePoints(a.path, b.path)) };
    }),
  );
  const seen = new Set<string>();
  const files = perEntry.flatMap((e) => e.files).filter((file) => !seen.has(file) && seen.add(file));
  const skills = await Promise.all(files.map(readSkill));
  return { skills, diagnostics: perEntry.flatMap((e) => e.diagnostics) };
}

async function resolveEntry(ctx: Context, entry: string): Promise<string[]> {
  const report = (code: DiagnosticCode, message: string, at = ctx.manifestPath): void => {
    ctx.diagnostics.push({ code, severity: 'error', message, path: at, extension: ctx.extension });
  };
  const target = path.resolve(ctx.dir, entry);
  const shown = JSON.stringify(entry);
  if (!isInside(ctx.dir, target)) {
    report(
      DiagnosticCode.SKILL_PATH_ESCAPES,
      `skills entry ${shown} resolves to ${target}, outside the extension directory ${ctx.dir}; move the skill inside the extension and use a relative path`,
    );
    return [];
  }
  let real: string;
  try {
    real = await realpath(target);
  } catch (err) {
    report(
      DiagnosticCode.SKILL_PATH_MISSING,
      `skills entry ${shown}: ${target} ${describeFsError(err)}; fix the path in extension.json (it is relative to the manifest) or remove the entry`,
      target,
    );
    return [];
  }
  if (!isInside(ctx.dir, real)) {
    report(
      DiagnosticCode.SKILL_PATH_ESCAPES,
      `skills entry ${shown} is a symlink to ${real}, outside the extension directory ${ctx.dir}; copy the skill into the extension instead of linking it`,
      target,
    );
    return [];
  }
  let isDir: boolean;
  try {
    isDir = (await stat(real)).isDirectory();
  } catch (err) {
    report(DiagnosticCode.SKILL_PATH_MISSING, `skills entry ${shown}: ${real} ${describeFsError(err)}`, target);
    return [];
  }
  if (!isDir) return [real];

  const found = sortByBytes(await scan(ctx, real, new Set([real])), (f) => f);
  if (found.length === 0) {
    ctx.diagnostics.push({
      code: DiagnosticCode.SKILL_NOT_FOUND,
      severity: 'warning',
      message: `skills entry ${shown}: no ${SKILL_FILE} found under ${real}; add one (or remove the entry)`,
      path: real,
      extension: ctx.extension,
    });
  }
  return found;
}

/** All SKILL.md files below `dir` (real path); `visited` holds real directories already scanned. */
async function scan(ctx: Context, dir: string, visited: Set<string>): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    ctx.diagnostics.push({
      code: DiagnosticCode.SKILL_PATH_MISSING,
      severity: 'warning',
      message: `cannot scan ${dir} for skills: it ${describeFsError(err)}`,
      path: dir,
      extension: ctx.extension,
    });
    return [];
  }
  const nested = await Promise.all(
    entries.map(async (entry): Promise<string[]> => {
      const full = path.join(dir, entry.name);
      if (entry.isFile()) return entry.name === SKILL_FILE ? [full] : [];
      if (entry.name.startsWith('.') || entry.name === 'node_modules') return [];
      if (entry.isDirectory()) {
        visited.add(full);
        return scan(ctx, full, visited);
      }
      if (!entry.isSymbolicLink()) return [];
      return followLink(ctx, full, entry.name, visited);
    }),
  );
  return nested.flat();
}

async function followLink(ctx: Context, link: string, name: string, visited: Set<string>): Promise<string[]> {
  let real: string;
  let isDir: boolean;
  try {
    real = await realpath(link);
    isDir = (await stat(real)).isDirectory();
  } catch (err) {
    ctx.diagnostics.push({
      code: DiagnosticCode.SKILL_PATH_MISSING,
      severity: 'warning',
      message: `symlink ${link} in a skills directory ${describeFsError(err)}; fix or remove the link`,
      path: link,
      extension: ctx.extension,
    });
    return [];
  }
  if (!isDir && name !== SKILL_FILE) return [];
  if (!isInside(ctx.dir, real)) {
    ctx.diagnostics.push({
      code: DiagnosticCode.SKILL_PATH_ESCAPES,
      severity: 'error',
      message: `symlink ${link} points to ${real}, outside the extension directory ${ctx.dir}; it is ignored (copy the skill into the extension instead)`,
      path: link,
      extension: ctx.extension,
    });
    return [];
  }
  if (!isDir) return [real];
  // A link back into an already scanned directory would loop (or list skills twice).
  if (visited.has(real)) return [];
  visited.add(real);
  return scan(ctx, real, visited);
}

async function readSkill(file: string): Promise<SkillInfo> {
  try {
    const meta = parseFrontMatter((await readWholeFile(file)).toString('utf8'));
    return { path: file, name: meta['name'], description: meta['description'] };
  } catch {
    // Unreadable skill file: still listed, without metadata; loading it will report the error.
    return { path: file };
  }
}
