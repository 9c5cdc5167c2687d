// "Code examples in docs are files that run in CI." Every ts/js code block of these docs names, in a
// `<!-- snippet: path -->` comment right above it, the file it is an excerpt of: its non-empty lines
// must appear in that file in the same order (trimmed; `// ...` elides; the package's imports stand
// for the relative src and dist ones). Examples are run by test/examples.test.ts (or by the test in
// their own folder, like examples/pi-agent), tests by vitest, and an
// excerpt of src/ is the definition itself. (docs/writing-extensions.md: test/sdk-parity/docs.test.ts.)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../src/errors.js';
import { ROOT } from './helpers/fixtures.js';
import { codeBlocks, missingLines } from './helpers/excerpts.js';

const DOCS = ['README.md', 'docs/embedding.md', 'docs/interception.md', 'docs/protocol.md', 'docs/security.md', 'docs/architecture.md', 'docs/tracing.md', 'docs/remote.md', 'docs/mcp.md'];
const CODE = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs', 'cjs', 'tsx']);

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** A file of an `examples/<dir>/` that has its own `*.test.ts`. */
function inTestedExample(file: string): boolean {
  const dir = path.dirname(file);
  return dir.startsWith('examples/') && readdirSync(path.join(ROOT, dir)).some((name) => name.endsWith('.test.ts'));
}

const blocks = DOCS.flatMap((doc) => codeBlocks(read(doc), doc).filter((b) => CODE.has(b.lang)));
const examplesTest = read('test/examples.test.ts');

describe('code blocks in the docs are excerpts of files that run in CI', () => {
  it('every ts/js block names its file', () => {
    expect(blocks.length).toBeGreaterThan(10);
    expect(blocks.filter((b) => b.file === undefined).map((b) => `${b.doc}:${b.line}`)).toEqual([]);
  });

  it.each(blocks.map((b) => [`${b.doc}:${b.line} (${b.file})`, b] as const))('%s', (_title, block) => {
    const file = block.file ?? '';
    expect(missingLines(block.lines, read(file))).toEqual([]);
    if (inTestedExample(file)) return; // run by the test in its folder (examples/pi-agent: own dependencies)
    if (file.startsWith('examples/') && !file.endsWith('.test.ts')) {
      expect(examplesTest, `${file} must be run by test/examples.test.ts`).toContain(`run('${file}')`);
    } else {
      expect(file, 'an example, a test, or the source it shows').toMatch(/^(?:src\/.+\.ts|(?:test|examples)\/.+\.test\.ts)$/);
    }
  });
});

describe('docs/protocol.md', () => {
  it('lists exactly the error codes of src/errors.ts', () => {
    const section = read('docs/protocol.md').split('\n## Error codes\n')[1]?.split('\n## ')[0] ?? '';
    const documented = [...section.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.values(ErrorCode).sort());
  });
});

describe('docs/writing-extensions.md', () => {
  it('names every export of zot-extension-host/testing in its API reference', () => {
    const index = read('src/testing/index.ts');
    const exported = [...index.matchAll(/export (?:type )?\{([^}]+)\}/g)].flatMap((m) => m[1]!.split(',').map((name) => name.trim()).filter((name) => name !== ''));
    const reference = read('docs/writing-extensions.md').split('### API reference: `zot-extension-host/testing`')[1]?.split('\n**')[0] ?? '';
    expect(exported.length).toBeGreaterThan(5);
    for (const name of exported) expect(reference, name).toContain(`\`${name}\``);
  });
});
