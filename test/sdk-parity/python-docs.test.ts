// Every Python code block of docs/writing-extensions-python.md and python/README.md is an excerpt of a file that runs in CI:
// each names its file in a `<!-- snippet: path -->` comment right above it, and its non-empty lines
// (trimmed) must appear in that file in the same order (`# ...` elides). Blocks of other languages are
// checked the same way when they name a file. The files are the Python SDK and its tests, the Python
// examples and the Python kitchen (run by `npm run test:python`, their subprocess tests and the parity suite).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlocks, missingLines } from '../helpers/excerpts.js';
import { ROOT } from '../helpers/fixtures.js';

const DOCS = ['docs/writing-extensions-python.md', 'python/README.md'];
// fixtures/sdk/gate-py runs in python/tests/test_interactive.py and test/host/interactive-tools.test.ts,
// fixtures/sdk/relay-py in test/host/call-tool-sdk.test.ts.
const RUN_IN_CI = /^(?:python\/(?:zot_ext|tests)\/.+\.py|examples\/python-[^/]+\/.+\.(?:py|json)|fixtures\/sdk\/(?:kitchen|gate|relay)-py\/.+\.py)$/;

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

const blocks = DOCS.flatMap((doc) => codeBlocks(read(doc), doc)).map((b) => ({ ...b, where: `${b.doc}:${b.line}` }));
const named = blocks.filter((b) => b.file !== undefined);

describe('the Python docs', () => {
  it('every python block names the file it comes from', () => {
    expect(blocks.filter((b) => b.lang === 'python').length).toBeGreaterThan(7);
    expect(blocks.filter((b) => b.lang === 'python' && b.file === undefined).map((b) => b.where)).toEqual([]);
  });

  it.each(named.map((b) => [`${b.where} (${b.file})`, b] as const))('%s is an excerpt of a file that runs in CI', (_title, block) => {
    const file = block.file ?? '';
    expect(file).toMatch(RUN_IN_CI);
    expect(missingLines(block.lines, read(file), '# ...')).toEqual([]);
  });

  it('the excerpt check catches a line that is not in the file, or out of order', () => {
    expect(missingLines(['b', '# ...', 'a'], 'a\nb\n', '# ...')).toEqual(['a']);
    expect(missingLines(['  a', 'b  '], 'a\nb\n', '# ...')).toEqual([]);
  });

  it('is linked from the README and from writing-extensions.md', () => {
    expect(read('README.md')).toContain('(docs/writing-extensions-python.md)');
    expect(read('docs/writing-extensions.md')).toContain('(writing-extensions-python.md)');
  });

  it('npm run test:python runs the SDK tests and every Python example', () => {
    const script = read('python/run-tests.sh');
    expect(script).toContain('discover -s python/tests');
    expect(script).toContain('for dir in examples/python-*/');
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test).toContain('npm run test:python');
  });
});
