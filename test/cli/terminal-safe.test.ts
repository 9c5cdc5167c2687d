import { describe, expect, it } from 'vitest';
import { indentedBlock, oneLine, terminalSafe, terminalSafeStyled } from '../../src/cli/terminal-safe.js';

describe('terminalSafe', () => {
  it.each([
    ['colour (SGR)', 'a\x1b[31mred\x1b[0m', 'ared'],
    ['window title (OSC, BEL)', 'x\x1b]0;pwned\x07y', 'xy'],
    ['clipboard write (OSC 52, ST)', 'x\x1b]52;c;ZGF0YQ==\x1b\\y', 'xy'],
    ['clear screen and home', 'x\x1b[2J\x1b[Hy', 'xy'],
    ['8-bit CSI', 'a\x9b31mz', 'az'],
    ['8-bit OSC', 'a\x9d0;t\x9cz', 'az'],
    ['DCS string', 'a\x1bPq#0;2\x1b\\b', 'ab'],
    ['save/restore cursor', '\x1b7save\x1b8', 'save'],
    ['charset switch', '\x1b(Bok', 'ok'],
    ['a lone ESC at the end', 'e\x1b', 'e'],
    ['carriage return (overwrites the line)', 'safe\rEVIL', 'safeEVIL'],
    ['bell, backspace, DEL, NEL', 'a\x07b\x08c\x7fd\x85e', 'abcde'],
    ['an unterminated OSC stops at the end of the line', 'a\x1b]0;t\nb', 'a\nb'],
  ])('strips %s', (_what, input, output) => {
    expect(terminalSafe(input)).toBe(output);
  });

  it('keeps newline, tab and any printable text', () => {
    const text = 'tab\there\nnext ✓ ünïcödé 日本 🚀 \u200b';
    expect(terminalSafe(text)).toBe(text);
  });

  it('terminalSafeStyled keeps colour and style only', () => {
    expect(terminalSafeStyled('a\x1b[1;31mred\x1b[0m\x1b]0;t\x07\x1b[2J')).toBe('a\x1b[1;31mred\x1b[0m');
  });
});

describe('oneLine and indentedBlock', () => {
  it('oneLine escapes newline, CR and bidi controls, and strips sequences line by line', () => {
    expect(oneLine('a\n[guard] error: x\r\u202Eexe.txt\u2066')).toBe('a\\n[guard] error: x\\r\\u{202e}exe.txt\\u{2066}');
    expect(oneLine('a\x1b]0;t\nb')).toBe('a\\nb');
    expect(oneLine('plain ✓ \u200f')).toBe('plain ✓ \u200f');
  });

  it('indentedBlock indents every later line and escapes bidi controls', () => {
    expect(indentedBlock('one\n[guard] error\n\u202Ethree')).toBe('one\n  [guard] error\n  \\u{202e}three');
  });
});
