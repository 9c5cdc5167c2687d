// remove / enable / disable: by manifest name, in one scope.
import { readFile, realpath, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expectArgs, type Command, type CommandContext, type Scope } from '../context.js';
import { CliError, CliErrorCode } from '../errors.js';
import { findInstalled } from '../installed.js';
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
      // Edit the real file: the manifest itself may be a symlink.
      const file = await realpath(found.manifestPath).catch(() => {
        throw new CliError(CliErrorCode.INVALID, `${found.manifestPath} does not exist; the extension has no manifest to ${name}`);
      });
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

/** Write to a sibling temp file, then rename: a crash never leaves half a manifest. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const { mode } = await stat(file);
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    await writeFile(temp, text, { mode: mode & 0o7777 });
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw new CliError(CliErrorCode.FAILED, `cannot write ${file}: ${(err as Error).message}`, { cause: err });
  }
}
