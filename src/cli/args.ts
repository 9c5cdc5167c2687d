import { parseArgs } from 'node:util';
import { CliError, CliErrorCode } from './errors.js';

/** One command-line option, with what `--help` says about it. */
export interface OptionSpec {
  type: 'boolean' | 'string';
  short?: string | undefined;
  /** Shown in help after the option name, for string options (`--home <dir>`). */
  value?: string | undefined;
  /** A string option given more than once: its values as a list (each occurrence kept). */
  multiple?: boolean | undefined;
  description: string;
}

export type OptionSpecs = Record<string, OptionSpec>;

/** Accepted by every command. */
export const GLOBAL_OPTIONS = {
  home: { type: 'string', value: 'dir', description: 'home directory (default: $ZOT_HOME, else the platform default)' },
  cwd: { type: 'string', value: 'dir', description: 'project directory (default: the current directory)' },
  app: { type: 'string', value: 'name', description: 'app name: the .<name> project dir and $<NAME>_HOME (default: zot)' },
  debug: { type: 'boolean', description: 'print stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'show help' },
} as const satisfies OptionSpecs;

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface ParsedArgs {
  values: OptionValues;
  positionals: string[];
}

/** Strict parse: unknown options and missing values are usage errors naming the command's help. */
export function parse(argv: readonly string[], specs: OptionSpecs, command: string | undefined): ParsedArgs {
  const options: Record<string, { type: 'boolean' | 'string'; short?: string; multiple?: boolean }> = {};
  for (const [name, spec] of Object.entries(specs)) {
    options[name] = { type: spec.type, ...(spec.short === undefined ? {} : { short: spec.short }), ...(spec.multiple === true ? { multiple: true } : {}) };
  }
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
    return { values: values as OptionValues, positionals };
  } catch (err) {
    const help = command === undefined ? 'zot-ext --help' : `zot-ext ${command} --help`;
    throw new CliError(CliErrorCode.USAGE, `${usageMessage(err)}; see ${help}`, { cause: err });
  }
}

/** The first positional argument (the command), skipping global options and their values. */
export function findCommand(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return argv[i + 1];
    if (!arg.startsWith('-') || arg === '-') return arg;
    const name = arg.replace(/^--?/, '').split('=')[0]!;
    const spec = (GLOBAL_OPTIONS as OptionSpecs)[name];
    if (spec?.type === 'string' && !arg.includes('=')) i++;
  }
  return undefined;
}

function usageMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // "'--home <value>'" or "'-h, --home <value>'" -> "--home"
  const option = /'(-[^']*)'/.exec(message)?.[1]?.split(',').pop()?.trim().split(' ')[0];
  if (option !== undefined) {
    if (message.startsWith('Unknown option')) return `unknown option ${option}`;
    if (message.includes('argument missing')) return `option ${option} needs a value`;
    if (message.includes('does not take an argument')) return `option ${option} does not take a value`;
  }
  return message.split('\n')[0]!;
}
