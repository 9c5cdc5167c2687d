import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ManifestDiscovery, resolveHome } from '../manifest/index.js';
import type { OptionSpecs, OptionValues } from './args.js';
import { CliError, CliErrorCode } from './errors.js';
import { Output, useColour, type CliIo } from './output.js';

/** What every command gets. */
export interface CommandContext {
  io: CliIo;
  /** stdout */
  out: Output;
  /** stderr */
  err: Output;
  /** Absolute project directory (`--cwd`). */
  cwd: string;
  /** `--app` */
  appName: string;
  /** Absolute home directory (`--home`, else resolved from the environment). */
  home: string;
  debug: boolean;
  /** Options of the command (global ones included). */
  values: OptionValues;
  /** Positional arguments after the command name. */
  args: string[];
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
}

/** One `zot-ext` command. */
export interface Command {
  name: string;
  /** `<path|git-url>`, `[paths...]`, ... */
  usage: string;
  summary: string;
  /** Longer help text (paragraphs), shown by `--help`. */
  description: string;
  options: OptionSpecs;
  /** Returns the exit code; throws CliError for one-line failures. */
  run(ctx: CommandContext): Promise<number>;
}

const APP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function createContext(io: CliIo, values: OptionValues, args: string[], signal: AbortSignal): CommandContext {
  const appName = typeof values.app === 'string' ? values.app : 'zot';
  if (!APP_NAME.test(appName)) {
    throw new CliError(CliErrorCode.USAGE, `--app ${JSON.stringify(appName)} is not a valid app name; use letters, digits, ".", "_" or "-"`);
  }
  const cwd = path.resolve(io.cwd, typeof values.cwd === 'string' ? values.cwd : '.');
  const home =
    typeof values.home === 'string' && values.home !== ''
      ? path.resolve(io.cwd, values.home)
      : path.resolve(io.cwd, resolveHome({ appName, env: io.env }));
  return {
    io,
    out: new Output(io.stdout, useColour(io.stdout, io.env)),
    err: new Output(io.stderr, useColour(io.stderr, io.env)),
    cwd,
    appName,
    home,
    debug: values.debug === true,
    values,
    args,
    signal,
  };
}

/** Discovery of the installed extensions (project and global roots), as the host would run it. */
export function discoveryFor(ctx: CommandContext, explicit: readonly string[] = [], options: { checkExec?: boolean | undefined } = {}): ManifestDiscovery {
  return new ManifestDiscovery({ cwd: ctx.cwd, appName: ctx.appName, home: ctx.home, env: ctx.io.env, explicit, checkExec: options.checkExec });
}

/** Throws a usage error unless the number of positional arguments is within bounds. */
export function expectArgs(ctx: CommandContext, command: Command, min: number, max: number): void {
  const n = ctx.args.length;
  if (n >= min && n <= max) return;
  const what = n < min ? 'missing argument' : `unexpected argument ${JSON.stringify(ctx.args[max])}`;
  throw new CliError(CliErrorCode.USAGE, `${what}: usage: zot-ext ${command.name}${command.usage === '' ? '' : ` ${command.usage}`}; see zot-ext ${command.name} --help`);
}

/** A usage error unless `dir` is an existing directory (an option the user gave, like `--cwd`). */
export async function expectDirectory(option: string, dir: string, what: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (info?.isDirectory() === true) return;
  throw new CliError(CliErrorCode.USAGE, `${option} ${dir} ${info === undefined ? 'does not exist' : 'is not a directory'}; ${what}`);
}

export type Scope = 'project' | 'global';

/** Real paths of the project and global roots (symlinks resolved; as given when missing), as discovery reports paths. */
export async function realRoots(discovery: ManifestDiscovery): Promise<Record<Scope, string>> {
  const real = (p: string) => realpath(p).catch(() => p);
  const [project, global] = await Promise.all([real(discovery.projectRoot), real(discovery.globalRoot)]);
  return { project, global };
}

/** The scope whose root contains `p`, if any. */
export function scopeOfPath(roots: Record<Scope, string>, p: string): Scope | undefined {
  const inside = (root: string) => p === root || p.startsWith(root + path.sep);
  // The project root first: a home inside the project is scanned as the project root.
  if (inside(roots.project)) return 'project';
  if (inside(roots.global)) return 'global';
  return undefined;
}
