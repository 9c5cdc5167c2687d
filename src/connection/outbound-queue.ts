// What the host still has to write to one extension's stdin, and whether that stdin moves at all.
import { MAX_TIMER_MS } from '../protocol/limits.js';

/** Default bound of one extension's outbound buffer (see `ExtensionHostOptions.maxOutboundBytes`). */
export const DEFAULT_MAX_OUTBOUND_BYTES = 8 * 1024 * 1024;

/**
 * Largest single write(). One write is in progress at a time, so everything still queued has not
 * begun (a request can be taken back), and a completed write is the sign of progress: an
 * extension that reads at least this much per stuck deadline is never stopped as stuck.
 */
export const WRITE_CHUNK_CHARS = 64 * 1024;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Encoded lines not yet handed to the stdin stream, in order. Sizes are string lengths (UTF-16 code
 * units: the bytes of ASCII JSON, what the encoder emits for all but non-ASCII text), so counting
 * costs an addition, never an encoding.
 */
export class OutboundQueue {
  /** The first line (or the unwritten rest of a line already begun), and any others. */
  private first: string | undefined;
  private more: string[] | undefined;
  /** Characters queued. */
  chars = 0;

  get empty(): boolean {
    return this.first === undefined;
  }

  /** Appends a line; returns how many lines are queued. */
  push(line: string): number {
    this.chars += line.length;
    if (this.first === undefined) {
      this.first = line;
      return 1;
    }
    return (this.more ??= []).push(line) + 1;
  }

  /** Takes what the next write sends: whole lines up to `max` characters, or the first `max` of a longer line. */
  take(max: number): string | undefined {
    const first = this.first;
    if (first === undefined) return undefined;
    const more = this.more;
    if (this.chars <= max) {
      this.first = undefined;
      this.more = undefined;
      this.chars = 0;
      return more === undefined ? first : first + more.join('');
    }
    if (first.length > max) {
      // A surrogate pair split across writes would be encoded as two U+FFFD.
      const cut = isHighSurrogate(first.charCodeAt(max - 1)) ? max - 1 : max;
      // The rest of a begun line is a new string: remove() (which compares whole lines) never finds it.
      this.first = first.slice(cut);
      this.chars -= cut;
      return first.slice(0, cut);
    }
    // chars > max >= first.length: `more` holds the rest.
    const rest = more!;
    let size = first.length;
    let count = 0;
    while (count < rest.length && size + rest[count]!.length <= max) size += rest[count++]!.length;
    this.first = rest[count];
    this.more = count + 1 < rest.length ? rest.slice(count + 1) : undefined;
    this.chars -= size;
    return count === 0 ? first : first + rest.slice(0, count).join('');
  }

  /** Takes back a whole line not yet begun; false when it is (partly) written or was never queued. */
  remove(line: string): boolean {
    const more = this.more;
    if (this.first === line) {
      this.first = more?.[0];
      this.more = more !== undefined && more.length > 1 ? more.slice(1) : undefined;
    } else {
      const index = more === undefined ? -1 : more.indexOf(line);
      if (index === -1) return false;
      more!.splice(index, 1);
      if (more!.length === 0) this.more = undefined;
    }
    this.chars -= line.length;
    return true;
  }

  clear(): void {
    this.first = undefined;
    this.more = undefined;
    this.chars = 0;
  }
}

/**
 * Calls `onStuck` when a write stays in progress for `ms` without completing. A write that
 * completes is progress: the next one's deadline starts afresh. One timer, reused, made at the
 * first write left in progress (most extensions never have one).
 */
export class StuckWatch {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  /** `context` is `this` for `onStuck` (a prototype method needs no closure). */
  constructor(
    private readonly ms: number,
    private readonly onStuck: () => void,
    private readonly context?: unknown,
  ) {}

  /** A write was left in progress: the stuck deadline runs from now. */
  writing(): void {
    const { ms } = this;
    // Above 2^31-1 ms (Infinity included) there is no deadline.
    if (!Number.isFinite(ms) || ms > MAX_TIMER_MS) return;
    this.busy = true;
    if (this.timer === undefined) {
      // A shared function with the watch as its argument: no closure per watch.
      this.timer = setTimeout(fireStuck, Math.max(0, ms), this);
      this.timer.unref?.();
    } else {
      this.timer.refresh();
    }
  }

  /** The write in progress completed. */
  progressed(): void {
    this.busy = false;
  }

  stop(): void {
    this.busy = false;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The timer fired. */
  fire(): void {
    if (this.busy) this.onStuck.call(this.context);
  }
}

function fireStuck(watch: StuckWatch): void {
  watch.fire();
}
