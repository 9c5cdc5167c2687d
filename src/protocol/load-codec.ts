// The zod side of the protocol (the frame schemas and decodeExtensionFrame), loaded on first use:
// importing zod costs ~50 ms and ~14 MB, which a program that only imports the package should not
// pay. The host loads it while it discovers; a process awaits it before its first line.
import type * as Codec from './codec.js';

export type CodecModule = typeof Codec;

let loading: Promise<CodecModule> | undefined;

/** Loads codec.js (and with it zod) once; every call returns the same promise. */
export function loadCodec(): Promise<CodecModule> {
  return (loading ??= import('./codec.js'));
}
