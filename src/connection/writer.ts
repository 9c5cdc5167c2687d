// The write side of a Connection: lines batched per tick into writes, one write in progress at a
// time, lines not yet begun taken back on request, and the stuck watch on the peer's input.
import type { Transport } from '../transport/transport.js';
import { OutboundQueue, StuckWatch, WRITE_CHUNK_CHARS } from './outbound-queue.js';

const RESOLVED = Promise.resolve();

/**
 * The writers with lines queued in this tick, written one after the other in one microtask at its
 * end: an emit() to 20 extensions makes its 20 writes in one loop, not in 20 microtasks (on a busy
 * CPU each write may let the woken extension run, and what runs between writes then runs cold).
 */
let dueWriters: OutboundWriter[] = [];

function writeDue(): void {
  const due = dueWriters;
  dueWriters = [];
  let failure: unknown;
  for (const writer of due) {
    try {
      writer.endOfTick();
    } catch (err) {
      failure ??= err;
    }
  }
  // One writer's failure leaves no other's lines unwritten; it still surfaces (an unhandled rejection).
  if (failure !== undefined) throw failure;
}

/** Requests of one tick go out in writes of at most this many lines (see enqueue). */
const MAX_BATCH_LINES = 8;

export interface WriterOptions {
  /** A write in progress that long means the peer is stuck (above 2^31-1 ms: never). */
  stuckMs: number;
  onStuck(): void;
  /** The tick's write is about to go out (the connection closes its tick's deadline groups). */
  onEndOfTick(): void;
  /** Counts lines queued (`framesOut`; a line taken back is uncounted). */
  stats: { framesOut: number };
}

export class OutboundWriter {
  /** Lines waiting for this tick's write, or for the write in progress to complete. */
  private readonly queue = new OutboundQueue();
  private readonly stuck: StuckWatch;
  /** write() calls issued, and completed (at once, or by their callbacks, which run in order). */
  private writesIssued = 0;
  private writesDone = 0;
  /** Characters enqueued, written (by completed writes) and taken back, since the start. */
  private charsPushed = 0;
  private charsIssued = 0;
  private charsDone = 0;
  private charsRemoved = 0;
  private flushScheduled = false;
  /** A request was written (not just queued) in this tick: the next ones may wait for a batch. */
  private requestWritten = false;
  /** An answer settled since the last end-of-tick write: requests until then wait for it (see enqueue). */
  private answered = false;

  constructor(
    private readonly transport: Transport,
    private readonly options: WriterOptions,
  ) {
    this.stuck = new StuckWatch(options.stuckMs, options.onStuck, options);
  }

  /** Characters waiting to be written. */
  get queuedChars(): number {
    return this.queue.chars;
  }

  /** Characters enqueued so far: a line enqueued next ends at `pushed + line.length`. */
  get pushed(): number {
    return this.charsPushed;
  }

  /** An answer settled: requests until the end of this tick wait for it. */
  answer(): void {
    this.answered = true;
  }

  /** Takes everything still queued (to hand to the transport's close). */
  takeAll(): string | undefined {
    return this.queue.take(Infinity);
  }

  /** Takes back a whole line not yet begun; false when it is (partly) written or was never queued. */
  takeBack(line: string): boolean {
    if (!this.queue.remove(line)) return false;
    this.options.stats.framesOut--;
    this.charsRemoved += line.length;
    return true;
  }

  /**
   * The line that ended at `end` (see `pushed`) may not be completely written. Lines taken back
   * before it count as written: errs towards "written" (takeBack() is the sure "not begun").
   */
  unwritten(end: number): boolean {
    return end > this.charsDone + this.charsRemoved;
  }

  /** Nothing more is written: the queue is dropped and the stuck watch stopped. */
  stop(): void {
    this.stuck.stop();
    this.queue.clear();
  }

  /**
   * Lines written in one tick go out together, in one write() at the end of the tick: fewer
   * syscalls, and one wake-up of the extension. With `eager` (a request while others are in
   * flight), the first request of a tick is written at once (with whatever the tick queued before
   * it), and later ones whenever MAX_BATCH_LINES are queued: the extension starts working while
   * this tick goes on. Requests that follow answers (the callers' reactions to them, in the same
   * tick) all wait for its end, like a write-coalescing loop: one write for the whole burst, and one
   * wake-up of the extension (measurements: docs/performance.md, "Request writes").
   */
  enqueue(line: string, eager = false): void {
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // A resolved promise's reaction is the same microtask as queueMicrotask(), without the
      // AsyncResource Node wraps around each queueMicrotask() callback.
      if (dueWriters.push(this) === 1) void RESOLVED.then(writeDue);
    }
    this.options.stats.framesOut++;
    this.charsPushed += line.length;
    const queued = this.queue.push(line);
    if (!eager || this.answered) return;
    if (!this.requestWritten || queued >= MAX_BATCH_LINES) {
      this.requestWritten = true;
      this.flush();
    }
  }

  /** The end of the tick in which this writer queued its first line (see writeDue). */
  endOfTick(): void {
    this.flushScheduled = false;
    this.requestWritten = false;
    this.answered = false;
    this.options.onEndOfTick();
    this.flush();
  }

  /** A write left in progress completed (the transport calls it with the writer as `this`: no closure per writer). */
  private onWritten(): void {
    this.written();
    // Lines queued behind the write that just completed (the flush at the end of a tick does the rest).
    if (!this.flushScheduled && !this.queue.empty) this.flush();
  }

  private written(): void {
    if (++this.writesDone === this.writesIssued) {
      this.charsDone = this.charsIssued;
      this.stuck.progressed();
    }
  }

  /**
   * Writes what is queued, in writes of at most WRITE_CHUNK_CHARS, unless a write is still in
   * progress: one at a time, so that a queued request can still be taken back and the queue, not
   * the transport, holds the backlog (bounded by maxOutboundBytes for one-way frames). A write the
   * transport takes at once needs no callback (see StreamTransport.write).
   */
  private flush(): void {
    const transport = this.transport;
    if (this.queue.empty) return;
    // Nothing more can be written: the requests stay unwritten (TIMEOUT at their deadline).
    if (!transport.writable) {
      this.queue.clear();
      return;
    }
    if (transport.writing) return;
    do {
      this.writesIssued++;
      const chunk = this.queue.take(WRITE_CHUNK_CHARS)!;
      this.charsIssued += chunk.length;
      if (transport.write(chunk, this.onWritten, this) !== true) {
        if (transport.writing) this.stuck.writing();
        return;
      }
      this.written();
    } while (!this.queue.empty);
  }
}
