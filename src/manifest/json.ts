/**
 * JSON.parse with a usable error: line, column and what was expected. JSON.parse's own messages
 * differ between Node versions and often lack a position, so on failure a small strict scanner
 * (RFC 8259) walks the text again to find the first offending character. The happy path costs
 * nothing extra.
 */

export type JsonParseResult =
  | { ok: true; value: unknown }
  | { ok: false; message: string; offset: number; line: number; column: number };

const MAX_DEPTH = 512;

export function parseJson(text: string): JsonParseResult {
  // Editors on Windows like to write a BOM; it is not JSON but it is not the author's mistake either.
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(source) };
  } catch (err) {
    const found = locateJsonError(source) ?? {
      offset: 0,
      message: err instanceof Error ? err.message : String(err),
    };
    return { ok: false, ...found, ...lineColumn(source, found.offset) };
  }
}

/** 1-based line and column (counted in characters, not bytes) of `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let nl = text.indexOf('\n'); nl !== -1 && nl < offset; nl = text.indexOf('\n', nl + 1)) {
    line++;
    lineStart = nl + 1;
  }
  return { line, column: [...text.slice(lineStart, offset)].length + 1 };
}

class Stop {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

/** The first syntax error in `s`, or undefined when `s` is valid JSON. */
export function locateJsonError(s: string): { offset: number; message: string } | undefined {
  let i = 0;
  const found = (): string => (i >= s.length ? 'end of file' : JSON.stringify(s[i]));
  const fail = (expected: string): never => {
    throw new Stop(i, `expected ${expected} but found ${found()}`);
  };
  const ws = (): void => {
    for (let c = s[i]; c === ' ' || c === '\t' || c === '\n' || c === '\r'; c = s[++i]);
  };
  const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
  const digits = (): void => {
    if (!isDigit(s[i])) fail('a digit');
    while (isDigit(s[i])) i++;
  };

  const string = (): void => {
    i++; // opening quote
    for (;;) {
      if (i >= s.length) fail('a closing \'"\'');
      const c = s.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c === 0x5c) {
        i++;
        const e = s[i];
        if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
        else if (e === 'u') {
          i++;
          for (let k = 0; k < 4; k++, i++) if (!/[0-9a-fA-F]/.test(s[i] ?? '')) fail('a hex digit of a \\u escape');
        } else fail('a valid escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)');
      } else if (c < 0x20) {
        throw new Stop(i, 'a string contains a raw control character (a line break?); escape it, e.g. \\n');
      } else i++;
    }
  };

  const number = (): void => {
    if (s[i] === '-') i++;
    if (s[i] === '0') i++;
    else digits();
    if (s[i] === '.') {
      i++;
      digits();
    }
    if (s[i] === 'e' || s[i] === 'E') {
      i++;
      if (s[i] === '+' || s[i] === '-') i++;
      digits();
    }
  };

  const value = (depth: number): void => {
    ws();
    if (depth > MAX_DEPTH) throw new Stop(i, 'nesting is too deep');
    const c = s[i];
    if (c === '{') {
      i++;
      ws();
      if (s[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (s[i] === '}') throw new Stop(i, 'a trailing comma before "}" is not allowed in JSON');
        if (s[i] !== '"') fail('a property name in double quotes');
        string();
        ws();
        if (s[i] !== ':') fail('":" after the property name');
        i++;
        value(depth + 1);
        ws();
        if (s[i] === ',') i++;
        else if (s[i] === '}') {
          i++;
          return;
        } else fail('"," or "}" after a property value');
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (s[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (s[i] === ']') throw new Stop(i, 'a trailing comma before "]" is not allowed in JSON');
        value(depth + 1);
        ws();
        if (s[i] === ',') i++;
        else if (s[i] === ']') {
          i++;
          return;
        } else fail('"," or "]" after an array element');
      }
    }
    if (c === '"') return string();
    if (c === '-' || isDigit(c)) return number();
    for (const literal of ['true', 'false', 'null']) {
      if (s.startsWith(literal, i)) {
        i += literal.length;
        return;
      }
    }
    fail('a value');
  };

  try {
    value(0);
    ws();
    if (i < s.length) fail('end of file after the JSON value');
    return undefined;
  } catch (err) {
    if (err instanceof Stop) return { offset: err.offset, message: err.message };
    throw err;
  }
}
