import { CodedError } from '../coded-error.js';

/** Why a CLI command failed. USAGE and AMBIGUOUS exit with 2 (fix the command line), the rest with 1. */
export const CliErrorCode = {
  /** Unknown command or option, missing or extra argument. */
  USAGE: 'USAGE',
  /** A name exists in both scopes and no --project/--global was given. */
  AMBIGUOUS: 'AMBIGUOUS',
  /** No installed extension (or log) has that name. */
  NOT_FOUND: 'NOT_FOUND',
  /** install: the target exists and --force was not given. */
  EXISTS: 'EXISTS',
  /** The input is not a valid extension (no or a broken extension.json). */
  INVALID: 'INVALID',
  /** Anything else that stopped the command (git failed, a file could not be written). */
  FAILED: 'FAILED',
} as const;

export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

/** A failure the CLI reports as one line; `message` says what to do. */
export class CliError extends CodedError<CliErrorCode> {
  override readonly name = 'CliError';

  constructor(code: CliErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options?.cause);
  }

  /** The process exit code for this error. */
  get exitCode(): number {
    return this.code === CliErrorCode.USAGE || this.code === CliErrorCode.AMBIGUOUS ? 2 : 1;
  }
}

/** Exit codes of `zot-ext`. */
export const ExitCode = {
  OK: 0,
  /** An extension failed, or the command failed. */
  FAILED: 1,
  /** The command line was wrong. */
  USAGE: 2,
} as const;
