// The CLI stands on the host and manifest APIs: no module of the process layer is imported by it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/fixtures.js';

const IMPORT = /^\s*(?:import|export)\s[^'";]*?['"]([^'"]+)['"]/gm;

it('no file of src/cli imports src/process', () => {
  const cli = path.join(ROOT, 'src/cli');
  const files = readdirSync(cli, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  expect(files.length).toBeGreaterThan(10);
  const offending = files.flatMap((file) =>
    [...readFileSync(path.join(cli, file), 'utf8').matchAll(IMPORT)]
      .map((m) => m[1] ?? '')
      .filter((spec) => spec.startsWith('.') && path.relative(ROOT, path.resolve(path.dirname(path.join(cli, file)), spec)).startsWith(`src${path.sep}process${path.sep}`))
      .map((spec) => `${file}: ${spec}`),
  );
  expect(offending).toEqual([]);
});
