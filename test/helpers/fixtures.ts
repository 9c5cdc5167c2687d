import { mkdtempSync, rmSync } from 'node:fs';
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
