/**
 * The `extension.json` manifest. The zod schema is the only definition of the type. Unknown fields
 * are kept (the CLI rewrites manifests and must not lose them) and otherwise ignored. Optional
 * fields accept `null` as "absent", as other languages often serialise absent values that way.
 */
import { z } from 'zod';

/** The manifest file name inside an extension directory. */
export const MANIFEST_FILE = 'extension.json';

/** Largest manifest discovery reads: 1 MiB. A larger file is reported, not parsed. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

/** Longest accepted extension name, in characters. */
export const MAX_NAME_LENGTH = 64;

// Characters no file name may hold on Windows, plus both separators; names become log file names.
const FORBIDDEN_CHARS = /[/\\<>:"|?*]/;
// C0, DEL and C1 control characters.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Why `name` is not a safe extension name, or `undefined` when it is. The name becomes a file name
 * (`ext-<name>.log`) and a directory name for the CLI, so it must not be able to name another path.
 */
export function nameProblem(name: string): string | undefined {
  const shown = JSON.stringify(name);
  if (name.length === 0) return 'name must not be empty';
  if ([...name].length > MAX_NAME_LENGTH)
    return `name ${shown.slice(0, 40)}... is longer than ${MAX_NAME_LENGTH} characters`;
  if (CONTROL_CHARS.test(name)) return `name ${shown} contains a control character`;
  if (FORBIDDEN_CHARS.test(name))
    return `name ${shown} contains a path separator or one of < > : " | ? *`;
  if (name.includes('..')) return `name ${shown} contains ".."`;
  if (name === '.') return 'name must not be "."';
  if (name.trim() !== name) return `name ${shown} starts or ends with whitespace`;
  if (name.startsWith('-')) return `name ${shown} starts with "-" (it would read as a CLI flag)`;
  return undefined;
}

/** Optional field that also accepts `null` as "absent". */
const opt = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === null ? undefined : v), schema.optional());

/** A safe extension name: see {@link nameProblem}. */
export const ManifestName = z.string().superRefine((value, ctx) => {
  const problem = nameProblem(value);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, params: { unsafeName: true } });
});

export const Manifest = z.looseObject({
  /** Identifies the extension; must match the name in its `hello` frame. */
  name: ManifestName,
  /** Shown by `zot-ext list`. */
  version: opt(z.string()),
  /** Executable, relative to the manifest. Required unless the bundle is theme-only or skill-only. */
  exec: opt(z.string().min(1, 'exec must not be empty')),
  /** Extra argv passed to `exec`. */
  args: opt(z.array(z.string())),
  /** Informational (`go`, `python`, `typescript`, ...). */
  language: opt(z.string()),
  /** Shown by `zot-ext list`. */
  description: opt(z.string()),
  /** Skill directories (scanned recursively for SKILL.md) or direct SKILL.md paths, relative to the manifest. */
  skills: opt(z.array(z.string().min(1, 'a skills entry must not be empty'))),
  /** `false` disables the extension without removing it. @default true */
  enabled: z.preprocess((v) => (v === null ? undefined : v), z.boolean().default(true)),
});
export type Manifest = z.output<typeof Manifest>;
