import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = path.join(ROOT, 'fixtures');

/** Absolute directory of a fixture, e.g. fixture('extensions/kitchen'). */
export function fixture(relative: string): string {
  return path.join(FIXTURES, relative);
}

/** A temp directory (in `parent`, created if need be) removed by the returned cleanup. */
export function tempDir(prefix = 'zot-ext-test-', parent = tmpdir()): { dir: string; cleanup: () => void } {
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(path.join(parent, prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Temp directories made on demand, as real paths (unlike `tempDir`); `cleanup()` removes everything it made. */
export function tempDirs(): { make: (prefix?: string) => Promise<string>; cleanup: () => Promise<void> } {
  const made: string[] = [];
  return {
    async make(prefix = 'zot-discovery-') {
      // Real path: discovery reports real paths, and the temp dir may sit behind a symlink.
      const dir = await realpath(await mkdtemp(path.join(tmpdir(), prefix)));
      made.push(dir);
      return dir;
    },
    async cleanup() {
      await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
    },
  };
}

/** Parses a JSON file. */
export const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

/** Rewrites a parsed extension.json. */
export type ManifestEdit = (manifest: Record<string, unknown>) => Record<string, unknown>;

/** Copies fixture `relative` to `to` (returned); with `edit`, its extension.json is rewritten (2-space JSON). */
export function copyFixture(relative: string, to: string, edit?: ManifestEdit): string {
  cpSync(fixture(relative), to, { recursive: true });
  if (edit !== undefined) {
    const file = path.join(to, 'extension.json');
    writeFileSync(file, JSON.stringify(edit(readJson(file) as Record<string, unknown>), null, 2));
  }
  return to;
}
