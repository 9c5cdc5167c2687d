import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { DiagnosticCode } from '../../src/manifest/index.js';

describe('docs/discovery.md', () => {
  it('documents every diagnostic code in its table', async () => {
    const doc = await readFile(new URL('../../docs/discovery.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.values(DiagnosticCode).sort());
  });
});
