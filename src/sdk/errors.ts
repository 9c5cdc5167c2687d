import { CodedError } from '../coded-error.js';

/**
 * Errors the SDK throws at extension authors (definition mistakes, misuse of `run()`).
 * Failures inside handlers are never thrown: they are answered on the wire as errors.
 */
export const SdkErrorCode = {
  /** A registration is invalid: empty or duplicate name, unconvertible zod schema, bad handler. */
  INVALID_DEFINITION: 'INVALID_DEFINITION',
  /** `run()` was called while a previous `run()` of the same extension is still going. */
  ALREADY_RUNNING: 'ALREADY_RUNNING',
} as const;

export type SdkErrorCode = (typeof SdkErrorCode)[keyof typeof SdkErrorCode];

export class ExtensionSdkError extends CodedError<SdkErrorCode> {
  override readonly name = 'ExtensionSdkError';

  constructor(code: SdkErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options.cause);
  }
}
