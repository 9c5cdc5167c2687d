import { chmod, lstat, mkdir, mkdtemp, realpath, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ManifestDiscovery } from '../../manifest/index.js';
import { redactUrl } from '../../manifest/remote.js';
import type { OptionValues } from '../args.js';
import { nameKey } from '../../manifest/limits.js';
import { discoveryFor, expectArgs, type Command, type CommandContext, type Scope } from '../context.js';
import { isInside } from '../../manifest/fs-utils.js';
import { copyTree } from '../copy-tree.js';
import { CliError, CliErrorCode } from '../errors.js';
import { ensureDependencies, missingDependenciesWarning } from '../dependencies.js';
import { classifySource, gitClone, recordSource } from '../git.js';
import { entryFor } from '../installed.js';
import { processSpec } from '../../host/loader.js';
import { storeAlways } from '../../host/trust.js';

/** `install --timeout` when not given: a clone that takes longer is ended. */
const DEFAULT_CLONE_MS = 120_000;

export const install: Command = {
  name: 'install',
  usage: '<path|git-url>',
  summary: 'copy a directory or clone a git repository into the extensions directory',
  description: [
    'A directory is copied recursively (symlinks that point outside it are skipped, never followed).',
    'A git URL (https://, ssh://, git://, file://, user@host:path, or a local bare repository) is',
    'cloned with `git clone --depth 1` and copied like a directory (symlinks that leave the clone are',
    'skipped). The result must contain a valid extension.json, else',
    'nothing is installed. The target is <home>/extensions/<manifest name>/ (with --project:',
    '<cwd>/.zot/extensions/<manifest name>/). An existing extension of that name is only replaced',
    'with --force.',
    '',
    'With --ref, a git source is cloned whole and checked out at that tag or commit (zot-ext update',
    'keeps it there); without, update fast-forwards the cloned branch. A package.json whose',
    'dependencies are not in node_modules is reported; --install-deps runs npm ci --omit=dev (npm',
    'install --omit=dev without a package-lock.json) in the copy before it is moved into place.',
  ].join('\n'),
  options: {
    project: { type: 'boolean', description: 'install into the project (<cwd>/.<app>/extensions)' },
    force: { type: 'boolean', description: 'replace an installed extension of the same name' },
    timeout: { type: 'string', value: 'ms', description: `deadline of a git clone (default: ${DEFAULT_CLONE_MS})` },
    ref: { type: 'string', value: 'tag|commit', description: 'git sources: check out this tag, commit or branch' },
    'install-deps': { type: 'boolean', description: 'run npm ci / npm install --omit=dev in the installed copy' },
  },
  async run(ctx) {
    expectArgs(ctx, install, 1, 1);
    const timeoutMs = cloneTimeout(ctx.values.timeout);
    const scope: Scope = ctx.values.project === true ? 'project' : 'global';
    const discovery = discoveryFor(ctx);
    const root = scope === 'project' ? discovery.projectRoot : discovery.globalRoot;
    const given = ctx.args[0]!;
    const source = await classifySource(given, ctx.io.cwd);
    const ref = typeof ctx.values.ref === 'string' ? ctx.values.ref : undefined;
    if (ref !== undefined && source.kind !== 'git') throw new CliError(CliErrorCode.USAGE, `--ref is for git sources; ${given} is a directory`);
    const created = await mkdir(root, { recursive: true });
    const realRoot = await realpath(root);
    if (source.kind === 'path' && isInside(await realpath(source.path), realRoot)) {
      // `install . --project` inside the extension: nothing is left behind (the root was made just now).
      if (created !== undefined) await rm(created, { recursive: true, force: true });
      throw new CliError(CliErrorCode.USAGE, `${source.path} contains the extensions directory ${root}; give the extension's own directory`);
    }

    // A dot-directory: discovery ignores it while the install is in progress.
    const staging = await mkdtemp(path.join(realRoot, '.install-'));
    try {
      const warn = (m: string) => ctx.err.line(`${ctx.err.style('yellow', 'warning')}: ${m}`);
      if (source.kind === 'git') await installClone(source.url, ref, staging, ctx, warn, timeoutMs);
      else await copyTree(source.path, staging, warn);
      const installed = await validate(ctx, staging, given);
      const target = path.join(realRoot, installed.name);
      const missing = await ensureDependencies(ctx, installed.name, staging);
      await replaceExisting(ctx, scope, installed.name, target, staging);
      const version = installed.version === undefined ? '' : ` ${installed.version}`;
      const trusted = scope === 'project' ? await trustInstalled(ctx, target, warn) : '';
      ctx.out.line(`installed ${installed.name}${version} (${scope}) at ${path.join(root, installed.name)}${trusted}`);
      for (const warning of installed.warnings) warn(warning.replaceAll(staging, target));
      if (missing.length > 0) warn(missingDependenciesWarning(installed.name, missing, path.join(root, installed.name), `zot-ext install ${given} --force`));
      return 0;
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  },
};

/**
 * A project install is on purpose: `'always'` for it in this project, in `<home>/trust.json` (the
 * record a terminal answer "a" makes), at its content hash now, so run and doctor start it off a
 * terminal too; a later change to its files asks again. Returns what the output line says.
 */
async function trustInstalled(ctx: CommandContext, target: string, warn: (m: string) => void): Promise<string> {
  const dir = await realpath(target);
  const { extensions } = await discoveryFor(ctx).discover();
  const ext = extensions.find((e) => e.source === 'project' && e.dir === dir);
  // A theme or skills bundle never runs: nothing to trust.
  if (ext === undefined || ext.kind !== 'process') return '';
  const { problems } = await storeAlways({ home: ctx.home, cwd: ctx.cwd }, processSpec(ext.name, ext.dir, ext.source, ext.manifest, ext.manifestPath));
  for (const problem of problems) warn(problem);
  return problems.length === 0 ? '; trusted in this project ("always", until its files change)' : '; not recorded as trusted (see the warning): zot-ext run asks on a terminal, or give --trust';
}

function cloneTimeout(value: OptionValues[string]): number {
  if (value === undefined) return DEFAULT_CLONE_MS;
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) === 0) {
    throw new CliError(CliErrorCode.USAGE, `--timeout needs a whole number of milliseconds above 0, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/**
 * Clones outside the extensions directory, then copies the tree like a local install: symlinks that
 * leave it are dropped (a repository may carry a link to ~/.ssh); `.git` is kept.
 */
async function installClone(url: string, ref: string | undefined, staging: string, ctx: CommandContext, warn: (m: string) => void, timeoutMs: number): Promise<void> {
  const clone = await mkdtemp(path.join(os.tmpdir(), 'zot-ext-clone-'));
  try {
    const tree = path.join(clone, 'tree');
    const options = { env: ctx.io.env, signal: ctx.signal, timeoutMs, timeoutOption: '--timeout', outcome: 'nothing was installed' };
    ctx.err.line(`cloning ${redactUrl(url)}${ref === undefined ? '' : ` at ${ref}`} ...`);
    await gitClone(url, tree, ref, options);
    await copyTree(tree, staging, warn);
    await chmod(staging, 0o755); // mkdtemp made it private
    await recordSource(staging, url, ref, options);
  } finally {
    await rm(clone, { recursive: true, force: true });
  }
}

/** The manifest's name and version in `staging`, or INVALID naming `given` (the caller cleans up). */
export async function validate(ctx: CommandContext, staging: string, given: string, outcome = 'nothing was installed'): Promise<{ name: string; version: string | undefined; warnings: string[] }> {
  const discovery = new ManifestDiscovery({ cwd: ctx.cwd, appName: ctx.appName, home: ctx.home, explicit: [staging], discover: false, checkExec: true });
  const { extensions, diagnostics } = await discovery.discover();
  const ext = extensions[0];
  if (ext === undefined) {
    const first = diagnostics[0];
    const why =
      first === undefined || first.code === 'MANIFEST_MISSING'
        ? 'it has no extension.json at its top level'
        : first.message.replaceAll(staging + path.sep, '').replaceAll(staging, given);
    throw new CliError(CliErrorCode.INVALID, `${given} is not a valid extension: ${why}; ${outcome}`);
  }
  if (ext.name.startsWith('.')) {
    throw new CliError(
      CliErrorCode.INVALID,
      `${given} is not a valid extension: its name ${JSON.stringify(ext.name)} starts with "." and discovery never loads a directory of that name; rename it in extension.json; ${outcome}`,
    );
  }
  return { name: ext.name, version: ext.manifest.version, warnings: diagnostics.map((d) => d.message) };
}

/**
 * Moves the staged tree to `target`, replacing same-named extensions of the scope only with --force.
 * Same-named as discovery counts it (nameKey: NFC, case-folded): `Weather` would shadow `weather`.
 */
async function replaceExisting(ctx: CommandContext, scope: Scope, name: string, target: string, staging: string): Promise<void> {
  const { extensions } = await discoveryFor(ctx).discover();
  const root = path.dirname(target);
  // Root entries, not real directories: a symlinked extension is replaced by moving the link only.
  const sameName: string[] = [];
  for (const ext of extensions) {
    if (ext.source === scope && nameKey(ext.name) === nameKey(name)) sameName.push((await entryFor(root, ext.dir))?.entry ?? ext.dir);
  }
  const occupied = await lstat(target).then(
    () => true,
    () => false,
  );
  const old = [...new Set([...(occupied ? [target] : []), ...sameName])];
  if (old.length > 0 && ctx.values.force !== true) {
    throw new CliError(CliErrorCode.EXISTS, `"${name}" is already installed at ${old[0]}; add --force to replace it, or run zot-ext remove ${name} first`);
  }
  // Old trees move aside first so a failed rename can put them back.
  const aside: [from: string, to: string][] = [];
  try {
    for (const dir of old) {
      const to = `${staging}.old-${aside.length}`;
      await rename(dir, to);
      aside.push([dir, to]);
    }
    await rename(staging, target);
  } catch (err) {
    for (const [from, to] of aside.reverse()) await rename(to, from).catch(() => undefined);
    throw new CliError(CliErrorCode.FAILED, `cannot move the new ${name} into ${target}: ${(err as Error).message}`, { cause: err });
  }
  await Promise.all(aside.map(([, to]) => rm(to, { recursive: true, force: true })));
}
