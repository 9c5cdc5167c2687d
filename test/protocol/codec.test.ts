import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeExtensionFrame, encodeFrame, preview } from '../../src/protocol/codec.js';
import type { FrameProblem } from '../../src/protocol/codec.js';
import { LineDecoder } from '../../src/protocol/decoder.js';

function problemOf(line: string): FrameProblem {
  const decoded = decodeExtensionFrame(line);
  if (decoded.ok) throw new Error(`expected a problem for ${line}`);
  return decoded.problem;
}

describe('decodeExtensionFrame', () => {
  it('returns the parsed frame for a valid line', () => {
    expect(decodeExtensionFrame('{"type":"notify","level":"info","message":"hi"}')).toEqual({
      ok: true,
      frame: { type: 'notify', level: 'info', message: 'hi' },
    });
  });

  it('reports a line that is not JSON as not_json, quoting the line', () => {
    const problem = problemOf('{"type":"ready"');
    expect(problem.kind).toBe('not_json');
    expect(problem.message).toMatch(/^not JSON \(/);
    expect(problem.message).toContain('"{\\"type\\":\\"ready\\""');
    expect(problemOf('starting server on :8080...').kind).toBe('not_json');
  });

  it.each(['[1,2]', '42', 'null', '"ready"', 'true'])('reports %s as not_object', (line) => {
    const problem = problemOf(line);
    expect(problem.kind).toBe('not_object');
    expect(problem.message).toContain('not a JSON object');
  });

  it('reports an unknown type as unknown_type, naming it', () => {
    const problem = problemOf('{"type":"explode","x":1}');
    expect(problem).toMatchObject({ kind: 'unknown_type', type: 'explode' });
    expect(problem.message).toContain('unknown frame type "explode"');
  });

  it('reports a frame type of the other direction as unknown_type', () => {
    expect(problemOf('{"type":"hello_ack","protocol_version":1}')).toMatchObject({ kind: 'unknown_type', type: 'hello_ack' });
  });

  it('reports a missing or non-string type as unknown_type', () => {
    expect(problemOf('{"name":"weather"}')).toMatchObject({ kind: 'unknown_type', type: 'undefined' });
    expect(problemOf('{"name":"weather"}').message).toContain('unknown frame type null');
    expect(problemOf('{"type":5}')).toMatchObject({ kind: 'unknown_type', type: '5' });
    expect(problemOf('{"type":null}').kind).toBe('unknown_type');
  });

  it('reports a known type with a wrong shape as invalid, naming the field', () => {
    const problem = problemOf('{"type":"hello","name":123}');
    expect(problem).toMatchObject({ kind: 'invalid', type: 'hello' });
    expect(problem.message).toMatch(/^invalid hello frame \(name: .*expected string.*\)$/);
  });

  it('names nested fields with a dotted path', () => {
    const problem = problemOf('{"type":"command_response","id":"c1","action":"open_panel","open_panel":{"title":"x"}}');
    expect(problem.message).toContain('open_panel.id');
    expect(problemOf('{"type":"tool_result","id":"c1","content":[{"type":"image","data":"AA=="}]}').message).toContain(
      'content.0',
    );
  });

  it('keeps the id of an invalid response so its request can be settled', () => {
    expect(problemOf('{"type":"command_response","id":"c7","action":"explode"}')).toMatchObject({ kind: 'invalid', id: 'c7' });
    const noStringId = problemOf('{"type":"tool_result","id":7}');
    expect(noStringId.kind).toBe('invalid');
    expect(noStringId).not.toHaveProperty('id', 7);
    expect((noStringId as { id?: unknown }).id).toBeUndefined();
  });

  it('keeps messages short for huge lines', () => {
    const huge = `{"type":"notify","message":"${'x'.repeat(100_000)}"`;
    const problem = problemOf(huge);
    expect(problem.kind).toBe('not_json');
    expect(problem.message.length).toBeLessThan(400);
    expect(problem.message).toContain('…');
  });

  it('never throws, whatever the line', () => {
    const kinds = new Set(['not_json', 'not_object', 'unknown_type', 'invalid']);
    const line = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.json(),
      fc.record({ type: fc.constantFrom('hello', 'notify', 'tool_result', 'command_response', 'x'), name: fc.jsonValue() }).map((v) =>
        JSON.stringify(v),
      ),
    );
    fc.assert(
      fc.property(line, (text) => {
        const decoded = decodeExtensionFrame(text);
        if (!decoded.ok) expect(kinds.has(decoded.problem.kind)).toBe(true);
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});

describe('preview', () => {
  it('quotes a short line as a JSON string and cuts a long one', () => {
    expect(preview('a\nb')).toBe('"a\\nb"');
    expect(preview('y'.repeat(500))).toBe(JSON.stringify(`${'y'.repeat(120)}…`));
  });
});

describe('encodeFrame', () => {
  it('writes one JSON object and exactly one LF, at the end', () => {
    const line = encodeFrame({ type: 'command_invoked', id: 'c1', name: 'weather', args: 'a\nb\r\nc' });
    expect(line.endsWith('\n')).toBe(true);
    expect(line.indexOf('\n')).toBe(line.length - 1);
    expect(line).not.toContain('\r');
    expect(JSON.parse(line)).toEqual({ type: 'command_invoked', id: 'c1', name: 'weather', args: 'a\nb\r\nc' });
  });

  it('escapes U+2028 and U+2029 without changing the value', () => {
    const frame = { type: 'event', event: 'assistant_message', text: 'line\u2028sep\u2029para', ['k\u2028']: 1 };
    const line = encodeFrame(frame);
    expect(line).not.toMatch(/[\u2028\u2029]/);
    expect(line).toContain('line\\u2028sep\\u2029para');
    expect(JSON.parse(line)).toEqual(frame);
  });

  it('round-trips any JSON object, as one line the decoder reads back whole', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '"', '\\', '\n', '\r', 'é', '🎉', '中', '\u2028', '\u2029', '\u0000') });
    const frame = fc.dictionary(text, fc.jsonValue({ stringUnit: 'binary', maxDepth: 3 }), { maxKeys: 6 });
    fc.assert(
      fc.property(frame, (value) => {
        const line = encodeFrame(value);
        const lines: string[] = [];
        const decoder = new LineDecoder((l) => lines.push(l), () => {
          throw new Error('overflow');
        });
        decoder.push(Buffer.from(line, 'utf8'));
        decoder.end();
        expect(lines).toEqual([line.slice(0, -1)]);
        expect(JSON.parse(line)).toEqual(value);
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});
