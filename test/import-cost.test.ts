// What the built package loads: `import` alone and a first start() of one extension. Node's own
// modules that cost an embedder real time and memory (docs/performance.md, "Performance v2, part 5")
// stay unloaded until something needs them. Run after `npm run build` (npm test does).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, ROOT, tempDir } from './helpers/fixtures.js';

const home = tempDir('zot-import-cost-');
afterAll(() => home.cleanup());

/** Node's modules loaded by the package, in a fresh process: after the import, and after a first start. */
function loadedModules(): Promise<{ afterImport: string[]; afterStart: string[]; loaded: number }> {
  const entry = pathToFileURL(path.join(ROOT, 'dist/index.js')).href;
  const options = JSON.stringify({ cwd: home.dir, home: home.dir, explicit: [fixture('extensions/hello-sh')], discover: false, callbacks: {} });
  const code = [
    'const before = new Set(process.moduleLoadList);',
    `const m = await import(${JSON.stringify(entry)});`,
    'const afterImport = process.moduleLoadList.filter((x) => !before.has(x));',
    `const host = new m.ExtensionHost(${options});`,
    'const report = await host.start();',
    'const afterStart = process.moduleLoadList.filter((x) => !before.has(x));',
    'await host.stop();',
    'process.stdout.write(JSON.stringify({ afterImport, afterStart, loaded: report.loaded.length }));',
  ].join('\n');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, timeout: 20_000 }, (error, stdout) => {
      if (error) reject(error);
      else resolve(JSON.parse(stdout) as { afterImport: string[]; afterStart: string[]; loaded: number });
    });
  });
}

describe('what the built package loads', () => {
  it('neither import nor a first start loads node:crypto (nor Web Crypto), perf_hooks or the CommonJS interop', { timeout: 30_000 }, async () => {
    const { afterImport, afterStart, loaded } = await loadedModules();
    expect(loaded).toBe(1);
    const costly = (list: string[]) => list.filter((x) => /^NativeModule (crypto|internal\/crypto\/.*|perf_hooks|internal\/deps\/cjs-module-lexer\/lexer)$/.test(x));
    expect(costly(afterImport)).toEqual([]);
    expect(costly(afterStart)).toEqual([]);
    // The child's pipes need child_process only once something starts.
    expect(afterImport).not.toContain('NativeModule child_process');
    expect(afterStart).toContain('NativeModule child_process');
  });
});

describe('what the built CLI loads', () => {
  /** The files `dist/<file>` imports statically, itself included, followed through its relative imports. */
  function staticGraph(file: string, seen = new Set<string>()): Set<string> {
    if (seen.has(file)) return seen;
    seen.add(file);
    const code = readFileSync(path.join(ROOT, 'dist', file), 'utf8');
    for (const m of code.matchAll(/^import\s+(?:[^'"]*?\s+from\s+)?"\.\/([^"]+)";?$/gm)) staticGraph(m[1]!, seen);
    return seen;
  }

  it('the MCP SDK (an optional peer) is imported only by the chunk `zot-ext mcp` loads dynamically', () => {
    const startup = [...staticGraph('cli.js')];
    const mcpImports = (file: string) => /from\s+"@modelcontextprotocol\//.test(readFileSync(path.join(ROOT, 'dist', file), 'utf8'));
    expect(startup.length).toBeGreaterThan(2);
    expect(startup.filter(mcpImports)).toEqual([]);
    const lazy = [...readFileSync(path.join(ROOT, 'dist/cli.js'), 'utf8').matchAll(/import\("\.\/([^"]+)"\)/g)].map((m) => m[1]!);
    expect(lazy.filter(mcpImports)).toHaveLength(1);
  });
});
