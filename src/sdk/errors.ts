import { CodedError } from '../coded-error.js';

/**
 * Errors the SDK throws at extension authors (definition mistakes, misuse of `run()`), and the
 * failures of `ctx.callTool` (the call itself, not the tool: a failing tool resolves with `isError`).
 * Failures inside handlers are never thrown: they are answered on the wire as errors.
 */
export const SdkErrorCode = {
  /** A registration is invalid: empty or duplicate name, unconvertible zod schema, bad handler. */
  INVALID_DEFINITION: 'INVALID_DEFINITION',
  /** `run()` was called while a previous `run()` of the same extension is still going. */
  ALREADY_RUNNING: 'ALREADY_RUNNING',
  /** `ctx.callTool`: the extension did not declare `callTools`, or the host did not offer `call_tool` in hello_ack. */
  CALL_TOOL_UNAVAILABLE: 'CALL_TOOL_UNAVAILABLE',
  /** `ctx.callTool`: a name or args that are not a non-empty string and a JSON object, or a bad `timeoutMs`. */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** `ctx.callTool`: its signal aborted (`call_tool_cancel` was sent). */
  ABORTED: 'ABORTED',
  /** `ctx.callTool`: no answer within `timeoutMs` (`call_tool_cancel` was sent). */
  TIMEOUT: 'TIMEOUT',
  /** `ctx.callTool`: the run stopped before the answer came. */
  STOPPED: 'STOPPED',
} as const;

export type SdkErrorCode = (typeof SdkErrorCode)[keyof typeof SdkErrorCode];

export class ExtensionSdkError extends CodedError<SdkErrorCode> {
  override readonly name = 'ExtensionSdkError';

  constructor(code: SdkErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options.cause);
  }
}
