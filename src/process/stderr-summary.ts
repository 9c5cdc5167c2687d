// Which stderr lines summarise a crash. A stack trace ends with frames, not with what went wrong, so
// the line that names the error leads the summary when it is further up than the last lines.

// Names the error: `Error: boom`, `TypeError: x`, `Error [ERR_X]: x`, `  SyntaxError: x` (Node),
// `Traceback (...)` (Python), `panic:` (Go), `error:` / `error[E0425]:` (Rust, CLIs). Anchored so that
// the source line Node prints above it (`    throw new Error('boom');`) does not count.
const ERROR_LINE = /^\s*[\w.$]*(?:Error|Exception)(?: \[[^\]]*\])?:|^Traceback \(most recent call last\)|^panic:|^(?:fatal )?error(?:\[\w+\])?:/;
// Node's last line after an uncaught exception says nothing about the error.
const NOISE = /^Node\.js v\d+\.\d+\.\d+$/;
const MAX_LINE_CHARS = 300;

/**
 * The last `count` meaningful lines of `lines`; when none of them names the error (a stack trace's
 * frames), the first line further up that does replaces the oldest.
 */
export function stderrSummary(lines: readonly string[], count: number): string[] {
  const useful = lines.filter((line) => line.trim().length > 0 && !NOISE.test(line.trim()));
  const last = useful.slice(-count);
  if (!last.some((line) => ERROR_LINE.test(line))) {
    const named = useful.findIndex((line) => ERROR_LINE.test(line));
    if (named !== -1) last.splice(0, 1, useful[named]!);
  }
  return last.map((line) => (line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line));
}
