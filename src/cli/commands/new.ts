import { existsSync, readFileSync } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nameProblem } from '../../manifest/index.js';
import { expectArgs, type Command, type CommandContext } from '../context.js';
import { CliError, CliErrorCode } from '../errors.js';

const PACKAGE_NAME = 'zot-extension-host';
const TEMPLATE_NAME = 'my-extension';
const SKIP = new Set(['node_modules', 'README.md']);
// npm never packs a file named .gitignore, so the template carries it without the dot.
const RENAME: Record<string, string> = { gitignore: '.gitignore' };

/** The root of the package this CLI runs from (dist/cli.js, or src/cli/commands/ in a clone, lie below it). */
function ownPackageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (packageName(dir) === PACKAGE_NAME) return dir;
    dir = path.dirname(dir);
  }
  throw new CliError(CliErrorCode.FAILED, `cannot find the ${PACKAGE_NAME} package this zot-ext runs from; reinstall the package`);
}

function packageName(dir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name as string | undefined;
  } catch {
    return undefined;
  }
}

/** The template ships at <package>/examples/<name> (next to dist/ and src/). */
function findTemplate(root: string, name: string): string {
  const template = path.join(root, 'examples', name);
  if (existsSync(path.join(template, 'extension.json'))) return template;
  throw new CliError(CliErrorCode.FAILED, `the extension template is missing from ${root}; reinstall ${PACKAGE_NAME}`);
}

/**
 * The `file:` spec of the SDK the new extension depends on, until the package is on the registry:
 * `--sdk` (a clone, an unpacked package or an `npm pack` tarball), else the package zot-ext runs from.
 */
async function sdkSpec(ctx: CommandContext): Promise<string> {
  const given = ctx.values.sdk;
  const where = typeof given === 'string' ? path.resolve(ctx.io.cwd, given) : ownPackageRoot();
  const info = await stat(where).catch(() => undefined);
  if (info === undefined) throw new CliError(CliErrorCode.NOT_FOUND, `--sdk ${where} does not exist; give a clone of ${PACKAGE_NAME} or a tarball from npm pack`);
  if (info.isFile()) {
    if (!/\.(tgz|tar\.gz)$/.test(where)) throw new CliError(CliErrorCode.USAGE, `--sdk ${where} is not a directory or a .tgz tarball (npm pack makes one)`);
    return `file:${where}`;
  }
  const name = packageName(where);
  if (name !== PACKAGE_NAME) {
    throw new CliError(CliErrorCode.USAGE, `--sdk ${where} is not the ${PACKAGE_NAME} package (${name === undefined ? 'no package.json' : `its package.json names ${JSON.stringify(name)}`})`);
  }
  if (!existsSync(path.join(where, 'dist', 'sdk.js'))) {
    throw new CliError(CliErrorCode.FAILED, `${where} has no dist/ yet; run npm ci && npm run build there first`);
  }
  return `file:${where}`;
}

/**
 * The Python SDK to vendor into a new Python extension: `<root>/python/zot_ext` of `--sdk` (a clone
 * or an installed package) or of the package zot-ext runs from.
 */
async function pythonSdk(ctx: CommandContext): Promise<string> {
  const given = ctx.values.sdk;
  const root = typeof given === 'string' ? path.resolve(ctx.io.cwd, given) : ownPackageRoot();
  const sdk = path.join(root, 'python', 'zot_ext');
  if (!existsSync(path.join(sdk, '__init__.py'))) {
    const hint = typeof given === 'string' ? `; with --python, --sdk names a clone or an installed ${PACKAGE_NAME} (a directory)` : `; reinstall ${PACKAGE_NAME}`;
    throw new CliError(CliErrorCode.NOT_FOUND, `${sdk} is not the Python SDK (no __init__.py)${hint}`);
  }
  return sdk;
}

/** Copies the SDK's modules and py.typed (no caches) into `<target>/zot_ext`. */
async function vendorPythonSdk(sdk: string, target: string): Promise<void> {
  const to = path.join(target, 'zot_ext');
  await mkdir(to);
  for (const file of await readdir(sdk)) {
    if (file.endsWith('.py') || file === 'py.typed') await copyFile(path.join(sdk, file), path.join(to, file));
  }
}

/** Template files import the SDK from the repository; a new extension imports the package. */
function adapt(text: string, name: string): string {
  return text
    .replaceAll('../../src/sdk/index.js', `${PACKAGE_NAME}/sdk`)
    .replaceAll('../../src/testing/index.js', `${PACKAGE_NAME}/testing`)
    .replaceAll(TEMPLATE_NAME, name);
}

/** The template's package.json with the SDK dependency pointing at `spec`. */
function withSdk(text: string, spec: string): string {
  const pkg = JSON.parse(text) as { dependencies: Record<string, string> };
  pkg.dependencies[PACKAGE_NAME] = spec;
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/**
 * Beyond the manifest's rule: the name is also the template's slash command (one word, as the SDK
 * requires) and a quoted string in the generated TypeScript or Python.
 */
function templateNameProblem(name: string): string | undefined {
  const shown = JSON.stringify(name);
  if (/\s/.test(name)) return `name ${shown} contains whitespace (it is also the extension's command, /${name}, which is one word)`;
  if (name.startsWith('/')) return `name ${shown} starts with "/"`;
  if (name.includes("'") || name.includes('`')) return `name ${shown} contains a quote (it goes into the generated code as a string)`;
  return undefined;
}

/** `text` as one POSIX shell word. */
function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Both lines run as pasted from where the user is now; the second one from inside the new directory. */
function printNext(ctx: CommandContext, target: string, setup: string, tryIt: string): void {
  ctx.out.line('next:');
  ctx.out.line(`  cd ${shellQuote(path.relative(ctx.io.cwd, target) || '.')} && ${setup}`);
  ctx.out.line(`  ${tryIt}     # try it without a model`);
}

/** Copies the template's files (not its README) into `target`, adapted; returns the names written. */
async function copyTemplate(template: string, target: string, edit: (file: string, text: string) => string): Promise<string[]> {
  const written: string[] = [];
  for (const file of (await readdir(template)).sort()) {
    if (SKIP.has(file)) continue;
    const from = path.join(template, file);
    const info = await stat(from);
    if (!info.isFile()) continue;
    const to = RENAME[file] ?? file;
    await writeFile(path.join(target, to), edit(file, await readFile(from, 'utf8')));
    await chmod(path.join(target, to), info.mode & 0o777);
    written.push(to);
  }
  return written.sort();
}

export const create: Command = {
  name: 'new',
  usage: '<name>',
  summary: 'create a TypeScript (or, with --python, a Python) extension from the SDK template',
  description: [
    'Creates <cwd>/<name>/ (or --dir) with extension.json, extension.ts (the definition),',
    'main.ts (the entry point), extension.test.ts (tests with the test kit), package.json,',
    'tsconfig.json and .gitignore, ready for `npm install`, `npx tsc --noEmit` and `npx vitest run`.',
    'Try it with `zot-ext run ./<name>`; install it with `zot-ext install ./<name>`. Refuses to',
    'write into a directory that is not empty.',
    '',
    `${PACKAGE_NAME} is not on the npm registry yet: package.json depends on it as a file: path,`,
    'by default the package this zot-ext runs from; --sdk names a clone (built with npm run build)',
    'or a tarball made by npm pack instead.',
    '',
    'With --python: extension.json, extension.py (executable; the definition and the entry point),',
    'test_extension.py (`python3 -m unittest`) and .gitignore, with a copy of the Python SDK in',
    'zot_ext/ (from <package>/python, or --sdk <dir>): the extension needs no pip install and keeps',
    'working where `zot-ext install` copies it.',
  ].join('\n'),
  options: {
    dir: { type: 'string', value: 'path', description: 'where to create it (default: <cwd>/<name>)' },
    sdk: { type: 'string', value: 'path|tarball', description: `the ${PACKAGE_NAME} to depend on (default: the one zot-ext runs from)` },
    python: { type: 'boolean', description: 'a Python extension, with the Python SDK (zot_ext) vendored into it' },
  },
  async run(ctx) {
    expectArgs(ctx, create, 1, 1);
    const name = ctx.args[0]!;
    const problem = nameProblem(name) ?? templateNameProblem(name);
    if (problem !== undefined) throw new CliError(CliErrorCode.USAGE, `${problem}; pick another name`);
    const target = path.resolve(ctx.cwd, typeof ctx.values.dir === 'string' ? ctx.values.dir : name);
    const existing = await readdir(target).catch(() => []);
    if (existing.length > 0) throw new CliError(CliErrorCode.EXISTS, `${target} exists and is not empty; pick another name or --dir`);
    if (ctx.values.python === true) {
      const sdk = await pythonSdk(ctx);
      await mkdir(target, { recursive: true });
      const written = await copyTemplate(findTemplate(ownPackageRoot(), 'python-template'), target, (_file, text) => text.replaceAll(TEMPLATE_NAME, name));
      await vendorPythonSdk(sdk, target);
      ctx.out.line(`created ${target}: ${[...written, 'zot_ext/'].join(', ')}`);
      ctx.out.line(`zot_ext/: a copy of the Python SDK from ${sdk} (no pip install needed)`);
      printNext(ctx, target, 'python3 -m unittest', 'zot-ext run .');
      return 0;
    }
    const sdk = await sdkSpec(ctx);
    const template = findTemplate(ownPackageRoot(), 'extension-template');
    await mkdir(target, { recursive: true });
    const written = await copyTemplate(template, target, (file, text) => {
      const adapted = adapt(text, name);
      return file === 'package.json' ? withSdk(adapted, sdk) : adapted;
    });
    ctx.out.line(`created ${target}: ${written.join(', ')}`);
    ctx.out.line(`${PACKAGE_NAME}: ${sdk} (not on the npm registry yet; --sdk picks another clone or tarball)`);
    printNext(ctx, target, 'npm install && npx tsc --noEmit && npx vitest run', 'npx zot-ext run .');
    return 0;
  },
};
