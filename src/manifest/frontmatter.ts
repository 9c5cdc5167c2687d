/**
 * Reads the top-level scalar keys of a Markdown file's YAML front matter (`---` ... `---`), enough
 * for SKILL.md's `name` and `description`: plain, 'single'- or "double"-quoted values, values
 * continued on more-indented lines, and `|` / `>` block scalars. Nested structures are skipped;
 * this is not a YAML parser and never throws.
 */
export function parseFrontMatter(text: string): Record<string, string> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const out: Record<string, string> = {};
  if (lines[0]?.trimEnd() !== '---') return out;
  const end = lines.findIndex((l, i) => i > 0 && (l.trimEnd() === '---' || l.trimEnd() === '...'));
  if (end === -1) return out;
  const body = lines.slice(1, end);

  for (let i = 0; i < body.length; i++) {
    const match = /^([A-Za-z_][\w-]*)\s*:(?:\s+(.*))?$/.exec(body[i] ?? '');
    if (!match) continue;
    const key = match[1] as string;
    const raw = (match[2] ?? '').trim();
    // Continuation lines: everything indented more than the key (which sits at column 0).
    const continued: string[] = [];
    while (i + 1 < body.length && /^(\s+\S|\s*$)/.test(body[i + 1] ?? '')) continued.push(body[++i] ?? '');
    while (continued.length > 0 && (continued[continued.length - 1] ?? '').trim() === '') continued.pop();

    const value = scalar(raw, continued);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function scalar(raw: string, continued: string[]): string | undefined {
  const block = /^([|>])[+-]?\d*$/.exec(raw);
  if (block) {
    const indent = Math.min(
      ...continued.filter((l) => l.trim() !== '').map((l) => l.length - l.trimStart().length),
    );
    const text = continued.map((l) => l.slice(indent).trimEnd());
    return block[1] === '|' ? text.join('\n') : text.map((l) => l || '\n').join(' ').replace(/ ?\n ?/g, '\n');
  }
  const joined = [raw, ...continued.map((l) => l.trim())].filter((l) => l !== '').join(' ');
  if (joined.startsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(joined);
      return typeof parsed === 'string' ? parsed : undefined;
    } catch {
      return joined.endsWith('"') ? joined.slice(1, -1) : undefined;
    }
  }
  if (joined.startsWith("'")) return joined.endsWith("'") ? joined.slice(1, -1).replaceAll("''", "'") : undefined;
  // A nested mapping or sequence has nothing after the colon and structured lines below.
  if (raw === '' && continued.some((l) => /^\s*(-\s|[\w-]+\s*:)/.test(l))) return undefined;
  const withoutComment = joined.replace(/\s+#.*$/, '');
  return withoutComment === '' ? undefined : withoutComment;
}
