/**
 * The one decoder of extension -> host frames: `decodeLine()` takes one line (without its LF) and
 * returns the frame, or a `LineProblem` saying why the line is not one. Every line goes through it
 * once:
 *
 * 1. `JSON.parse` (a failure is `not_json`), an object check (`not_object`) and a known `type`
 *    (`unknown_type`, from names.ts);
 * 2. the frame checker (frame-check.ts): a frame in its plain valid shape is returned as parsed,
 *    without zod, so that a usual start and usual calls need no schema at all;
 * 3. the zod path (codec.ts): everything else is checked by the frame schemas of frames.ts, the only
 *    definition of the wire types, which also word the `invalid` problems.
 *
 * The zod path is loaded on first use, by `loadCodec()` (why: frame-check.ts). Until it is loaded, a
 * frame that needs it is an `invalid` problem that `needsCodec()` recognises (never a throw): the
 * process layer then holds that line and the ones after it, loads the codec and decodes them in order.
 */
import type { ExtensionFrame, ProgressFrame } from './frames.js';
import { checkFrame, checkProgress } from './frame-check.js';
import { EXTENSION_FRAME_TYPES, type ExtensionFrameTypeName } from './names.js';

export type FrameProblem =
  | { kind: 'not_json'; message: string }
  | { kind: 'not_object'; message: string }
  | { kind: 'unknown_type'; message: string; type: string }
  | { kind: 'invalid'; message: string; type: string; id?: string | undefined };

export type DecodedFrame = { ok: true; frame: ExtensionFrame } | { ok: false; problem: FrameProblem };

/**
 * A line that is not a valid frame, shaped as the failed `DecodedFrame`. It has no `type`, which
 * every frame has (a string): `isLineProblem()` tells the two apart by that one field, several
 * times cheaper per frame than `instanceof` on the many shapes of parsed frames.
 */
export class LineProblem {
  readonly type: undefined = undefined;
  readonly ok = false as const;
  /**
   * `unchecked`: only a problem because there was no codec (see needsCodec). `value`: the parsed
   * object of an `unknown_type` line, so that a `progress` line is not parsed again.
   */
  constructor(
    readonly problem: FrameProblem,
    readonly unchecked = false,
    readonly value: Record<string, unknown> | undefined = undefined,
  ) {}
}

/** What `decodeLine()` returns: the frame, or why the line is not one. */
export type DecodedLine = ExtensionFrame | LineProblem;

/** True when `decoded` is a problem, not a frame. */
export function isLineProblem(decoded: { readonly type: unknown } | LineProblem): decoded is LineProblem {
  return decoded.type === undefined;
}

/** The zod path, as `loadCodec()` resolves it (codec.ts). */
export interface CodecModule {
  /** The schema's verdict on a parsed object whose `type` is a known extension frame type. */
  schemaFrame(value: Record<string, unknown>, type: string): DecodedLine;
  /** The `progress` schema's verdict (capability "progress"). */
  progressFrame(value: Record<string, unknown>): ProgressFrame | LineProblem;
}

let loading: Promise<CodecModule> | undefined;

/** Loads the zod path (codec.ts, and with it zod) once, on first use (why: frame-check.ts); every call returns the same promise. */
export function loadCodec(): Promise<CodecModule> {
  return (loading ??= import('./codec.js'));
}

const PREVIEW = 120;

const NOT_LOADED = (type: string) => `${type} frame not checked: the frame schemas are not loaded`;

/** True when `decoded` is only a problem because `decodeLine()` had no codec: decode the line again with it. */
export function needsCodec(decoded: LineProblem): boolean {
  return decoded.unchecked;
}

/** A short, printable excerpt of a line for diagnostics. */
export function preview(text: string): string {
  const oneLine = text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text;
  return JSON.stringify(oneLine);
}

/**
 * One line from an extension as a frame, or a `LineProblem`. Never throws. `codec` is the loaded
 * zod path (see above); `fastPath: false` sends every frame through it (for tests).
 */
export function decodeLine(line: string, codec: CodecModule | undefined, fastPath = true): DecodedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return new LineProblem({ kind: 'not_json', message: `not JSON (${(err as Error).message}): ${preview(line)}` });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return new LineProblem({ kind: 'not_object', message: `not a JSON object: ${preview(line)}` });
  }
  const { type } = value as { type?: unknown };
  if (typeof type !== 'string' || !EXTENSION_FRAME_TYPES.has(type)) {
    const shown = typeof type === 'string' ? type : String(type);
    return new LineProblem({ kind: 'unknown_type', type: shown, message: `unknown frame type ${JSON.stringify(type ?? null)}: ${preview(line)}` }, false, value as Record<string, unknown>);
  }
  if (fastPath) {
    const frame = checkFrame(value as Record<string, unknown>, type as ExtensionFrameTypeName);
    if (frame !== undefined) return frame;
  }
  if (codec === undefined) {
    const id = (value as { id?: unknown }).id;
    return new LineProblem({ kind: 'invalid', type, message: NOT_LOADED(type), id: typeof id === 'string' ? id : undefined }, true);
  }
  return codec.schemaFrame(value as Record<string, unknown>, type);
}

/**
 * A `progress` line (decodeLine() calls it an unknown type: it is one for a plain zot extension),
 * from an extension that negotiated "progress", as the parsed object decodeLine() kept in its
 * problem (`LineProblem.value`): the frame, or why it is not a valid one.
 */
export function decodeProgress(value: Record<string, unknown>, codec: CodecModule | undefined): ProgressFrame | LineProblem {
  const plain = checkProgress(value);
  if (plain !== undefined) return plain;
  if (codec === undefined) return new LineProblem({ kind: 'invalid', type: 'progress', message: NOT_LOADED('progress') }, true);
  return codec.progressFrame(value);
}

/** `decodeLine()`'s result as a `DecodedFrame` (a plain object either way). */
export function toDecodedFrame(decoded: DecodedLine): DecodedFrame {
  return isLineProblem(decoded) ? { ok: false, problem: decoded.problem } : { ok: true, frame: decoded };
}
