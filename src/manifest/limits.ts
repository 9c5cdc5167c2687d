// Manifest constants and the extension-name rule. No zod here: the package's main entry imports
// these, while the manifest schema (schema.ts) is loaded only when discovery parses manifests.

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

// Characters that show nothing, or reorder what is shown: zero-width and other default-ignorable
// code points, format characters (bidi overrides and isolates among them), line and paragraph
// separators. A name holding one could pass for another.
const INVISIBLE_CHARS = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/u;

/**
 * The identity of a name for duplicates and conflicts: NFC-normalised and case-folded, so that
 * `Guard`, `guard` and `gu\u0061\u0308rd`/`guärd` spellings that render alike are one extension.
 * (Full Unicode case folding approximated by upper- then lower-casing: `ß` and `SS` fold alike.)
 */
export function nameKey(name: string): string {
  return name.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC');
}

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
  const invisible = INVISIBLE_CHARS.exec(name);
  if (invisible !== null) {
    const code = `U+${invisible[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    const visible = shown.replace(new RegExp(INVISIBLE_CHARS.source, 'gu'), (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
    return `name ${visible} contains the invisible or reordering character ${code} (zero-width, bidi control or other format character)`;
  }
  if (FORBIDDEN_CHARS.test(name))
    return `name ${shown} contains a path separator or one of < > : " | ? *`;
  if (name.includes('..')) return `name ${shown} contains ".."`;
  if (name === '.') return 'name must not be "."';
  if (name.trim() !== name) return `name ${shown} starts or ends with whitespace`;
  if (name.startsWith('-')) return `name ${shown} starts with "-" (it would read as a CLI flag)`;
  return undefined;
}
