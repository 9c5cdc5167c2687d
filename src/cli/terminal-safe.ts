// Strings an extension supplied (texts, notes, panel lines, names, descriptions, log lines) are
// printed by zot-ext only after this: an extension must not be able to move the cursor, clear the
// screen, set the window title, write to the clipboard (OSC 52) or hide text with a carriage return.

/**
 * ESC sequences (CSI, OSC, DCS/SOS/PM/APC strings, two-character escapes, a lone ESC), the 8-bit C1
 * controls (U+0080-U+009F, CSI/OSC/DCS included, with their strings up to their terminator or the
 * end of the line) and the C0 controls except newline and tab, DEL included.
 */
const CONTROL =
  // eslint-disable-next-line no-control-regex
  /\x1b\[[0-?]*[ -/]*[@-~]?|\x1b\][^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?|\x1b[PX^_][^\x1b\x9c\n]*(?:\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?|\x9b[0-?]*[ -/]*[@-~]?|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** Select Graphic Rendition only (colours, bold, …): `ESC [ <digits and ;> m`. */
const SGR = /^\x1b\[[0-9;:]*m$/;

/** `text` without any terminal control sequence; newline and tab stay. */
export function terminalSafe(text: string): string {
  // The common case costs one test.
  return hasControl(text) ? text.replace(CONTROL, '') : text;
}

/**
 * Like terminalSafe, but SGR sequences (colour and style) stay: a panel's own rendering. Used for
 * panel lines when the output has colour.
 */
export function terminalSafeStyled(text: string): string {
  return hasControl(text) ? text.replace(CONTROL, (seq) => (SGR.test(seq) ? seq : '')) : text;
}

// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

function hasControl(text: string): boolean {
  return ANY_CONTROL.test(text);
}

// Bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): they reorder what the
// terminal shows after them ("\u202Eexe.txt" reads "txt.exe"). Escaped, so they show as what they are.
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

const escapeCodePoint = (c: string): string => `\\u{${c.codePointAt(0)!.toString(16)}}`;

/**
 * One line for a string an extension supplied where the CLI prints one line per item (a note, a
 * progress message, a warning): newline and carriage return shown escaped (`\n`, `\r`), so the
 * text cannot start a line that passes for the CLI's own; bidi controls escaped (`\u{202e}`);
 * other control sequences removed as by terminalSafe.
 */
export function oneLine(text: string): string {
  const lines = text.split('\n').map((part) => terminalSafe(part.replaceAll('\r', '\\r')));
  return lines.join('\\n').replace(BIDI, escapeCodePoint);
}

/**
 * A text block an extension supplied, printed after a `[name] kind: ` label: as terminalSafe, and
 * every line after the first indented by two spaces (no line of it passes for one of the CLI's own
 * `[name] ...` lines); bidi controls escaped.
 */
export function indentedBlock(text: string): string {
  return terminalSafe(text).replaceAll('\n', '\n  ').replace(BIDI, escapeCodePoint);
}
