// Small filesystem helpers shared by discovery, skills scanning and the CLI (internal).
import { constants, readFile } from 'node:fs';
import path from 'node:path';

/** The errno code of a filesystem error (`ENOENT`, `EACCES`, ...), if any. */
export function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A short human reason for a filesystem error, to follow "it": "it does not exist". */
export function describeFsError(err: unknown): string {
  switch (errnoCode(err)) {
    case 'ENOENT':
      return 'does not exist';
    case 'EACCES':
    case 'EPERM':
      return 'is not accessible (permission denied)';
    case 'ENOTDIR':
      return 'is not a directory';
    case 'EISDIR':
      return 'is a directory';
    case 'ELOOP':
      return 'is a symlink loop';
    case 'EMFILE':
    case 'ENFILE':
      return 'cannot be opened now (too many open files)';
    default:
      return `cannot be read (${err instanceof Error ? err.message : String(err)})`;
  }
}

/** True when `child` is `parent` or lies below it (both absolute, normalised). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * Orders strings by code point, which is the byte order of their UTF-8 encoding ("B" < "a" < "z" <
 * "ä" < "😀"). Plain `<` compares UTF-16 units and puts astral characters before U+E000..U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Lift surrogates above the rest of the BMP: then unit order is code point order.
    if (x >= 0xd800) x += x <= 0xdfff ? 0x2000 : -0x800;
    if (y >= 0xd800) y += y <= 0xdfff ? 0x2000 : -0x800;
    return x - y;
  }
  return a.length - b.length;
}

/** Sorts items by name in byte order of the UTF-8 encoding (see {@link compareCodePoints}). */
export function sortByBytes<T>(items: readonly T[], name: (item: T) => string): T[] {
  return [...items].sort((a, b) => compareCodePoints(name(a), name(b)));
}

/** Maps with at most `limit` calls in flight (so a huge root never holds a descriptor per entry); keeps order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  if (items.length <= limit) return Promise.all(items.map(fn));
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

// O_NONBLOCK keeps a FIFO named extension.json from blocking a thread-pool thread forever.
const READ_FLAGS =
  process.platform === 'win32' ? constants.O_RDONLY : constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * Reads a whole file. The callback fs.readFile is used on purpose: on Node 20 it is several times
 * faster than fs/promises readFile (which goes through a FileHandle), and discovery reads many
 * small files.
 */
export function readWholeFile(file: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // Numeric open(2) flags are accepted (see "File system flags" in the Node docs); the types say string.
    readFile(file, { flag: READ_FLAGS as unknown as string }, (err, data) => (err ? reject(err) : resolve(data)));
  });
}
