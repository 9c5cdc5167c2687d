// One extension's log file: the child's stderr written straight into it, the host's `[host]` lines
// through one bounded queue, rotation at a cap, and the tail that summarises a crash. Below the
// transports, which hand it to the child they spawn.
import { appendFile, mkdir, open, readFile, stat, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

export { logPathFor, safeLogName } from '../manifest/log-path.js';

/** Default cap of one log file: 5 MiB; at the cap the file is rotated once to `<file>.1`. */
export const DEFAULT_LOG_MAX_BYTES = 5 * 1024 * 1024;
/** How often the size of a running child's log is checked (the child writes it without the host). */
export const LOG_CHECK_MS = 1000;
/** After a rotation, the next check comes this soon (a flood refills the file within one LOG_CHECK_MS). */
const FLOOD_CHECK_MS = 25;
/** `[host]` lines (and bytes of them) waiting to be written at most; more are dropped and counted. */
export const MAX_QUEUED_HOST_LINES = 1000;
export const MAX_QUEUED_HOST_BYTES = 1024 * 1024;

export interface ExtensionLogOptions {
  /** Rotation size in bytes; Infinity = never. @default DEFAULT_LOG_MAX_BYTES */
  maxBytes?: number | undefined;
  /** @default LOG_CHECK_MS */
  checkMs?: number | undefined;
  /** Applied to every host line and start header before it is queued (the extension's secrets). */
  redact?: ((text: string) => string) | undefined;
}

/**
 * One extension's stderr log. The child writes its stderr straight into the file (no copy through
 * the host, so no cost per byte); the host appends its own diagnostics as `[host] ...` lines through
 * one bounded queue.
 *
 * The cap: at each start, and every `checkMs` while a child runs, a file at or over `maxBytes` is
 * rotated to `<file>.1` (replacing it) by a copy and a truncation, never a rename (a child, ours or
 * another host's sharing the log dir, appends through its fd and goes on at the new end); what a
 * child writes between the copy and the truncation is lost. So a file holds at most `maxBytes` plus what
 * is written within one check, and `.1` as much again.
 */
export class ExtensionLog {
  readonly #maxBytes: number;
  readonly #checkMs: number;
  readonly #redact: ((text: string) => string) | undefined;
  /** File size when this run started: where this run's stderr begins. */
  private startOffset = 0;
  /** Host lines waiting for the writer (made by the first one). */
  #queue: string[] | undefined;
  #queuedBytes = 0;
  #dropped = 0;
  #draining: Promise<void> | undefined;
  #checkDue = false;
  /** In the shared watch of its checkMs (a running child). */
  #watched = false;
  /** One interval per check period for all running children's logs, not one per extension. */
  static readonly #watches = new Map<number, { timer: NodeJS.Timeout; logs: Set<ExtensionLog> }>();

  constructor(
    readonly path: string,
    options: ExtensionLogOptions = {},
  ) {
    this.#maxBytes = options.maxBytes ?? DEFAULT_LOG_MAX_BYTES;
    this.#checkMs = options.checkMs ?? LOG_CHECK_MS;
    this.#redact = options.redact;
  }

  /** Where the previous part of the log goes at rotation. */
  get rotatedPath(): string {
    return `${this.path}.1`;
  }

  /** Creates the directory, rotates a full log, appends the start header, and returns the file for the child's stderr (close it after spawn). */
  async openForChild(header: string): Promise<FileHandle> {
    await mkdir(path.dirname(this.path), { recursive: true });
    await this.flushed();
    await this.#rotateIfFull();
    const handle = await open(this.path, 'a');
    try {
      const { size } = await handle.stat();
      const line = `--- ${new Date().toISOString()} ${this.#redact?.(header) ?? header} ---\n`;
      await handle.write(line);
      this.startOffset = size + Buffer.byteLength(line);
    } catch (err) {
      await handle.close();
      throw err;
    }
    this.#watch();
    return handle;
  }

  /** The child is gone: no more periodic checks. */
  childEnded(): void {
    if (!this.#watched) return;
    this.#watched = false;
    const watch = ExtensionLog.#watches.get(this.#checkMs);
    if (watch === undefined) return;
    watch.logs.delete(this);
    if (watch.logs.size === 0) {
      clearInterval(watch.timer);
      ExtensionLog.#watches.delete(this.#checkMs);
    }
  }

  /** Resolves once every host line written so far is in the file (or dropped). */
  flushed(): Promise<void> {
    return this.#draining ?? Promise.resolve();
  }

  /** Appends one host line (`[host] message`); failures to log are ignored; over the queue bound it is dropped and counted. */
  write(text: string): Promise<void> {
    const message = this.#redact?.(text) ?? text;
    const queue = (this.#queue ??= []);
    if (queue.length >= MAX_QUEUED_HOST_LINES || this.#queuedBytes + message.length > MAX_QUEUED_HOST_BYTES) {
      this.#dropped++;
    } else {
      queue.push(`[host] ${new Date().toISOString()} ${message}\n`);
      this.#queuedBytes += message.length;
    }
    return this.#drain();
  }

  #watch(): void {
    if (this.#watched || !Number.isFinite(this.#maxBytes)) return;
    this.#watched = true;
    const ms = this.#checkMs;
    let watch = ExtensionLog.#watches.get(ms);
    if (watch === undefined) {
      const logs = new Set<ExtensionLog>();
      const timer = setInterval(() => {
        for (const log of logs) log.#due();
      }, ms);
      timer.unref();
      ExtensionLog.#watches.set(ms, (watch = { timer, logs }));
    }
    watch.logs.add(this);
  }

  #due(): void {
    this.#checkDue = true;
    void this.#drain();
  }

  /** One writer at a time: queued lines go out in batches; rotation checks run in the same loop. */
  #drain(): Promise<void> {
    this.#draining ??= (async () => {
      try {
        while ((this.#queue?.length ?? 0) > 0 || this.#dropped > 0 || this.#checkDue) {
          if (this.#checkDue || (this.#queue?.length ?? 0) > 0) {
            this.#checkDue = false;
            await this.#rotateIfFull();
          }
          let batch = this.#queue?.join('') ?? '';
          this.#queue = undefined;
          this.#queuedBytes = 0;
          if (this.#dropped > 0) {
            batch += `[host] ${new Date().toISOString()} ${this.#dropped} host lines dropped (more than ${MAX_QUEUED_HOST_LINES} lines or ${MAX_QUEUED_HOST_BYTES} bytes were waiting)\n`;
            this.#dropped = 0;
          }
          if (batch.length > 0) await appendFile(this.path, batch).catch(() => undefined);
        }
      } finally {
        this.#draining = undefined;
      }
    })();
    return this.#draining;
  }

  async #rotateIfFull(): Promise<void> {
    if (!Number.isFinite(this.#maxBytes)) return;
    try {
      const { size } = await stat(this.path);
      if (size < this.#maxBytes) return;
      // Copy and truncate, never rename: another host sharing the log dir may have a child
      // appending to this file, and a renamed file would grow unseen under the `.1` name. Only the
      // last maxBytes are copied: a file that a flood grew far past the cap costs no more to rotate.
      const kept = Math.min(size, this.#maxBytes);
      // One handle for the copy, the note and the cut (the stat above stays the only cost of a check).
      const file = await open(this.path, 'r+');
      try {
        const tail = Buffer.alloc(kept);
        const { bytesRead } = await file.read(tail, 0, kept, size - kept);
        await writeFile(this.rotatedPath, tail.subarray(0, bytesRead));
        const dropped = size - kept > 0 ? `; ${size - kept} bytes before its last ${kept} were dropped` : '';
        const note = Buffer.from(`[host] ${new Date().toISOString()} log rotated at ${size} bytes (cap ${this.#maxBytes}${dropped}); the earlier part is in ${this.rotatedPath}\n`);
        // The note goes in place of the copied part (written at the start, the file then cut after
        // it), never after a truncation to 0: a reader never finds the log empty mid-rotation.
        await file.write(note, 0, note.length, 0);
        await file.truncate(note.length);
      } finally {
        await file.close();
      }
      this.startOffset = 0;
      // A flood fills the file again within one check: look again soon while it lasts.
      if (this.#watched) setTimeout(() => this.#due(), FLOOD_CHECK_MS).unref();
    } catch {
      // No file yet, or it went away: nothing to rotate.
    }
  }

  /**
   * The last `count` non-empty stderr lines of this run (host lines excluded), led by the line that
   * names the error when it is further up (see stderrSummary).
   */
  async tail(count = 5): Promise<string[]> {
    await this.flushed();
    try {
      const text = (await readFile(this.path)).subarray(this.startOffset).toString('utf8');
      return stderrSummary(text.split('\n').filter((line) => !line.startsWith('[host] ')), count);
    } catch {
      return [];
    }
  }
}

// Which stderr lines summarise a crash. A stack trace ends with frames, not with what went wrong, so
// the line that names the error leads the summary when it is further up than the last lines.

// Names the error: `Error: boom`, `TypeError: x`, `Error [ERR_X]: x`, `  SyntaxError: x` (Node),
// `Traceback (...)` (Python), `panic:` (Go), `error:` / `error[E0425]:` (Rust, CLIs). Anchored so that
// the source line Node prints above it (`    throw new Error('boom');`) does not count.
const ERROR_LINE = /^\s*[\w.$]*(?:Error|Exception)(?: \[[^\]]*\])?:|^Traceback \(most recent call last\)|^panic:|^(?:fatal )?error(?:\[\w+\])?:/;
// Node's last line after an uncaught exception says nothing about the error.
const NOISE = /^Node\.js v\d+\.\d+\.\d+$/;
const MAX_LINE_CHARS = 300;

/**
 * The last `count` meaningful lines of `lines`; when none of them names the error (a stack trace's
 * frames), the first line further up that does replaces the oldest.
 */
export function stderrSummary(lines: readonly string[], count: number): string[] {
  const useful = lines.filter((line) => line.trim().length > 0 && !NOISE.test(line.trim()));
  const last = useful.slice(-count);
  if (!last.some((line) => ERROR_LINE.test(line))) {
    const named = useful.findIndex((line) => ERROR_LINE.test(line));
    if (named !== -1) last.splice(0, 1, useful[named]!);
  }
  return last.map((line) => (line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line));
}
