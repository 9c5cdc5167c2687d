// The write side of a Connection: the outbound queue of encoded lines, written once per tick, one
// write in progress at a time; lines not yet begun can be taken back; a write that makes no
// progress for the stuck deadline means the peer is stuck.
import { MAX_TIMER_MS } from '../protocol/limits.js';
import type { Transport } from '../transport/transport.js';

/** Default bound of one extension's outbound buffer (see `ExtensionHostOptions.maxOutboundBytes`). */
export const DEFAULT_MAX_OUTBOUND_BYTES = 8 * 1024 * 1024;

/**
 * Largest single write(). One write is in progress at a time, so everything still queued has not
 * begun (a request can be taken back), and a completed write is the sign of progress: an
 * extension that reads at least this much per stuck deadline is never stopped as stuck.
 */
export const WRITE_CHUNK_CHARS = 64 * 1024;

/** What the writer tells its connection. */
export interface WriterOwner {
  /** A write in progress that long means the peer is stuck (above 2^31-1 ms: never). */
  readonly stuckMs: number;
  /** Counts lines queued (`framesOut`; a line taken back is uncounted). */
  readonly stats: { framesOut: number };
  /** Bound of the queue for one-way lines (see offer()). */
  readonly maxQueuedChars: number;
  onStuck(): void;
  /**
   * A write threw (the transport is lost): it and everything queued are dropped. Lines that end at
   * or before `written` (see `pushed`) were written completely, the others not. Must not throw.
   */
  onWriteFailed(cause: unknown, written: number): void;
}

/**
 * Encoded lines waiting for this tick's write or for the write in progress to complete. Sizes are
 * string lengths (UTF-16 units: the bytes of ASCII JSON), so counting costs an addition, never an
 * encoding.
 */
export class OutboundWriter {
  /** Lines not yet handed to the transport, in order (the first may be the rest of a begun line). */
  private lines: string[] = [];
  /** Characters in `lines`. */
  private chars = 0;
  /** Characters enqueued, handed to write(), written (by completed writes) and taken back, since the start. */
  private charsPushed = 0;
  private charsIssued = 0;
  private charsDone = 0;
  private charsRemoved = 0;
  /** A write was left in progress: nothing more is written until its callback. */
  private inProgress = false;
  /** The end-of-tick write is scheduled. */
  private scheduled = false;
  /** The stuck watch: its timer (made at the first write left in progress) and whether that write is still in progress. */
  private stuckTimer: NodeJS.Timeout | undefined;
  private stuckBusy = false;

  constructor(
    private readonly transport: Transport,
    private readonly owner: WriterOwner,
  ) {}

  /** Characters waiting to be written. */
  get queuedChars(): number {
    return this.chars;
  }

  /** Characters enqueued so far: a line enqueued next ends at `pushed + line.length`. */
  get pushed(): number {
    return this.charsPushed;
  }

  /**
   * Queues a line for the end of the tick, past any bound. Why one write per tick: everything a
   * tick queues (a burst of calls, an event fanned out) costs one syscall and one wake-up of the
   * extension, as a write-coalescing loop does.
   */
  enqueue(line: string): void {
    this.owner.stats.framesOut++;
    this.charsPushed += line.length;
    this.chars += line.length;
    this.lines.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.endOfTick());
    }
  }

  /**
   * Queues a one-way line unless it would take the queue over its bound; false when it does not.
   * An empty queue takes any line (hello_ack included): the bound is on what waits, not on one line.
   */
  offer(line: string): boolean {
    if (this.chars > 0 && this.chars + line.length > this.owner.maxQueuedChars) return false;
    this.enqueue(line);
    return true;
  }

  /**
   * Takes back a whole line not yet begun; false when it is (partly) written or was never queued.
   * Why: a request that times out unsent is dropped, so the extension never runs a call whose
   * caller already gave up.
   */
  takeBack(line: string): boolean {
    // A begun line's rest is a new string (see take()): comparing whole lines never finds it.
    const index = this.lines.indexOf(line);
    if (index === -1) return false;
    this.lines.splice(index, 1);
    this.chars -= line.length;
    this.charsRemoved += line.length;
    this.owner.stats.framesOut--;
    return true;
  }

  /**
   * The line that ended at `end` (see `pushed`) may not be completely written. Lines taken back
   * before it count as written: errs towards "written" (takeBack() is the sure "not begun").
   */
  unwritten(end: number): boolean {
    return end > this.charsDone + this.charsRemoved;
  }

  /** Takes everything still queued (to hand to the transport's close). */
  takeAll(): string | undefined {
    if (this.lines.length === 0) return undefined;
    const all = this.lines.join('');
    this.clear();
    return all;
  }

  /** Nothing more is written: the queue is dropped and the stuck watch stopped. */
  stop(): void {
    this.stuckBusy = false;
    if (this.stuckTimer !== undefined) clearTimeout(this.stuckTimer);
    this.stuckTimer = undefined;
    this.clear();
  }

  private clear(): void {
    this.lines = [];
    this.chars = 0;
  }

  private endOfTick(): void {
    this.scheduled = false;
    try {
      this.flush();
    } catch (err) {
      // Nothing escapes a microtask (it would crash the embedder): this connection alone is lost.
      this.lose(err);
    }
  }

  /**
   * Writes what is queued, in writes of at most WRITE_CHUNK_CHARS, unless a write is still in
   * progress: one at a time, so that a queued request can still be taken back and the queue, not
   * the transport, holds the backlog (bounded by maxOutboundBytes for one-way frames). A write the
   * transport takes at once needs no callback.
   */
  private flush(): void {
    if (this.lines.length === 0 || this.inProgress) return;
    const transport = this.transport;
    // Nothing more can be written: the requests stay unwritten (TIMEOUT at their deadline).
    if (!transport.writable) {
      this.clear();
      return;
    }
    while (this.lines.length > 0) {
      const chunk = this.take(WRITE_CHUNK_CHARS);
      this.charsIssued += chunk.length;
      let taken: boolean | void;
      try {
        taken = transport.write(chunk, this.onWritten, this);
      } catch (err) {
        // A stream whose write() throws (an in-memory one after destroy, an embedder's own transport).
        this.lose(err);
        return;
      }
      if (taken !== true) {
        this.inProgress = true;
        if (transport.writing) this.watchStuck();
        return;
      }
      this.charsDone = this.charsIssued;
    }
  }

  /** Whole lines up to `max` characters, or the first `max` of a longer line. */
  private take(max: number): string {
    const lines = this.lines;
    const first = lines[0]!;
    if (first.length > max) {
      // A surrogate pair split across writes would be encoded as two U+FFFD.
      const code = first.charCodeAt(max - 1);
      const cut = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
      lines[0] = first.slice(cut);
      this.chars -= cut;
      return first.slice(0, cut);
    }
    let count = 1;
    let size = first.length;
    while (count < lines.length && size + lines[count]!.length <= max) size += lines[count++]!.length;
    const chunk = count === 1 ? first : lines.slice(0, count).join('');
    this.lines = count === lines.length ? [] : lines.slice(count);
    this.chars -= size;
    return chunk;
  }

  /** A write left in progress completed (called by the transport with the writer as `this`). */
  private onWritten(): void {
    this.inProgress = false;
    this.charsDone = this.charsIssued;
    this.stuckBusy = false;
    // Lines queued behind the write that just completed (an end-of-tick write does the rest).
    if (!this.scheduled) {
      try {
        this.flush();
      } catch (err) {
        this.lose(err);
      }
    }
  }

  /**
   * The transport's write() threw: it took nothing and never calls back. The chunk and the rest of
   * the queue count as done (errs towards "written", as unwritten() does): a later write would
   * otherwise look unfinished (a false STDIN_STUCK, WRITE_TIMEOUT). Then the owner is told.
   */
  private lose(cause: unknown): void {
    const written = this.charsDone + this.charsRemoved;
    this.inProgress = false;
    this.charsDone = this.charsIssued;
    this.charsRemoved += this.chars;
    this.clear();
    try {
      this.owner.onWriteFailed(cause, written);
    } catch {
      // The owner's own handling threw (a transport whose terminate() does): nothing may escape
      // into a microtask, a stream callback or a request.
    }
  }

  /**
   * A write was left in progress: the stuck deadline runs from now. Why: an extension that stops
   * reading its stdin would otherwise hold the host's queue (and every request in it) forever.
   */
  private watchStuck(): void {
    const ms = this.owner.stuckMs;
    // Above 2^31-1 ms (Infinity included) there is no deadline.
    if (!Number.isFinite(ms) || ms > MAX_TIMER_MS) return;
    this.stuckBusy = true;
    if (this.stuckTimer === undefined) {
      this.stuckTimer = setTimeout(() => {
        if (this.stuckBusy) this.owner.onStuck();
      }, Math.max(0, ms));
      this.stuckTimer.unref?.();
    } else {
      this.stuckTimer.refresh();
    }
  }
}
