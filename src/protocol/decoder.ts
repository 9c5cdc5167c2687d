import { DEFAULT_MAX_FRAME_BYTES } from './limits.js';

const LF = 0x0a;
/** The parts of no line: most lines come whole in one chunk, so a decoder holds no array of its own until one does not. Never written. */
const NO_PARTS: readonly Buffer[] = Object.freeze([]);
const CR = 0x0d;

export interface LineDecoderOptions {
  /** Largest line in bytes (without LF and CR). @default 4 MiB */
  maxFrameBytes?: number | undefined;
}

export type LineSink = (line: string) => void;
/** Called once when a line exceeds the cap; the decoder ignores everything after it. */
export type OverflowSink = (bytesSeen: number, limit: number) => void;

/**
 * Splits a byte stream into lines at LF only. One trailing CR is stripped; UTF-8 is decoded after
 * the split, so a character cut across chunks survives and U+2028/U+2029 are never line breaks.
 * Empty (or whitespace-only) lines are skipped. Line assembly is linear in the input: each byte
 * is scanned once and a multi-chunk line is concatenated once (why: a 4 MiB frame arriving in 64 KiB
 * chunks must not be copied once per chunk).
 */
export class LineDecoder {
  readonly maxFrameBytes: number;
  private parts: Buffer[] = NO_PARTS as Buffer[];
  private pendingBytes = 0;
  private overflowed = false;

  // Both sinks are called as methods of the decoder (`this` is the decoder: a subclass's shared
  // functions read their state from it instead of closing over it).
  constructor(
    private readonly onLine: LineSink,
    private readonly onOverflow: OverflowSink,
    options: LineDecoderOptions = {},
  ) {
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  }

  /** True once a frame exceeded the cap; no more lines are produced. */
  get closed(): boolean {
    return this.overflowed;
  }

  /** Bytes held for a line not yet terminated. */
  get buffered(): number {
    return this.pendingBytes;
  }

  push(chunk: Buffer): void {
    if (this.overflowed) return;
    let start = 0;
    let nl = chunk.indexOf(LF, start);
    while (nl !== -1) {
      const from = start;
      // Move past the line before handing it out: a throwing sink must not replay it.
      start = nl + 1;
      if (this.parts.length === 0) {
        if (!this.emit(chunk, from, nl)) return;
      } else {
        this.parts.push(chunk.subarray(from, nl));
        const line = Buffer.concat(this.parts, this.pendingBytes + (nl - from));
        this.parts = NO_PARTS as Buffer[];
        this.pendingBytes = 0;
        if (!this.emit(line, 0, line.length)) return;
      }
      nl = chunk.indexOf(LF, start);
    }
    if (start < chunk.length) {
      const rest = chunk.length - start;
      this.pendingBytes += rest;
      // One byte over the cap is only allowed when it is a CR that an LF may still follow.
      const over = this.pendingBytes - this.maxFrameBytes;
      if (over > 1 || (over === 1 && chunk[chunk.length - 1] !== CR)) {
        this.overflow(this.pendingBytes);
        return;
      }
      const part = start === 0 ? chunk : chunk.subarray(start);
      if (this.parts === NO_PARTS) this.parts = [part];
      else this.parts.push(part);
    }
  }

  /** Flushes a final unterminated line (at EOF). */
  end(): void {
    if (this.overflowed || this.parts.length === 0) return;
    const line = Buffer.concat(this.parts, this.pendingBytes);
    this.parts = NO_PARTS as Buffer[];
    this.pendingBytes = 0;
    this.emit(line, 0, line.length);
  }

  /** Hands out `bytes[from, to)` (one line without its LF); false once the cap was exceeded. */
  private emit(bytes: Buffer, from: number, to: number): boolean {
    let end = to;
    if (end > from && bytes[end - 1] === CR) end--;
    if (end - from > this.maxFrameBytes) {
      this.overflow(end - from);
      return false;
    }
    if (end === from) return true;
    const text = bytes.toString('utf8', from, end);
    // Frames start with "{"; anything else may be a blank line.
    if (text.charCodeAt(0) !== 0x7b && text.trim().length === 0) return true;
    this.onLine(text);
    return true;
  }

  private overflow(bytes: number): void {
    this.overflowed = true;
    this.parts = NO_PARTS as Buffer[];
    this.pendingBytes = 0;
    this.onOverflow(bytes, this.maxFrameBytes);
  }
}
