// Builds real directory trees for discovery tests.
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A file's content: a string is written as is, anything else as JSON. `{ link }` makes a symlink. */
export type Entry = string | { link: string } | { mode: number; content: string } | Record<string, unknown>;

/** Writes `files` (paths relative to `base`, parents created) and returns `base`. */
export async function tree(base: string, files: Record<string, Entry>): Promise<string> {
  for (const [rel, value] of Object.entries(files)) {
    const file = path.join(base, rel);
    const entry = value as Record<string, unknown>;
    await mkdir(path.dirname(file), { recursive: true });
    if (typeof value === 'string') await writeFile(file, value);
    else if (typeof entry['link'] === 'string') await symlink(entry['link'], file);
    else if (typeof entry['mode'] === 'number') {
      await writeFile(file, String(entry['content']));
      await chmod(file, entry['mode']);
    } else await writeFile(file, JSON.stringify(entry, null, 2));
  }
  return base;
}

/** A process extension's manifest plus an executable it names. */
export function processExt(name: string, extra: Record<string, unknown> = {}): Record<string, Entry> {
  return {
    'extension.json': { name, version: '1.0.0', exec: './run.sh', ...extra },
    'run.sh': { mode: 0o755, content: '#!/bin/sh\n' },
  };
}

/** Prefixes every path of `files` with `dir/`. */
export function under(dir: string, files: Record<string, Entry>): Record<string, Entry> {
  return Object.fromEntries(Object.entries(files).map(([k, v]) => [path.join(dir, k), v]));
}
