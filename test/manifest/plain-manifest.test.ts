// The zod-free manifest check must give exactly the schema's output (key order included: the CLI
// writes manifests back) or step aside: with it, a start from valid manifests never loads zod.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainManifest } from '../../src/manifest/plain-manifest.js';
import { Manifest } from '../../src/manifest/schema.js';

const anyValue = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.constantFrom('', 'ok', '..', 'a/b', ' x', '-x', 'x\u200b'),
  fc.boolean(),
  fc.constant(null),
  fc.integer(),
  fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 }),
  fc.array(fc.oneof(fc.string(), fc.constant(''), fc.integer(), fc.constant(null)), { maxLength: 2 }),
  fc.dictionary(fc.constantFrom('a', 'name'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
);
const text = fc.string({ maxLength: 4 });
const nonEmpty = fc.string({ minLength: 1, maxLength: 4 });
const name = fc.oneof(fc.constantFrom('todo', 'my-ext', 'Zoë', 'a.b'), fc.string({ minLength: 1, maxLength: 6 }));
const valid = fc.record(
  {
    extra: fc.jsonValue({ maxDepth: 1 }),
    name,
    version: text,
    exec: nonEmpty,
    args: fc.array(text, { maxLength: 2 }),
    language: text,
    description: text,
    skills: fc.array(nonEmpty, { maxLength: 2 }),
    env: fc.array(nonEmpty, { maxLength: 2 }),
    permissions: fc.array(text, { maxLength: 2 }),
    enabled: fc.boolean(),
  },
  { requiredKeys: ['name'] },
);
const FIELDS = ['name', 'version', 'exec', 'args', 'language', 'description', 'skills', 'env', 'permissions', 'enabled', 'other', '__proto__', 'constructor'];
const manifest = fc.tuple(valid, fc.option(fc.tuple(fc.constantFrom(...FIELDS), anyValue), { freq: 2 })).map(([value, change]) => {
  const json = JSON.stringify(value);
  if (change === null) return JSON.parse(json) as unknown;
  const [key, field] = change;
  return JSON.parse(`${json.slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(field)}}`) as unknown;
});

describe('plainManifest', () => {
  it('accepts only what the schema accepts, and returns exactly its output, in its key order', () => {
    let accepted = 0;
    fc.assert(
      fc.property(manifest, (value) => {
        const plain = plainManifest(value);
        if (plain === undefined) return;
        accepted++;
        const parsed = Manifest.safeParse(value);
        expect(parsed.success).toBe(true);
        expect(plain).toStrictEqual(parsed.data);
        expect(JSON.stringify(plain)).toBe(JSON.stringify(parsed.data));
      }),
      { seed: 19, numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(300);
  });

  it('leaves nulls, unsafe names and wrong types to the schema', () => {
    for (const value of [
      null,
      [],
      { name: 'x', version: null },
      { name: '../x', exec: 'run' },
      { name: 'x', exec: '' },
      { name: 'x', skills: [''] },
      { name: 'x', enabled: 'yes' },
      { name: 'x', args: [1] },
    ]) {
      expect(plainManifest(value)).toBeUndefined();
    }
  });
});
