// Internal barrel of the protocol layer (the public barrel is src/index.ts).
export * from './frames.js';
export * from './decoder.js';
export * from './codec.js';
export * from './limits.js';
