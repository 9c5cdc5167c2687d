import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineColumn, locateJsonError, parseJson } from '../../src/manifest/index.js';

describe('parseJson', () => {
  it('parses valid JSON', () => {
    expect(parseJson('{"a":[1,2.5e3,-0,true,null,"\\u00e9"]}')).toEqual({
      ok: true,
      value: { a: [1, 2500, -0, true, null, 'é'] },
    });
  });

  it.each([
    ['{"a":1,}', 1, 8, 'trailing comma before "}"'],
    ['[1,2,]', 1, 6, 'trailing comma before "]"'],
    ['{"a" 1}', 1, 6, 'expected ":" after the property name but found "1"'],
    ["{'a':1}", 1, 2, 'expected a property name in double quotes but found "\'"'],
    ['{\n  "a": tru\n}', 2, 8, 'expected a value but found "t"'],
    ['{"a": "x\ny"}', 1, 9, 'raw control character'],
    ['{"a": "\\q"}', 1, 9, 'expected a valid escape'],
    ['{"a": 01}', 1, 8, 'expected "," or "}" after a property value but found "1"'],
    ['{"a": 1.}', 1, 9, 'expected a digit but found "}"'],
    ['{"a": 1} x', 1, 10, 'expected end of file after the JSON value'],
    ['{"a": "é😀", "b" 2}', 1, 17, 'expected ":"'],
    ['{"a": [1, 2', 1, 12, 'found end of file'],
    ['"\\u12G4"', 1, 6, 'hex digit'],
  ])('locates the error in %j at %i:%i', (text, line, column, message) => {
    const result = parseJson(text);
    expect(result).toMatchObject({ ok: false, line, column });
    expect(result.ok === false && result.message).toContain(message);
  });

  it('counts columns in characters and lines at LF (CRLF files too)', () => {
    expect(lineColumn('ab\r\ncd😀x', 9)).toEqual({ line: 2, column: 5 });
  });

  it('agrees with JSON.parse on valid documents and on random corruptions of them', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), fc.string({ maxLength: 3 }), (value, at, junk) => {
        const text = JSON.stringify(value, null, at % 3);
        expect(locateJsonError(text)).toBeUndefined();
        const cut = at % (text.length + 1);
        const broken = text.slice(0, cut) + junk + text.slice(cut + (at % 2));
        let valid = true;
        try {
          JSON.parse(broken);
        } catch {
          valid = false;
        }
        expect(locateJsonError(broken) === undefined).toBe(valid);
      }),
      { seed: 20240601, numRuns: 500 },
    );
  });
});
