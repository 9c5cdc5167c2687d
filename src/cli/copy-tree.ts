// Recursive copy for `install <path>`: files keep their mode; symlinks are recreated only when they
// point inside the copied tree, never followed out of it.
import { chmod, copyFile, lstat, mkdir, readdir, readlink, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../manifest/fs-utils.js';

/**
 * Copies the directory `source` into `dest` (created if missing). `warn` hears about every entry
 * that was skipped: symlinks that leave the tree or are broken, sockets, FIFOs, devices.
 */
export async function copyTree(source: string, dest: string, warn: (message: string) => void): Promise<void> {
  const root = await realpath(source);
  await copyDir(root, dest);

  async function copyDir(from: string, to: string): Promise<void> {
    const info = await lstat(from);
    await mkdir(to, { recursive: true });
    const entries = await readdir(from, { withFileTypes: true });
    for (const entry of entries) {
      const src = path.join(from, entry.name);
      const dst = path.join(to, entry.name);
      const shown = path.relative(root, src);
      if (entry.isDirectory()) await copyDir(src, dst);
      else if (entry.isFile()) {
        await copyFile(src, dst);
        await chmod(dst, (await lstat(src)).mode & 0o7777);
      } else if (entry.isSymbolicLink()) {
        const target = await readlink(src);
        const real = await realpath(src).catch(() => undefined);
        if (real === undefined) warn(`skipped ${shown}: broken symlink to ${target}`);
        else if (!isInside(root, real)) warn(`skipped ${shown}: symlink to ${target} leaves the extension directory (not followed)`);
        else await symlink(path.relative(path.dirname(dst), path.join(dest, path.relative(root, real))) || '.', dst);
      } else warn(`skipped ${shown}: not a file, directory or symlink`);
    }
    await chmod(to, info.mode & 0o7777);
  }
}
