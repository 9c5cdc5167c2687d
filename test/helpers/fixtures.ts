import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = path.join(ROOT, 'fixtures');

/** Absolute directory of a fixture, e.g. fixture('extensions/kitchen'). */
export function fixture(relative: string): string {
  return path.join(FIXTURES, relative);
}

/** A temp directory removed by the returned cleanup. */
export function tempDir(prefix = 'zot-ext-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
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
