// Small filesystem helpers shared by discovery and skills scanning (internal).
import { constants, readFile } from 'node:fs';
import path from 'node:path';

/** The errno code of a filesystem error (`ENOENT`, `EACCES`, ...), if any. */
export function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A short human reason for a filesystem error. */
export function describeFsError(err: unknown): string {
  switch (errnoCode(err)) {
    case 'ENOENT':
      return 'does not exist';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
      return 'is not a directory';
    case 'EISDIR':
      return 'is a directory';
    case 'ELOOP':
      return 'is a symlink loop';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

/** True when `child` is `parent` or lies below it (both absolute, normalised). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Sorts names by the bytes of their UTF-8 encoding ("B" < "a" < "z" < "ä"), which is code point order. */
export function sortByBytes<T>(items: readonly T[], name: (item: T) => string): T[] {
  return items
    .map((item) => ({ item, key: Buffer.from(name(item), 'utf8') }))
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map((e) => e.item);
}

/** Maps with at most `limit` calls in flight (so 10,000 entries never hold 10,000 file descriptors); keeps order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
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
