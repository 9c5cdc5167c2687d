// The frame schemas (zod) load only when a line needs them (protocol/frame-check.ts): the usual frames of a
// start and of calls are checked without them. The first line that needs them is held, with every
// line after it, until they are loaded; then all are decoded in order. Bounded: past
// `maxChars` held characters, lines are dropped and counted (one diagnostic).
import { type CodecModule, type DecodedLine, decodeLine, isLineProblem, loadCodec, needsCodec } from '../protocol/frame-check.js';

/** Held characters beyond which lines are dropped, unless one frame may be larger: then two frames. */
export const MAX_HELD_CHARS = 8 * 1024 * 1024;

export interface CodecGateSink {
  /** A held line, handed back in order once the schemas are loaded (or failed to load). */
  line(line: string): void;
  /** Lines dropped while holding (once per hold). */
  diagnose(message: string): void;
  log(message: string): void;
  stats: { badLines: number };
}

export class CodecGate {
  /** The zod path, once loaded. */
  codec: CodecModule | undefined;
  private held: string[] | undefined;
  private chars = 0;
  private dropped = 0;
  /** Loading was started (it is not retried after a failure). */
  private tried = false;
  private afterHeld: (() => void)[] | undefined;
  private readonly maxChars: number;

  constructor(
    private readonly sink: CodecGateSink,
    maxFrameBytes: number,
  ) {
    this.maxChars = Math.max(MAX_HELD_CHARS, 2 * maxFrameBytes);
  }

  /** `line` decoded, or `undefined` when it is held (hand every line here, in order). */
  decode(line: string): DecodedLine | undefined {
    if (this.held !== undefined) {
      this.push(line);
      return undefined;
    }
    const decoded = decodeLine(line, this.codec);
    if (isLineProblem(decoded) && !this.tried && needsCodec(decoded)) {
      this.hold(line);
      return undefined;
    }
    return decoded;
  }

  /** Holds `line` if it needs the schemas and they are not loaded yet (a `progress` line); true when held. */
  holdIfUnloaded(line: string): boolean {
    // The codec is only ever set after an attempt to load it.
    if (this.tried) return false;
    this.hold(line);
    return true;
  }

  /** Runs `fn` now, or after the held lines: what ends the connection comes after every line read before it. */
  after(fn: () => void): void {
    if (this.held === undefined) fn();
    else (this.afterHeld ??= []).push(fn);
  }

  private hold(line: string): void {
    this.tried = true;
    this.held = [line];
    this.chars = line.length;
    loadCodec()
      .then(
        (codec) => {
          this.codec = codec;
        },
        (err: unknown) => this.sink.log(`cannot load the frame schemas: ${err instanceof Error ? err.message : String(err)}`),
      )
      .finally(() => this.release());
  }

  private push(line: string): void {
    // Once one is dropped, so are the rest: what is kept stays a gapless prefix.
    if (this.dropped > 0 || this.chars + line.length > this.maxChars) {
      this.dropped++;
      return;
    }
    this.held!.push(line);
    this.chars += line.length;
  }

  private release(): void {
    const lines = this.held ?? [];
    const after = this.afterHeld ?? [];
    const dropped = this.dropped;
    this.held = undefined;
    this.afterHeld = undefined;
    this.chars = 0;
    this.dropped = 0;
    for (const line of lines) this.sink.line(line);
    if (dropped > 0) {
      this.sink.stats.badLines += dropped;
      this.sink.diagnose(`${dropped} lines dropped: more than ${this.maxChars} characters arrived while the frame schemas loaded`);
    }
    for (const fn of after) fn();
  }
}
