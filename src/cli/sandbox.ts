// `--sandbox <off|auto|required>` and `--env-allow` of run, doctor, serve, inspect and mcp, and how an extension's sandbox reads.
import type { SandboxInfo, SandboxMode } from '../transport/sandbox.js';
import type { OptionSpec } from './args.js';
import type { CommandContext } from './context.js';
import { CliError, CliErrorCode } from './errors.js';

const SANDBOX_OPTION = {
  type: 'string',
  value: 'mode',
  description: 'run each extension in an OS sandbox: off, auto (where the platform can, else a warning) or required (no sandbox, no start) (default: off; docs/security.md)',
} as const satisfies OptionSpec;

const ENV_ALLOW_OPTION = {
  type: 'string',
  value: 'names',
  multiple: true,
  description:
    "the variables (comma-separated names or PREFIX*) a sandboxed extension's manifest may ask for; a sandboxed extension gets only a minimal environment besides (default: none; docs/security.md)",
} as const satisfies OptionSpec;

/** `--sandbox` and `--env-allow`, the options of every command that starts extensions. */
export const SANDBOX_OPTIONS = { sandbox: SANDBOX_OPTION, 'env-allow': ENV_ALLOW_OPTION } as const;

/** `--env-allow`, its names split at commas; undefined when not given. */
export function envAllowFlag(ctx: CommandContext): string[] | undefined {
  const given = ctx.values['env-allow'];
  if (given === undefined) return undefined;
  return (Array.isArray(given) ? given : [given]).flatMap((v) => String(v).split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** The `--sandbox` flag, or undefined when not given. */
export function sandboxFlag(ctx: CommandContext): SandboxMode | undefined {
  const value = ctx.values.sandbox;
  if (value === undefined) return undefined;
  if (value === 'off' || value === 'auto' || value === 'required') return value;
  throw new CliError(CliErrorCode.USAGE, `--sandbox ${JSON.stringify(value)}: use off, auto or required`);
}

/** One line: `bwrap, network none, writes <dir> + a private /tmp`, or why it is not confined. */
export function sandboxText(sandbox: SandboxInfo): string {
  if (sandbox.active) {
    return `${sandbox.backend} (${sandbox.mode}), network ${sandbox.network}, writes ${[...sandbox.writable, 'a private /tmp'].join(', ')}`;
  }
  if (sandbox.reason === undefined) return sandbox.mode;
  if (sandbox.reason.startsWith('not applicable')) return sandbox.reason;
  return `unavailable (${sandbox.mode}${sandbox.mode === 'auto' ? ': runs unsandboxed' : ''}): ${sandbox.reason}`;
}
