// Shared by the docs tests: is a code block of a doc an excerpt of the file it names?

/** Package imports as the repository's files write them. */
export function normalise(line: string): string {
  return line
    .trim()
    .replace(/'(?:\.\.\/)+src\/sdk\/index\.js'/, "'zot-extension-host/sdk'")
    .replace(/'(?:\.\.\/)+src\/testing\/index\.js'/, "'zot-extension-host/testing'")
    .replace(/'(?:\.\.\/)+(?:src|dist)\/index\.js'/, "'zot-extension-host'");
}

/** A fenced code block of a markdown file, with the file named by the snippet comment right above it. */
export interface CodeBlock {
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  file: string | undefined;
  lines: string[];
}

/** Every fenced block of `markdown` (the text of `doc`), with its `<!-- snippet: path -->` comment. */
export function codeBlocks(markdown: string, doc: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const found: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i] ?? '');
    if (open === null) continue;
    const end = lines.indexOf('```', i + 1);
    if (end === -1) throw new Error(`${doc}:${i + 1}: unclosed code block`);
    const file = /^<!-- snippet: (\S+) -->$/.exec(lines[i - 1] ?? '')?.[1];
    found.push({ doc, line: i + 1, lang: open[1] ?? '', file, lines: lines.slice(i + 1, end) });
    i = end;
  }
  return found;
}

/**
 * The snippet lines missing from `source` (in order), or [] when the snippet is an excerpt of it.
 * `elision` is the line that stands for left-out code (`# ...` in Python).
 */
export function missingLines(snippet: readonly string[], source: string, elision = '// ...'): string[] {
  const lines = source.split('\n').map(normalise);
  let at = 0;
  const missing: string[] = [];
  for (const raw of snippet) {
    const line = normalise(raw);
    if (line === '' || line === elision) continue;
    const index = lines.indexOf(line, at);
    if (index === -1) missing.push(line);
    else at = index + 1;
  }
  return missing;
}
