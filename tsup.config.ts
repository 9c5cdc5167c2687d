import { copyFileSync } from 'node:fs';
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
  {
    // The page of `zot-ext inspect` (browser code, Preact bundled in): dist/inspector/index.html,
    // inspector.js and inspector.css, served by the CLI from the package. No CDN.
    entry: { inspector: 'src/cli/inspect/ui/main.tsx' },
    outDir: 'dist/inspector',
    format: ['iife'],
    platform: 'browser',
    target: 'es2020',
    minify: true,
    sourcemap: false,
    dts: false,
    clean: false,
    noExternal: [/.*/],
    outExtension: () => ({ js: '.js' }),
    esbuildOptions(options) {
      options.jsx = 'automatic';
      options.jsxImportSource = 'preact';
      options.legalComments = 'none';
    },
    onSuccess: async () => {
      copyFileSync('src/cli/inspect/ui/index.html', 'dist/inspector/index.html');
    },
  },
]);
