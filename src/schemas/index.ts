// zot-extension-host/schemas: the zod schemas of the wire frames and of the manifest, and the frame
// parser built on them. A subpath of their own, so that importing the main entry does not load zod.
export { ExtensionFrame, HostFrame } from '../protocol/frames.js';
export { decodeExtensionFrame } from '../protocol/codec.js';
export type { DecodedFrame, FrameProblem } from '../protocol/frame-check.js';
export { Manifest } from '../manifest/schema.js';
