// The write side of a Connection: lines batched per tick into writes, one write in progress at a
// time, lines not yet begun taken back on request, and the stuck watch on the peer's input.
import { availableParallelism } from 'node:os';
import type { Transport } from '../transport/transport.js';
import { OutboundQueue, StuckWatch, WRITE_CHUNK_CHARS } from './outbound-queue.js';

const RESOLVED = Promise.resolve();

// On one CPU the extension cannot run before the host's tick ends: splitting a burst would only add a write.
const MANY_CPUS = availableParallelism() > 1;

/**
 * The writers with lines queued in this tick, written one after the other in one microtask at its
 * end: an emit() to 20 extensions makes its 20 writes in one loop, not in 20 microtasks (on a busy
 * CPU each write may let the woken extension run, and what runs between writes then runs cold).
 */
// One array for every tick, emptied as it is written (a new one per tick grew by reallocation).
const dueWriters: (OutboundWriter | undefined)[] = [];
let dueCount = 0;

function writeDue(): void {
  // A writer due again during the pass (none is, today) is written in it too.
  for (let i = 0; i < dueCount; i++) {
    const writer = dueWriters[i]!;
    dueWriters[i] = undefined;
    try {
      writer.endOfTick();
    } catch (err) {
      // Nothing escapes (a rejection here would crash the embedder): that connection alone is lost,
      // and the other writers' lines still go out.
      writer.lose(err);
    }
  }
  dueCount = 0;
}

/** Requests of one tick go out in writes of at most this many lines (see enqueue). */
const MAX_BATCH_LINES = 8;

export interface WriterOptions {
  /** A write in progress that long means the peer is stuck (above 2^31-1 ms: never). */
  stuckMs: number;
  onStuck(): void;
  /** The tick's write is about to go out after a tick that queued a request (the connection closes its tick's deadline groups). */
  onEndOfTick(): void;
  /** Counts lines queued (`framesOut`; a line taken back is uncounted). */
  stats: { framesOut: number };
  /** Bound of the queue for one-way lines (see offer()). */
  maxQueuedChars: number;
  /** Requests that follow answers go out in two writes, not one (see enqueueRequest). @default more than one CPU is available */
  splitAnswerBursts: boolean | undefined;
  /**
   * A write threw (the transport is lost): it and everything queued are dropped. Lines that end at
   * or before `written` (see `pushed`) were written completely, the others not. Must not throw.
   */
  onWriteFailed(cause: unknown, written: number): void;
}

/**
 * The writer is its own queue (the lines waiting for this tick's write, or for the write in progress
 * to complete): a write touches one object, not two.
 */
export class OutboundWriter extends OutboundQueue {
  private readonly stuck: StuckWatch;
  private readonly stats: { framesOut: number };
  private readonly maxQueuedChars: number;
  private readonly splitAnswerBursts: boolean;
  /** A write was left in progress: nothing more is written until its callback (one at a time). */
  private inProgress = false;
  /** Characters enqueued, handed to write(), written (by completed writes) and taken back, since the start. */
  private charsPushed = 0;
  private charsIssued = 0;
  private charsDone = 0;
  private charsRemoved = 0;
  private flushScheduled = false;
  /** A request was queued in this tick: its deadline group closes at the end of the tick. */
  private requestQueued = false;
  /** A request was written (not just queued) in this tick: the next ones may wait for a batch. */
  private requestWritten = false;
  /** An answer settled since the last end-of-tick write: requests until then wait for it (see enqueue). */
  private answered = false;
  /** How many answers settled since the last end-of-tick write. */
  private answers = 0;
  /** Requests queued and not yet handed to the transport (those taken back uncounted). */
  private unsentRequests = 0;

  constructor(
    private readonly transport: Transport,
    private readonly options: WriterOptions,
  ) {
    super();
    this.stuck = new StuckWatch(options.stuckMs, options.onStuck, options);
    this.stats = options.stats;
    this.maxQueuedChars = options.maxQueuedChars;
    this.splitAnswerBursts = options.splitAnswerBursts ?? MANY_CPUS;
  }

  /** Characters waiting to be written. */
  get queuedChars(): number {
    return this.chars;
  }

  /** Characters enqueued so far: a line enqueued next ends at `pushed + line.length`. */
  get pushed(): number {
    return this.charsPushed;
  }

  /** An answer settled: requests until the end of this tick wait for it. */
  answer(): void {
    this.answered = true;
    this.answers++;
  }

  /** Takes everything still queued (to hand to the transport's close). */
  takeAll(): string | undefined {
    return this.take(Infinity);
  }

  /** Takes back a whole line not yet begun; false when it is (partly) written or was never queued. */
  takeBack(line: string): boolean {
    if (!this.remove(line)) return false;
    // Only requests are taken back.
    if (this.unsentRequests > 0) this.unsentRequests--;
    this.stats.framesOut--;
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
    this.clear();
  }

  /**
   * Lines written in one tick go out together, in one write() at the end of the tick: fewer
   * syscalls, and one wake-up of the extension. With `eager` (a request while others are in
   * flight), the first request of a tick is written at once (with whatever the tick queued before
   * it), and later ones whenever MAX_BATCH_LINES are queued: the extension starts working while
   * this tick goes on. Requests that follow answers (the callers' reactions to them, in the same
   * tick) all wait for its end, like a write-coalescing loop: one write for the whole burst, and one
   * wake-up of the extension (measurements: docs/performance.md, "Request writes"). With
   * `splitAnswerBursts` (the host has more than one CPU) and nothing else in flight (the extension
   * answered everything it was sent, and is idle), the first half of such a burst (as many lines as
   * half the tick's answers) is written as soon as it is queued: the extension works on it while
   * the host makes the second half, and from then on the two halves take turns, each burst in one
   * write again (the extension is busy with the other half whenever one is made).
   * `inFlight`: the connection's unsettled requests, this one included.
   */
  enqueueRequest(line: string, inFlight: number): void {
    this.requestQueued = true;
    const queued = this.enqueue(line);
    this.unsentRequests++;
    // Eager only with other requests in flight (pipelining).
    if (inFlight <= 1) return;
    if (this.answered) {
      if (this.splitAnswerBursts && !this.requestWritten && queued * 2 >= this.answers && inFlight === this.unsentRequests) {
        this.requestWritten = true;
        this.flush();
      }
      return;
    }
    if (!this.requestWritten || queued >= MAX_BATCH_LINES) {
      this.requestWritten = true;
      this.flush();
    }
  }

  /**
   * Queues a one-way line unless it would take the queue over its bound; false when it does not.
   * An empty queue takes any line (hello_ack included): the bound is on what waits, not on one line.
   */
  offer(line: string): boolean {
    const queued = this.chars;
    if (queued > 0 && queued + line.length > this.maxQueuedChars) return false;
    this.enqueue(line);
    return true;
  }

  /** Queues a line for the end of the tick, past any bound; returns how many lines are queued. */
  enqueue(line: string): number {
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // A resolved promise's reaction is the same microtask as queueMicrotask(), without the
      // AsyncResource Node wraps around each queueMicrotask() callback.
      if (dueCount === 0) void RESOLVED.then(writeDue);
      dueWriters[dueCount++] = this;
    }
    this.stats.framesOut++;
    this.charsPushed += line.length;
    return this.push(line);
  }

  /** The end of the tick in which this writer queued its first line (see writeDue). */
  endOfTick(): void {
    this.flushScheduled = false;
    this.requestWritten = false;
    this.answered = false;
    this.answers = 0;
    // Only requests open deadline groups: a tick of events has none to close.
    if (this.requestQueued) {
      this.requestQueued = false;
      this.options.onEndOfTick();
    }
    this.flush();
  }

  /**
   * The transport's write() threw: it took nothing and never calls back. The chunk and the rest of
   * the queue count as done (errs towards "written", as unwritten() does): a later write would
   * otherwise look unfinished (a false STDIN_STUCK, WRITE_TIMEOUT). Then the owner is told.
   */
  lose(cause: unknown): void {
    const written = this.charsDone + this.charsRemoved;
    this.inProgress = false;
    this.charsDone = this.charsIssued;
    this.charsRemoved += this.chars;
    this.clear();
    this.unsentRequests = 0;
    try {
      this.options.onWriteFailed(cause, written);
    } catch {
      // The owner's own handling threw (a transport whose terminate() does): this queue is dropped
      // already, and nothing may escape into writeDue's pass, a stream callback or a request.
    }
  }

  /** A write left in progress completed (the transport calls it with the writer as `this`: no closure per writer). */
  private onWritten(): void {
    this.inProgress = false;
    this.charsDone = this.charsIssued;
    this.stuck.progressed();
    // Lines queued behind the write that just completed (the flush at the end of a tick does the rest).
    if (!this.flushScheduled && !this.empty) this.flush();
  }

  /**
   * Writes what is queued, in writes of at most WRITE_CHUNK_CHARS, unless a write is still in
   * progress: one at a time, so that a queued request can still be taken back and the queue, not
   * the transport, holds the backlog (bounded by maxOutboundBytes for one-way frames). A write the
   * transport takes at once needs no callback (see StreamTransport.write).
   */
  private flush(): void {
    if (this.empty || this.inProgress) return;
    const transport = this.transport;
    // Nothing more can be written: the requests stay unwritten (TIMEOUT at their deadline).
    if (!transport.writable) {
      this.clear();
      return;
    }
    do {
      const chunk = this.take(WRITE_CHUNK_CHARS)!;
      // Handed to the transport: what the extension has to do (a split of a burst of more than a
      // chunk counts as all of it sent: it only decides when to write).
      if (this.empty) this.unsentRequests = 0;
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
        if (transport.writing) this.stuck.writing();
        return;
      }
      this.charsDone = this.charsIssued;
    } while (!this.empty);
  }
}
