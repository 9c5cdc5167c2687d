// Every code block of "Testing your extension" in docs/writing-extensions.md is an excerpt of a file
// that runs in CI: each names its file in a `<!-- snippet: path -->` comment, and its lines must appear
// in that file in the same order (`// ...` elides; package imports stand for the relative src ones).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/fixtures.js';
import { codeBlocks, missingLines } from '../helpers/excerpts.js';

const doc = readFileSync(path.join(ROOT, 'docs/writing-extensions.md'), 'utf8');
const start = doc.indexOf('## Testing your extension');
const end = doc.indexOf('\n## ', start + 1);
const section = doc.slice(start, end === -1 ? undefined : end);

describe('docs/writing-extensions.md: Testing your extension', () => {
  const list = codeBlocks(section, 'docs/writing-extensions.md');

  it('has code blocks, each naming the file it comes from', () => {
    expect(start).toBeGreaterThan(-1);
    expect(list.length).toBeGreaterThan(5);
    expect(list.filter((block) => block.file === undefined).map((block) => block.lines.slice(0, 3).join('\n'))).toEqual([]);
  });

  it.each(list.map((block, i) => [`block ${i + 1} (${block.file})`, block] as const))('%s is an excerpt of its file', (_title, block) => {
    const source = readFileSync(path.join(ROOT, block.file ?? ''), 'utf8');
    expect(missingLines(block.lines, source)).toEqual([]);
  });
});

describe('docs/writing-extensions.md: Long-running handlers', () => {
  const from = doc.indexOf('## Long-running handlers: cancellation and progress');
  const list = codeBlocks(doc.slice(from, doc.indexOf('\n## ', from + 1)), 'docs/writing-extensions.md');

  it('has code blocks, each naming the file it comes from', () => {
    expect(from).toBeGreaterThan(-1);
    expect(list.length).toBeGreaterThan(1);
    expect(list.filter((block) => block.file === undefined)).toEqual([]);
  });

  it.each(list.map((block, i) => [`block ${i + 1} (${block.file})`, block] as const))('%s is an excerpt of its file', (_title, block) => {
    expect(missingLines(block.lines, readFileSync(path.join(ROOT, block.file ?? ''), 'utf8'))).toEqual([]);
  });
});
