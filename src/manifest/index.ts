// Internal barrel of the manifest layer (the public barrel is src/index.ts).
export * from './diagnostics.js';
export * from './discovery.js';
export * from './frontmatter.js';
export * from './home.js';
export * from './json.js';
export * from './schema.js';
export * from './skills.js';
