import type { z } from 'zod';
import { EXTENSION_FRAME_TYPES, ExtensionFrame } from './frames.js';
import { hotFrame } from './hot-frames.js';

export { encodeFrame } from './encode.js';

export type FrameProblem =
  | { kind: 'not_json'; message: string }
  | { kind: 'not_object'; message: string }
  | { kind: 'unknown_type'; message: string; type: string }
  | { kind: 'invalid'; message: string; type: string; id?: string | undefined };

export type DecodedFrame = { ok: true; frame: ExtensionFrame } | { ok: false; problem: FrameProblem };

const PREVIEW = 120;

/** A short, printable excerpt of a line for diagnostics. */
export function preview(text: string): string {
  const oneLine = text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text;
  return JSON.stringify(oneLine);
}

/** Human-readable summary of a zod error: `path: message; path: message`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(frame)'}: ${issue.message}`)
    .join('; ');
}

/** Parses one line from an extension: JSON once, then the frame schema. Never throws. */
export function decodeExtensionFrame(line: string): DecodedFrame {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return notJson(line, err);
  }
  return decodeParsed(value, line);
}

/** @internal The problem of a line that JSON.parse() rejected with `err` (parsed once, not twice). */
export function notJson(line: string, err: unknown): DecodedFrame {
  return { ok: false, problem: { kind: 'not_json', message: `not JSON (${(err as Error).message}): ${preview(line)}` } };
}

/**
 * @internal decodeExtensionFrame() of a line already parsed into `value` (`line` is only quoted in
 * problems): the process layer parses each line itself and checks the hot response shapes without
 * loading this module's zod. Never throws.
 */
export function decodeParsed(value: unknown, line: string): DecodedFrame {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problem: { kind: 'not_object', message: `not a JSON object: ${preview(line)}` } };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !EXTENSION_FRAME_TYPES.has(type)) {
    const shown = typeof type === 'string' ? type : String(type);
    return {
      ok: false,
      problem: { kind: 'unknown_type', type: shown, message: `unknown frame type ${JSON.stringify(type ?? null)}: ${preview(line)}` },
    };
  }
  // Responses in their plain shape skip zod (each frame is still parsed and checked exactly once).
  const hot = hotFrame(value as Record<string, unknown>, type);
  if (hot !== undefined) return { ok: true, frame: hot };
  const parsed = ExtensionFrame.safeParse(value);
  if (!parsed.success) {
    const id = (value as { id?: unknown }).id;
    return {
      ok: false,
      problem: {
        kind: 'invalid',
        type,
        message: `invalid ${type} frame (${describeIssues(parsed.error)})`,
        id: typeof id === 'string' ? id : undefined,
      },
    };
  }
  return { ok: true, frame: parsed.data };
}
