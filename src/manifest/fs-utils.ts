// Small filesystem helpers shared by discovery and skills scanning (internal).
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
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

// O_NONBLOCK keeps a FIFO named extension.json from blocking discovery forever.
const READ_FLAGS =
  process.platform === 'win32' ? constants.O_RDONLY : constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * Reads a whole file unless it is larger than `max` bytes (then `tooLarge` is set and the data is
 * cut). Open + read + close, without the fstat fs.readFile does.
 */
export async function readCapped(file: string, max: number): Promise<{ data: Buffer; tooLarge: boolean }> {
  const handle = await open(file, READ_FLAGS);
  try {
    let buffer = Buffer.allocUnsafe(Math.min(16 * 1024, max + 1));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > max) return { data: buffer.subarray(0, max), tooLarge: true };
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 4, max + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) return { data: buffer.subarray(0, length), tooLarge: false };
      length += bytesRead;
    }
  } finally {
    await handle.close();
  }
}
