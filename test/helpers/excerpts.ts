// Shared by the docs tests: is a code block of a doc an excerpt of the file it names?

/** Package imports as the repository's files write them. */
export function normalise(line: string): string {
  return line
    .trim()
    .replace(/'(?:\.\.\/)+src\/sdk\/index\.js'/, "'zot-extension-host/sdk'")
    .replace(/'(?:\.\.\/)+src\/testing\/index\.js'/, "'zot-extension-host/testing'")
    .replace(/'(?:\.\.\/)+(?:src|dist)\/index\.js'/, "'zot-extension-host'");
}

/** The snippet lines missing from `source` (in order), or [] when the snippet is an excerpt of it. */
export function missingLines(snippet: readonly string[], source: string): string[] {
  const lines = source.split('\n').map(normalise);
  let at = 0;
  const missing: string[] = [];
  for (const raw of snippet) {
    const line = normalise(raw);
    if (line === '' || line === '// ...') continue;
    const index = lines.indexOf(line, at);
    if (index === -1) missing.push(line);
    else at = index + 1;
  }
  return missing;
}
