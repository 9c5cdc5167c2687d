// The public API. Every export is listed by name; everything else is internal.
export { ErrorCode, ExtensionHostError, isExtensionHostError } from './errors.js';
export type { ExtensionHostErrorOptions } from './errors.js';
