// Whether a value can go on the wire as JSON: JSON.stringify throws on cycles and BigInt, and with a
// RangeError on deep nesting (at a few thousand levels, depending on the stack left).

/** Deepest nesting of objects and arrays the host sends or accepts in args: 1000 levels. */
export const MAX_JSON_DEPTH = 1000;

/**
 * Why `value` cannot be sent as JSON (a cycle, a BigInt, nesting deeper than MAX_JSON_DEPTH, a
 * getter or toJSON that throws), or undefined when it can. Walks the value once; shared
 * (non-cyclic) references are fine.
 */
export function jsonProblem(value: unknown): string | undefined {
  const ancestors = new Set<object>();
  const walk = (v: unknown, depth: number): string | undefined => {
    if (typeof v === 'bigint') return 'contains a BigInt';
    if (typeof v !== 'object' || v === null) return undefined;
    if (depth >= MAX_JSON_DEPTH) return `nests deeper than ${MAX_JSON_DEPTH} levels`;
    if (ancestors.has(v)) return 'is cyclic';
    ancestors.add(v);
    try {
      let inner: unknown = v;
      const toJSON = (v as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') {
        inner = (toJSON as () => unknown).call(v);
        if (inner !== v) return walk(inner, depth + 1);
      }
      if (Array.isArray(v)) {
        for (const item of v) {
          const problem = walk(item, depth + 1);
          if (problem !== undefined) return problem;
        }
        return undefined;
      }
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        const problem = walk((v as Record<string, unknown>)[key], depth + 1);
        if (problem !== undefined) return problem;
      }
      return undefined;
    } catch (error) {
      return `cannot be read (${error instanceof Error ? error.message : String(error)})`;
    } finally {
      ancestors.delete(v);
    }
  };
  return walk(value, 0);
}
