// The one pattern of the package's three error families (ExtensionHostError, CliError,
// ExtensionSdkError): an Error with a string `code` from an `as const` object, its own `name`, and
// `cause` passed on only when there is one.

/** An Error with a string `code`. Subclasses set `name` (`override readonly name = '...'`). */
export abstract class CodedError<Code extends string> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
  }
}
