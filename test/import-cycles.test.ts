// No runtime import circle anywhere in src/: every module can be read (and is evaluated) after the
// ones it imports. Type-only imports (`import type`, `export type`, `{ type X }` alone) are erased and
// do not count; nor do dynamic `import()`s (lazy loads evaluate after their importer). In src/host/
// type-only imports count too, except those of the shared types.ts and context.ts.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/fixtures.js';

const SRC = path.join(ROOT, 'src');

/** Each module of src/ (relative path) and the modules of src/ it imports at run time (or at all, with `types`). */
function imports(withTypes = false): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(path.join(SRC, file), 'utf8'), ts.ScriptTarget.Latest, false);
    const deps: string[] = [];
    for (const statement of source.statements) {
      let spec: ts.Expression | undefined;
      if (ts.isImportDeclaration(statement)) {
        const clause = statement.importClause;
        const typeOnly =
          clause !== undefined &&
          (clause.isTypeOnly ||
            (clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
        if (withTypes || !typeOnly) spec = statement.moduleSpecifier;
      } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined) {
        const clause = statement.exportClause;
        const typeOnly = statement.isTypeOnly || (clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly));
        if (withTypes || !typeOnly) spec = statement.moduleSpecifier;
      }
      if (spec === undefined || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) continue;
      deps.push(path.relative(SRC, path.resolve(path.dirname(path.join(SRC, file)), spec.text)).replace(/\.js$/, '.ts'));
    }
    graph.set(file, deps);
  }
  return graph;
}

/** The circles of `graph` (its strongly connected components of more than one module, or a module importing itself). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('imports in src/', () => {
  it('form no runtime circle', () => {
    const graph = imports();
    expect(graph.size).toBeGreaterThan(50);
    expect(circles(graph)).toEqual([]);
  });

  it('of src/host/ form no circle, type-only ones included, but through the shared types.ts and context.ts', () => {
    const HUBS = new Set(['host/types.ts', 'host/context.ts']);
    const host = new Map(
      [...imports(true)].filter(([file]) => file.startsWith(`host${path.sep}`)).map(([file, deps]) => [file.split(path.sep).join('/'), deps.map((d) => d.split(path.sep).join('/')).filter((d) => d.startsWith('host/') && !HUBS.has(d))]),
    );
    expect(host.size).toBeGreaterThan(10);
    expect(circles(host)).toEqual([]);
  });

  it('the check finds a circle', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(circles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});
