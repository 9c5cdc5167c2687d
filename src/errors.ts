import { CodedError } from './coded-error.js';

/**
 * Every error the public API raises or reports is an `ExtensionHostError` with a string `code`.
 * A raw ZodError or a bare Error never escapes: unexpected failures are wrapped with `cause`.
 */
export const ErrorCode = {
  /** The executable could not be started (not found, not executable, bad cwd). */
  SPAWN_FAILED: 'SPAWN_FAILED',
  /** The process exited before it sent `hello`. */
  EXITED_BEFORE_HELLO: 'EXITED_BEFORE_HELLO',
  /** No `hello` frame arrived within the hello timeout. */
  HELLO_TIMEOUT: 'HELLO_TIMEOUT',
  /** The first frame was not a valid `hello`. */
  BAD_HELLO: 'BAD_HELLO',
  /** A manifest (`extension.json`) is missing, unreadable or invalid. */
  MANIFEST_INVALID: 'MANIFEST_INVALID',
  /** A request got no answer before its deadline. */
  TIMEOUT: 'TIMEOUT',
  /** A request could not be written before its deadline; the extension's stdin was closed. */
  WRITE_TIMEOUT: 'WRITE_TIMEOUT',
  /** The extension process exited (or closed stdout) while the request was pending. */
  PROCESS_EXITED: 'PROCESS_EXITED',
  /** The caller aborted the request through its AbortSignal. */
  ABORTED: 'ABORTED',
  /** The extension sent a frame larger than the frame cap; its read loop was closed. */
  FRAME_TOO_LARGE: 'FRAME_TOO_LARGE',
  /** The extension answered with a frame that does not match the protocol. */
  BAD_RESPONSE: 'BAD_RESPONSE',
  /** No registered command has that name. */
  UNKNOWN_COMMAND: 'UNKNOWN_COMMAND',
  /** No active tool has that name. */
  UNKNOWN_TOOL: 'UNKNOWN_TOOL',
  /** The host (or extension) is not started, or was stopped / reloaded. */
  NOT_STARTED: 'NOT_STARTED',
  /** The embedding agent passed something invalid (an unknown panel key, a malformed event). */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** An `ExtensionHost` option has the wrong type or an out-of-range value; the message names it. */
  INVALID_OPTIONS: 'INVALID_OPTIONS',
  /** The extension is being restarted (waiting out the backoff, respawning or handshaking); try again when it is ready. */
  RESTARTING: 'RESTARTING',
  /** The extension did something its permission scope does not allow (see the `permissions` option). */
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  /** `tracing` is on but `@opentelemetry/api` (an optional peer dependency) cannot be loaded. */
  TRACING_UNAVAILABLE: 'TRACING_UNAVAILABLE',
  /** Its sandbox is `'required'` but this machine cannot make one (no bubblewrap, no user namespaces, not Linux or macOS); the message says why. */
  SANDBOX_UNAVAILABLE: 'SANDBOX_UNAVAILABLE',
  /** A project extension the `trust` option did not allow (denied, `trust: 'none'`, or no valid answer); it was never started. */
  UNTRUSTED: 'UNTRUSTED',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface ExtensionHostErrorOptions {
  /** The extension the error is about, when there is one. */
  extension?: string | undefined;
  /** The extension's stderr log file, when there is one. */
  logPath?: string | undefined;
  /** The underlying error. */
  cause?: unknown;
  /** Exit code of the process, for PROCESS_EXITED / EXITED_BEFORE_HELLO. */
  exitCode?: number | null | undefined;
  /** Terminating signal of the process, for PROCESS_EXITED / EXITED_BEFORE_HELLO. */
  signal?: NodeJS.Signals | null | undefined;
}

export class ExtensionHostError extends CodedError<ErrorCode> {
  override readonly name = 'ExtensionHostError';
  readonly extension: string | undefined;
  readonly logPath: string | undefined;
  readonly exitCode: number | null | undefined;
  readonly signal: NodeJS.Signals | null | undefined;

  constructor(code: ErrorCode, message: string, options: ExtensionHostErrorOptions = {}) {
    super(code, message, options.cause);
    this.extension = options.extension;
    this.logPath = options.logPath;
    this.exitCode = options.exitCode;
    this.signal = options.signal;
  }

  /** What `JSON.stringify` writes (an Error's own `message` is not enumerable): every field, and the cause's message. */
  toJSON(): ExtensionHostErrorJSON {
    const cause = this.cause === undefined ? undefined : this.cause instanceof Error ? this.cause.message : String(this.cause);
    return { name: this.name, code: this.code, message: this.message, extension: this.extension, logPath: this.logPath, exitCode: this.exitCode, signal: this.signal, cause };
  }
}

/** `ExtensionHostError.toJSON()`: the error as plain data; `cause` is the underlying error's message. */
export interface ExtensionHostErrorJSON {
  name: 'ExtensionHostError';
  code: ErrorCode;
  message: string;
  extension: string | undefined;
  logPath: string | undefined;
  exitCode: number | null | undefined;
  signal: NodeJS.Signals | null | undefined;
  cause: string | undefined;
}

/** True when `value` is an ExtensionHostError (optionally with the given code). */
export function isExtensionHostError(value: unknown, code?: ErrorCode): value is ExtensionHostError {
  return value instanceof ExtensionHostError && (code === undefined || value.code === code);
}

/** Wrap anything thrown into an ExtensionHostError, keeping typed errors as they are. */
export function toHostError(
  value: unknown,
  fallback: ErrorCode,
  options: ExtensionHostErrorOptions = {},
): ExtensionHostError {
  if (value instanceof ExtensionHostError) return value;
  const message = value instanceof Error ? value.message : shown(value);
  return new ExtensionHostError(fallback, message, { ...options, cause: value });
}

/** `String(value)`, or what it is when that throws (a Symbol converts, an object's toString may throw). */
function shown(value: unknown): string {
  try {
    return typeof value === 'symbol' ? value.toString() : String(value);
  } catch {
    return `a ${typeof value} that cannot be shown`;
  }
}
