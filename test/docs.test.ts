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
import { missingLines } from './helpers/excerpts.js';

const DOCS = ['README.md', 'docs/embedding.md', 'docs/interception.md', 'docs/protocol.md'];
const CODE = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs', 'cjs', 'tsx']);

interface Block {
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  file: string | undefined;
  lines: string[];
}

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The ts/js fenced blocks of a markdown file, with the snippet comment directly above each. */
function codeBlocks(doc: string): Block[] {
  const lines = read(doc).split('\n');
  const found: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i] ?? '');
    if (open === null) continue;
    const end = lines.indexOf('```', i + 1);
    if (end === -1) throw new Error(`${doc}:${i + 1}: unclosed code block`);
    if (CODE.has(open[1] ?? '')) {
      const file = /^<!-- snippet: (\S+) -->$/.exec(lines[i - 1] ?? '')?.[1];
      found.push({ doc, line: i + 1, file, lines: lines.slice(i + 1, end) });
    }
    i = end;
  }
  return found;
}


/** A file of an `examples/<dir>/` that has its own `*.test.ts`. */
function inTestedExample(file: string): boolean {
  const dir = path.dirname(file);
  return dir.startsWith('examples/') && readdirSync(path.join(ROOT, dir)).some((name) => name.endsWith('.test.ts'));
}

const blocks = DOCS.flatMap(codeBlocks);
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
