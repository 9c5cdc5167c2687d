// remove / enable / disable: by manifest name, in one scope.
import { randomBytes } from 'node:crypto';
import { lstat, readFile, realpath, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../../manifest/fs-utils.js';
import { expectArgs, type Command, type CommandContext, type Scope } from '../context.js';
import { CliError, CliErrorCode } from '../errors.js';
import { findInstalled, type Installed } from '../installed.js';
import { setEnabled } from '../manifest-edit.js';

export const SCOPE_OPTIONS = {
  project: { type: 'boolean', description: 'only the project scope (<cwd>/.<app>/extensions)' },
  global: { type: 'boolean', description: 'only the global scope (<home>/extensions)' },
} as const;

export function scopeOption(ctx: CommandContext): Scope | undefined {
  if (ctx.values.project === true && ctx.values.global === true) {
    throw new CliError(CliErrorCode.USAGE, '--project and --global exclude each other; pick one');
  }
  return ctx.values.project === true ? 'project' : ctx.values.global === true ? 'global' : undefined;
}

export const remove: Command = {
  name: 'remove',
  usage: '<name>',
  summary: "delete an installed extension's directory",
  description: [
    'Deletes the directory of the installed extension with this manifest name. A symlinked',
    'extension loses only its link; the target is kept. When the name is installed in both',
    'scopes, pick one with --project or --global.',
  ].join('\n'),
  options: SCOPE_OPTIONS,
  async run(ctx) {
    expectArgs(ctx, remove, 1, 1);
    const found = await findInstalled(ctx, ctx.args[0]!, scopeOption(ctx));
    await expectDirectChild(found);
    if (found.isLink) {
      await unlink(found.entry);
      ctx.out.line(`removed ${found.name} (${found.scope}): unlinked ${found.entry} (its target ${found.dir} was kept)`);
    } else {
      await rm(found.entry, { recursive: true, force: true });
      ctx.out.line(`removed ${found.name} (${found.scope}): ${found.entry}`);
    }
    return 0;
  },
};

function toggle(name: 'enable' | 'disable'): Command {
  const enabled = name === 'enable';
  const command: Command = {
    name,
    usage: '<name>',
    summary: enabled ? 're-enable a disabled extension' : 'disable an extension without removing it',
    description: [
      `Sets "enabled": ${enabled} in the extension's extension.json; every other byte of the file is kept.`,
      'When the name is installed in both scopes, pick one with --project or --global.',
    ].join('\n'),
    options: SCOPE_OPTIONS,
    async run(ctx) {
      expectArgs(ctx, command, 1, 1);
      const found = await findInstalled(ctx, ctx.args[0]!, scopeOption(ctx));
      // Edit the real file: the manifest itself may be a symlink, but only to a file of its own directory.
      const file = await realpath(found.manifestPath).catch(() => {
        throw new CliError(CliErrorCode.INVALID, `${found.manifestPath} does not exist; the extension has no manifest to ${name}`);
      });
      if (!isInside(found.dir, file)) {
        throw new CliError(
          CliErrorCode.INVALID,
          `cannot ${name} ${found.name}: ${found.manifestPath} is a symlink to ${file}, outside the extension directory; edit that file by hand, or replace the link with a copy`,
        );
      }
      const text = await readFile(file, 'utf8');
      const result = setEnabled(text, enabled);
      if (!result.ok) throw new CliError(CliErrorCode.INVALID, `cannot ${name} ${found.name}: ${file} is not valid JSON (${result.message}); fix the file first`);
      if (!result.changed) {
        ctx.out.line(`${found.name} (${found.scope}) is already ${name}d`);
        return 0;
      }
      await writeAtomically(file, result.text);
      ctx.out.line(`${name}d ${found.name} (${found.scope})`);
      return 0;
    },
  };
  return command;
}

export const enable = toggle('enable');
export const disable = toggle('disable');

/**
 * `remove` deletes one entry directly inside the scope's extensions root, checked on real paths: never
 * the root itself, never a path outside it, never a plain file.
 */
async function expectDirectChild(found: Installed): Promise<void> {
  const [root, parent, info] = await Promise.all([
    realpath(found.root).catch(() => undefined),
    realpath(path.dirname(found.entry)).catch(() => undefined),
    lstat(found.entry).catch(() => undefined),
  ]);
  const base = path.basename(found.entry);
  const real = info?.isSymbolicLink() === false ? await realpath(found.entry).catch(() => undefined) : undefined;
  const child =
    root !== undefined && parent === root && base !== '' && base !== '.' && base !== '..' &&
    (info?.isSymbolicLink() === true || (info?.isDirectory() === true && real === path.join(root, base)));
  if (!child) {
    throw new CliError(CliErrorCode.FAILED, `refusing to remove ${found.entry}: it is not a directory directly inside the extensions directory ${found.root}`);
  }
}

/**
 * Write to a new sibling temp file (`wx`: never through an existing file or link), then rename over
 * the manifest: a crash never leaves half a manifest, and the rename replaces the directory entry,
 * never the file a hard link shares.
 */
async function writeAtomically(file: string, text: string): Promise<void> {
  const { mode } = await stat(file);
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, text, { mode: mode & 0o7777, flag: 'wx' });
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw new CliError(CliErrorCode.FAILED, `cannot write ${file}: ${(err as Error).message}`, { cause: err });
  }
}
