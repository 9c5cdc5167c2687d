// The zod path of the frame decoder (see decodeLine() in frame-check.ts, the one entry point), loaded on first use.
import type { z } from 'zod';
import { type CodecModule, type DecodedFrame, type DecodedLine, LineProblem, decodeLine, toDecodedFrame } from './frame-check.js';
import { ExtensionFrame, ProgressFrame } from './frames.js';

export { encodeFrame, preview } from './frame-check.js';
export type { DecodedFrame, FrameProblem } from './frame-check.js';

/** Human-readable summary of a zod error: `path: message; path: message`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(frame)'}: ${issue.message}`)
    .join('; ');
}

/** @internal The schema's verdict on a parsed object whose `type` is a known extension frame type. */
export function schemaFrame(value: Record<string, unknown>, type: string): DecodedLine {
  const parsed = ExtensionFrame.safeParse(value);
  if (parsed.success) return parsed.data;
  const id = value.id;
  return new LineProblem({
    kind: 'invalid',
    type,
    message: `invalid ${type} frame (${describeIssues(parsed.error)})`,
    id: typeof id === 'string' ? id : undefined,
  });
}

/** @internal The `progress` schema's verdict on a parsed object of that type. */
export function progressFrame(value: Record<string, unknown>): ProgressFrame | LineProblem {
  const parsed = ProgressFrame.safeParse(value);
  if (parsed.success) return parsed.data;
  return new LineProblem({ kind: 'invalid', type: 'progress', message: `invalid progress frame (${describeIssues(parsed.error)})` });
}

const codec: CodecModule = { schemaFrame, progressFrame };

/** Parses one line from an extension: JSON once, then the frame schema. Never throws. */
export function decodeExtensionFrame(line: string): DecodedFrame {
  return toDecodedFrame(decodeLine(line, codec));
}
