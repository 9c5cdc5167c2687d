// Importing the package must stay cheap: zod and cross-spawn are loaded on first use (dynamic
// import()), never by the static import graph of the main entry.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/fixtures.js';

// `import … from 'x'`, `export … from 'x'` and `import 'x'`, except `import type` / `export type`.
const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

/** The packages reached through static imports from `entry` (a file under src/). */
function staticPackages(entry: string): { packages: Set<string>; via: Map<string, string> } {
  const packages = new Set<string>();
  const via = new Map<string, string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      if (specifier === undefined) continue;
      if (specifier.startsWith('.')) {
        visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
      } else if (!specifier.startsWith('node:')) {
        packages.add(specifier);
        via.set(specifier, path.relative(ROOT, file));
      }
    }
  };
  visit(path.join(ROOT, entry));
  return { packages, via };
}

describe('the main entry', () => {
  it('loads neither zod nor cross-spawn when imported', () => {
    const { packages, via } = staticPackages('src/index.ts');
    expect([...packages].filter((p) => p === 'zod' || p.startsWith('zod/') || p === 'cross-spawn').map((p) => `${p} via ${via.get(p)}`)).toEqual([]);
    expect(packages.has('eventemitter3')).toBe(true); // the walk does follow the graph
  });

  it('the schemas subpath is where the zod schemas are', () => {
    expect(staticPackages('src/schemas/index.ts').packages.has('zod')).toBe(true);
  });
});
