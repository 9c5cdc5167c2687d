// An installed extension's npm dependencies: which are missing, and `--install-deps`.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CommandContext } from './context.js';
import { runTool } from './git.js';

/** The `dependencies` of `dir`'s package.json that have no `node_modules/<name>` (none without a package.json). */
async function missingDependencies(dir: string): Promise<string[]> {
  const text = await readFile(path.join(dir, 'package.json'), 'utf8').catch(() => undefined);
  if (text === undefined) return [];
  let deps: unknown;
  try {
    deps = (JSON.parse(text) as { dependencies?: unknown }).dependencies;
  } catch {
    return []; // npm says what is wrong with it, at --install-deps
  }
  if (typeof deps !== 'object' || deps === null) return [];
  return Object.keys(deps).filter((name) => !existsSync(path.join(dir, 'node_modules', name, 'package.json')));
}

/**
 * A package-lock.json that `npm ci` can install from where the copy now is: a `file:` directory
 * dependency (`zot-ext new`'s SDK, until it is on the registry) is locked as a path relative to
 * the directory the lockfile was made in, which the copy has left; `npm install` re-resolves it.
 */
async function lockfileWithoutLinks(dir: string): Promise<boolean> {
  const text = await readFile(path.join(dir, 'package-lock.json'), 'utf8').catch(() => undefined);
  if (text === undefined) return false;
  try {
    const { packages } = JSON.parse(text) as { packages?: Record<string, { link?: unknown }> };
    return !Object.values(packages ?? {}).some((p) => p.link === true);
  } catch {
    return true; // npm ci says what is wrong with it
  }
}

/** `npm ci --omit=dev` (with a lockfile npm ci can use) or `npm install --omit=dev` in `dir`, said on stderr with npm's own messages. */
async function installDependencies(ctx: CommandContext, name: string, dir: string): Promise<void> {
  const args = [(await lockfileWithoutLinks(dir)) ? 'ci' : 'install', '--omit=dev'];
  ctx.err.line(`installing the dependencies of ${name}: npm ${args.join(' ')}`);
  const onStderr = (chunk: string) => void ctx.io.stderr.write(chunk);
  await runTool('npm', [...args, '--no-audit', '--no-fund'], `npm ${args.join(' ')}`, { cwd: dir, env: ctx.io.env, signal: ctx.signal, onStderr });
}

/** The warning for dependencies that are not installed, naming the way to fix it. */
export function missingDependenciesWarning(name: string, missing: readonly string[], dir: string, retry: string): string {
  const shown = missing.length > 5 ? `${missing.slice(0, 5).join(', ')} and ${missing.length - 5} more` : missing.join(', ');
  return `${name} declares dependencies that are not installed (${shown}), so it will fail at start; run ${retry} --install-deps, or npm install --omit=dev in ${dir}`;
}

/** With `--install-deps`, installs what is missing; returns the dependencies still not installed. */
export async function ensureDependencies(ctx: CommandContext, name: string, dir: string): Promise<string[]> {
  const missing = await missingDependencies(dir);
  if (missing.length === 0 || ctx.values['install-deps'] !== true) return missing;
  await installDependencies(ctx, name, dir);
  return missingDependencies(dir);
}
