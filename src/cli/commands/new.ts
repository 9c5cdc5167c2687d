import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nameProblem } from '../../manifest/index.js';
import { expectArgs, type Command } from '../context.js';
import { CliError, CliErrorCode } from '../errors.js';

const TEMPLATE_NAME = 'my-extension';
const SKIP = new Set(['node_modules', 'README.md']);

/** The template ships at <package>/examples/extension-template (next to dist/ and src/). */
function findTemplate(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, 'examples', 'extension-template');
    if (existsSync(path.join(candidate, 'extension.json'))) return candidate;
    dir = path.dirname(dir);
  }
  throw new CliError(CliErrorCode.FAILED, 'the extension template is missing from this installation of zot-extension-host; reinstall the package');
}

/** Template files import the SDK from the repository; a new extension imports the package. */
function adapt(text: string, name: string): string {
  return text
    .replaceAll('../../src/sdk/index.js', 'zot-extension-host/sdk')
    .replaceAll('../../src/testing/index.js', 'zot-extension-host/testing')
    .replaceAll(TEMPLATE_NAME, name);
}

/**
 * Beyond the manifest's rule: the name is also the template's slash command (one word, as the SDK
 * requires) and a single-quoted string in the generated TypeScript.
 */
function templateNameProblem(name: string): string | undefined {
  const shown = JSON.stringify(name);
  if (/\s/.test(name)) return `name ${shown} contains whitespace (it is also the extension's command, /${name}, which is one word)`;
  if (name.startsWith('/')) return `name ${shown} starts with "/"`;
  if (name.includes("'") || name.includes('`')) return `name ${shown} contains a quote (it goes into the generated TypeScript)`;
  return undefined;
}

/** `text` as one POSIX shell word. */
function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

export const create: Command = {
  name: 'new',
  usage: '<name>',
  summary: 'create a TypeScript extension from the SDK template',
  description: [
    'Creates <cwd>/<name>/ (or --dir) with extension.json, extension.ts (the definition),',
    'main.ts (the entry point) and extension.test.ts (tests with the test kit), ready for',
    '`npm install` and `npx vitest run`. Try it with `zot-ext run ./<name>`; install it with',
    '`zot-ext install ./<name>`. Refuses to write into a directory that is not empty.',
  ].join('\n'),
  options: {
    dir: { type: 'string', value: 'path', description: 'where to create it (default: <cwd>/<name>)' },
  },
  async run(ctx) {
    expectArgs(ctx, create, 1, 1);
    const name = ctx.args[0]!;
    const problem = nameProblem(name) ?? templateNameProblem(name);
    if (problem !== undefined) throw new CliError(CliErrorCode.USAGE, `${problem}; pick another name`);
    const target = path.resolve(ctx.cwd, typeof ctx.values.dir === 'string' ? ctx.values.dir : name);
    const existing = await readdir(target).catch(() => []);
    if (existing.length > 0) throw new CliError(CliErrorCode.EXISTS, `${target} exists and is not empty; pick another name or --dir`);
    const template = findTemplate();
    await mkdir(target, { recursive: true });
    const written: string[] = [];
    for (const file of (await readdir(template)).sort()) {
      if (SKIP.has(file)) continue;
      const text = await readFile(path.join(template, file), 'utf8');
      await writeFile(path.join(target, file), adapt(text, name));
      written.push(file);
    }
    ctx.out.line(`created ${target}: ${written.join(', ')}`);
    // Both lines run from where the user is now; the second one from inside the new directory.
    ctx.out.line('next:');
    ctx.out.line(`  cd ${shellQuote(path.relative(ctx.io.cwd, target) || '.')} && npm install && npx vitest run`);
    ctx.out.line('  npx zot-ext run .     # try it without a model');
    return 0;
  },
};
