// The golden wire corpus: every frame example of the spec (plus the frames it only describes in
// prose) as one file under test/fixtures/wire, parsed by the frame schemas.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  EVENT_NAMES,
  EXTENSION_FRAME_TYPES,
  EventFrame,
  EventInterceptFrame,
  ExtensionFrame,
  HostFrame,
  INTERCEPT_NAMES,
} from '../../src/protocol/frames.js';
import { decodeExtensionFrame, encodeFrame } from '../../src/protocol/codec.js';

const WIRE_DIR = fileURLToPath(new URL('../fixtures/wire/', import.meta.url));
const NAME = /^(ext|host)\.([a-z_]+)(?:\.([a-z0-9_]+))?\.json$/;

interface CorpusFile {
  file: string;
  direction: 'ext' | 'host';
  type: string;
  variant: string | undefined;
  raw: Record<string, unknown>;
}

const files = readdirSync(WIRE_DIR).filter((f) => f.endsWith('.json')).sort();
const misnamed = files.filter((f) => !NAME.test(f));
const corpus: CorpusFile[] = files.flatMap((file) => {
  const match = NAME.exec(file);
  if (!match) return [];
  return {
    file,
    direction: match[1] as 'ext' | 'host',
    type: match[2] as string,
    variant: match[3],
    raw: JSON.parse(readFileSync(`${WIRE_DIR}${file}`, 'utf8')) as Record<string, unknown>,
  };
});

/** The string literals a schema accepts at `key`, walking through (discriminated) unions. */
function literalsAt(schema: z.ZodType, key: string): string[] {
  if (schema instanceof z.ZodUnion) {
    return (schema.options as z.ZodType[]).flatMap((option) => literalsAt(option, key));
  }
  if (schema instanceof z.ZodObject) {
    const field = (schema.shape as Record<string, z.ZodType>)[key];
    return field instanceof z.ZodLiteral ? [...field.values].map(String) : [];
  }
  return [];
}

const schemaFor = (direction: 'ext' | 'host') => (direction === 'ext' ? ExtensionFrame : HostFrame);

describe('golden wire corpus', () => {
  it('is not empty and every file follows <direction>.<type>[.<variant>].json', () => {
    expect(misnamed).toEqual([]);
    expect(corpus.length).toBeGreaterThan(40);
  });

  it.each(corpus)('$file parses with the frame schema of its direction, unchanged', ({ direction, type, variant, raw }) => {
    const parsed = schemaFor(direction).safeParse(raw);
    expect(parsed.error).toBeUndefined();
    const frame = parsed.data as Record<string, unknown>;
    expect(frame.type).toBe(type);
    if (type === 'event' || type === 'event_intercept') expect(frame.event).toBe(variant);
    // Nothing dropped, renamed or coerced.
    expect(frame).toEqual(raw);
  });

  it.each(corpus)('$file tolerates unknown extra fields', ({ direction, type, raw }) => {
    const future = { ...raw, x_future: { nested: [1, 'two'] }, another: null };
    const parsed = schemaFor(direction).safeParse(future);
    expect(parsed.error).toBeUndefined();
    // Only hello keeps them (extension metadata); every other frame drops them.
    expect(parsed.data).toEqual(type === 'hello' ? future : raw);
  });

  it.each(corpus.filter((c) => c.direction === 'ext'))(
    '$file survives encodeFrame -> decodeExtensionFrame',
    ({ raw }) => {
      const line = encodeFrame(raw);
      expect(line.endsWith('\n')).toBe(true);
      const decoded = decodeExtensionFrame(line.slice(0, -1));
      expect(decoded).toEqual({ ok: true, frame: raw });
    },
  );

  it('has a file for every extension -> host frame type', () => {
    const types = literalsAt(ExtensionFrame, 'type');
    expect(new Set(types)).toEqual(EXTENSION_FRAME_TYPES);
    const covered = new Set(corpus.filter((c) => c.direction === 'ext').map((c) => c.type));
    expect(types.filter((t) => !covered.has(t))).toEqual([]);
  });

  it('has a file for every host -> extension frame type', () => {
    const types = new Set(literalsAt(HostFrame, 'type'));
    expect(types.size).toBeGreaterThanOrEqual(8);
    const covered = new Set(corpus.filter((c) => c.direction === 'host').map((c) => c.type));
    expect([...types].filter((t) => !covered.has(t))).toEqual([]);
  });

  it('has a file for every named lifecycle event and every interceptable event', () => {
    const events = new Set(corpus.filter((c) => c.type === 'event').map((c) => c.variant));
    const intercepts = new Set(corpus.filter((c) => c.type === 'event_intercept').map((c) => c.variant));
    expect(new Set(literalsAt(EventFrame, 'event'))).toEqual(new Set(EVENT_NAMES));
    expect(new Set(literalsAt(EventInterceptFrame, 'event'))).toEqual(new Set(INTERCEPT_NAMES));
    expect(EVENT_NAMES.filter((e) => !events.has(e))).toEqual([]);
    expect(INTERCEPT_NAMES.filter((e) => !intercepts.has(e))).toEqual([]);
  });

  it('names only frame types that exist in that direction', () => {
    const ext = new Set(literalsAt(ExtensionFrame, 'type'));
    const host = new Set(literalsAt(HostFrame, 'type'));
    const stray = corpus.filter((c) => !(c.direction === 'ext' ? ext : host).has(c.type)).map((c) => c.file);
    expect(stray).toEqual([]);
  });
});
