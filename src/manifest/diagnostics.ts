/**
 * Every problem discovery finds becomes a diagnostic with one of these codes; discovery itself never
 * throws for bad input. Severity: `error` = an extension (or one of its skills entries) was not
 * loaded; `warning` = it was listed, but something is likely wrong or worth knowing.
 * docs/discovery.md says, per code, what to fix.
 */
export const DiagnosticCode = {
  /** An explicit path does not exist. */
  PATH_NOT_FOUND: 'PATH_NOT_FOUND',
  /** A root or extension directory exists but cannot be listed (permissions, not a directory). */
  DIR_UNREADABLE: 'DIR_UNREADABLE',
  /** A symlink (root entry or explicit path) points to something that does not exist. */
  SYMLINK_BROKEN: 'SYMLINK_BROKEN',
  /** A symlink chain loops (or is too deep to resolve). */
  SYMLINK_LOOP: 'SYMLINK_LOOP',
  /** An extension directory has no `extension.json`. */
  MANIFEST_MISSING: 'MANIFEST_MISSING',
  /** `extension.json` exists but cannot be read (permissions, not a regular file). */
  MANIFEST_UNREADABLE: 'MANIFEST_UNREADABLE',
  /** `extension.json` is larger than {@link MAX_MANIFEST_BYTES}. */
  MANIFEST_TOO_LARGE: 'MANIFEST_TOO_LARGE',
  /** `extension.json` is not valid JSON; the diagnostic carries line and column. */
  MANIFEST_INVALID_JSON: 'MANIFEST_INVALID_JSON',
  /** `extension.json` is JSON but a field is missing or has the wrong type. */
  MANIFEST_INVALID: 'MANIFEST_INVALID',
  /** `name` is a string but not a safe file/log name (separators, `..`, control characters, length). */
  NAME_UNSAFE: 'NAME_UNSAFE',
  /** A process extension (no theme, no skills) has no `exec`. */
  EXEC_MISSING: 'EXEC_MISSING',
  /** `exec` is a path (relative to the manifest or absolute) that does not exist. */
  EXEC_NOT_FOUND: 'EXEC_NOT_FOUND',
  /** `exec` exists but is not an executable file. */
  EXEC_NOT_EXECUTABLE: 'EXEC_NOT_EXECUTABLE',
  /** A `skills` entry points outside the extension directory (`..`, absolute path or symlink); it is refused. */
  SKILL_PATH_ESCAPES: 'SKILL_PATH_ESCAPES',
  /** A `skills` entry does not exist (or cannot be read). */
  SKILL_PATH_MISSING: 'SKILL_PATH_MISSING',
  /** A `skills` directory contains no `SKILL.md`. */
  SKILL_NOT_FOUND: 'SKILL_NOT_FOUND',
  /** An explicit entry is a URL, but not one a remote extension can have (only `ws://` and `wss://`). */
  URL_INVALID: 'URL_INVALID',
  /** An extension has the same name as one from an earlier root (explicit > project > global); it is not spawned. */
  SHADOWED: 'SHADOWED',
  /** Two directories in the same root declare the same name; the later one is not spawned. */
  DUPLICATE_NAME: 'DUPLICATE_NAME',
} as const;

export type DiagnosticCode = (typeof DiagnosticCode)[keyof typeof DiagnosticCode];

export type DiagnosticSeverity = 'error' | 'warning';

/** One problem found by discovery, naming the file and what is wrong with it. */
export interface DiscoveryDiagnostic {
  code: DiagnosticCode;
  severity: DiagnosticSeverity;
  /** Human-readable: what is wrong and what to do about it. */
  message: string;
  /** The file or directory concerned. */
  path: string;
  /** The extension's manifest name, when it is known and safe. */
  extension?: string | undefined;
  /** 1-based line of a JSON syntax error (MANIFEST_INVALID_JSON). */
  line?: number | undefined;
  /** 1-based column (in characters) of a JSON syntax error (MANIFEST_INVALID_JSON). */
  column?: number | undefined;
}
