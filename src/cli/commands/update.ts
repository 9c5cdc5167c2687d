// update [name]: git installs fetched and moved to their pinned ref, or fast-forwarded.
import { discoveryFor, expectArgs, type Command, type CommandContext } from '../context.js';
import { ensureDependencies, missingDependenciesWarning } from '../dependencies.js';
import { CliError, CliErrorCode } from '../errors.js';
import { gitReset, gitUpdate, readSource, type GitInstall, type ToolOptions } from '../git.js';
import { findInstalled, type Installed } from '../installed.js';
import { validate } from './install.js';
import { SCOPE_OPTIONS, scopeOption } from './manage.js';

export const update: Command = {
  name: 'update',
  usage: '[name]',
  summary: 'update git installs: fetch, then the pinned --ref or a fast-forward',
  description: [
    'For an extension installed from a git URL: git fetch in its directory, then a checkout of the',
    'tag or commit it was installed with (install --ref; a moved tag is followed), else a',
    'fast-forward of the cloned branch. An update whose extension.json is not valid is undone. A',
    'package.json whose dependencies are not in node_modules is reported; --install-deps runs',
    'npm ci / npm install --omit=dev. Without a name, every git install of both scopes (or of',
    '--project / --global) is updated and the others are listed as skipped. An extension copied',
    'from a directory is not a git install: reinstall it with zot-ext install <dir> --force.',
  ].join('\n'),
  options: {
    ...SCOPE_OPTIONS,
    'install-deps': { type: 'boolean', description: 'run npm ci / npm install --omit=dev when dependencies are missing' },
  },
  async run(ctx) {
    expectArgs(ctx, update, 0, 1);
    const scope = scopeOption(ctx);
    const options: ToolOptions = { env: ctx.io.env, signal: ctx.signal };
    const name = ctx.args[0];
    if (name !== undefined) {
      const found = await findInstalled(ctx, name, scope);
      const source = await readSource(found.dir, options);
      if (source === undefined) {
        throw new CliError(CliErrorCode.FAILED, `${found.name} (${found.scope}) is not a git install (it was copied from a directory); reinstall it with zot-ext install <dir> --force`);
      }
      await updateOne(ctx, found, source, options);
      return 0;
    }
    let failed = 0;
    let updated = 0;
    for (const found of await installedOf(ctx, scope)) {
      const source = await readSource(found.dir, options);
      if (source === undefined) {
        ctx.out.line(`skipped ${found.name} (${found.scope}): not a git install`);
        continue;
      }
      updated++;
      await updateOne(ctx, found, source, options).catch((err: unknown) => {
        if (!(err instanceof CliError)) throw err;
        failed++;
        ctx.err.line(`${ctx.err.style('red', 'error')}: ${err.message}`);
      });
    }
    if (updated === 0) ctx.out.line('no git installs to update');
    return failed > 0 ? 1 : 0;
  },
};

/** The installed extensions of the scope(s), one entry each (shadowed ones included). */
async function installedOf(ctx: CommandContext, scope: Installed['scope'] | undefined): Promise<Installed[]> {
  const { extensions } = await discoveryFor(ctx).discover();
  const out: Installed[] = [];
  for (const ext of extensions) {
    if (ext.source === 'explicit' || (scope !== undefined && ext.source !== scope)) continue;
    out.push(await findInstalled(ctx, ext.name, ext.source));
  }
  return out;
}

async function updateOne(ctx: CommandContext, found: Installed, source: GitInstall, options: ToolOptions): Promise<void> {
  const { before, after } = await gitUpdate(found.dir, source, options);
  const label = `${found.name} (${found.scope})`;
  const at = source.ref === undefined ? '' : ` (${source.ref})`;
  if (before === after) {
    ctx.out.line(`${label} is up to date at ${after.slice(0, 7)}${at}`);
    return;
  }
  try {
    await validate(ctx, found.dir, `${label} at ${after.slice(0, 7)}`, `it was put back at ${before.slice(0, 7)}`);
  } catch (err) {
    await gitReset(found.dir, before, options);
    throw err;
  }
  const missing = await ensureDependencies(ctx, found.name, found.dir);
  ctx.out.line(`updated ${label}: ${before.slice(0, 7)} -> ${after.slice(0, 7)}${at}`);
  if (missing.length > 0) {
    ctx.err.line(`${ctx.err.style('yellow', 'warning')}: ${missingDependenciesWarning(found.name, missing, found.dir, `zot-ext update ${found.name}`)}`);
  }
}
