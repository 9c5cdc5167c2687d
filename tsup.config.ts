import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      sdk: 'src/sdk/index.ts',
      testing: 'src/testing/index.ts',
      schemas: 'src/schemas/index.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    clean: false,
    sourcemap: true,
    target: 'node20',
    platform: 'node',
    splitting: true,
    treeshake: true,
    // p-timeout is ESM-only: bundle it so require() works.
    noExternal: ['p-timeout', 'eventemitter3'],
  },
  {
    entry: { cli: 'src/cli/bin.ts' },
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    sourcemap: true,
    noExternal: ['p-timeout', 'eventemitter3'],
    banner: { js: '#!/usr/bin/env node' },
  },
]);
