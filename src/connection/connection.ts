// Framing, correlation and deadlines over any Transport: request ids, the pending requests,
// per-request deadlines, settling everything at the end, and the bound of the outbound queue (the
// writes themselves: writer.ts).
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { encodeRequest, requestLine } from '../protocol/encode.js';
import type { ExtensionFrame, ProgressFrame } from '../protocol/frames.js';
import { jsonProblem } from '../protocol/json-check.js';
import { MAX_TIMER_MS } from '../protocol/limits.js';
import type { Transport } from '../transport/transport.js';
import { Deadlines } from './deadlines.js';
import { PendingTable } from './pending-table.js';
import { OutboundWriter, type WriterOptions } from './writer.js';
import { fail, type Pending, type PendingExtra, progressWatch, type RequestFrame, type RequestOptions, type RequestType, RESPONSE_TYPE, type ResponseMapper, succeed } from './requests.js';
import { monotonicMs } from '../clock.js';

/** What the connection reports to its owner. */
export type ConnectionDiagnostic = 'UNKNOWN_ID' | 'OUTBOUND_DROPPED' | 'STDIN_STUCK' | 'CALLBACK_THREW';

export interface ConnectionOptions {
  /** The extension's name, in every message. */
  name: string;
  /** Its log file, in every message. */
  logPath: string;
  /** Prefix of correlation ids (a `:` follows). */
  idPrefix: string;
  /** Largest frame in bytes: a larger request is not sent (INVALID_ARGUMENT). */
  maxFrameBytes: number;
  /** Bound of the outbound queue: over it, one-way frames are dropped. */
  maxOutboundBytes: number;
  /** A write in progress that long means the peer is stuck (above 2^31-1 ms: never). */
  stuckMs: number;
  /** Counts frames written (`framesOut`); shared with the owner. */
  stats: { framesOut: number };
  diagnose(code: ConnectionDiagnostic, message: string): void;
  /** The peer can receive nothing any more (its input was closed for a write timeout): end the connection. */
  disconnect(error: ExtensionHostError, reason: 'stdin_blocked'): void;
  /** True once the owner is done with the connection (disconnected or closed): the stuck watch then stays quiet. */
  isOver(): boolean;
  /** Requests that follow answers go out in two writes (see OutboundWriter.enqueueRequest). @default more than one CPU is available */
  splitAnswerBursts?: boolean | undefined;
  /** A `[host]` line in the extension's log. */
  log?(message: string): void;
  /**
   * A write to the transport threw: it is lost (every pending request has settled PROCESS_EXITED
   * already). The owner ends the connection; without this hook the connection goes on, and later
   * lines are written again. Not called once `isOver()`.
   */
  writeFailed?(error: ExtensionHostError): void;
}

/** How many cancelled ids are remembered, to tell their late answers from unknown ids. */
export const MAX_CANCELLED_IDS = 256;

/** A progress frame's fate: delivered, for a request cancelled a moment ago (dropped quietly), or for no request. */
export type ProgressOutcome = Pending | 'cancelled' | undefined;

const noop = (): void => undefined;

/**
 * The request whose promise is being made: its executor, `capture`, runs inside the Promise
 * constructor at once. One shared executor instead of a closure per request, which would also
 * have V8 allocate every variable it captures on each call.
 */
let capturing: Pending | undefined;

function capture(resolve: (value: unknown) => void, reject: (error: unknown) => void): void {
  capturing!.resolve = resolve;
  capturing!.reject = reject;
  capturing = undefined;
}

/** Every request settles exactly once: with its answer, at its deadline, when aborted, when it cannot be written, or when the connection ends. */
export class Connection implements WriterOptions {
  /** Keyed by the request's number (see pending-table.ts for why not a Map). */
  private readonly pending = new PendingTable<Pending>();
  private seq = 0;
  private readonly idPrefix: string;
  /** `"<idPrefix>` as JSON, without the closing quote: request ids are appended to encoded frames. */
  private readonly idJsonPrefix: string;
  private readonly writer: OutboundWriter;
  /** Made by the first request with a deadline (an idle extension never has one). */
  private deadlines: Deadlines<Pending> | undefined;
  /** Capability "cancel" was negotiated: an aborted or timed-out request gets a `cancel` frame. */
  cancels = false;
  /** The last MAX_CANCELLED_IDS cancelled ids, oldest first (only once a cancel was sent). */
  private cancelled: Set<string> | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly options: ConnectionOptions,
  ) {
    this.idPrefix = `${options.idPrefix}:`;
    this.idJsonPrefix = JSON.stringify(this.idPrefix).slice(0, -1);
    // The connection is the writer's options: no options object and no closures per connection.
    this.writer = new OutboundWriter(transport, this);
  }

  // For the writer (WriterOptions).
  get stuckMs(): number {
    return this.options.stuckMs;
  }

  get stats(): { framesOut: number } {
    return this.options.stats;
  }

  get maxQueuedChars(): number {
    return this.options.maxOutboundBytes;
  }

  get splitAnswerBursts(): boolean | undefined {
    return this.options.splitAnswerBursts;
  }

  onEndOfTick(): void {
    this.deadlines?.endTick();
  }

  private get timers(): Deadlines<Pending> {
    // The closure is made elsewhere: one capturing `this` here would have V8 allocate a context on every request.
    return this.deadlines ?? this.makeDeadlines();
  }

  private makeDeadlines(): Deadlines<Pending> {
    return (this.deadlines = new Deadlines<Pending>((entry, ms) => this.onRequestTimeout(entry, ms)));
  }

  /** Characters waiting to be written. */
  get queuedChars(): number {
    return this.writer.queuedChars;
  }

  /** A request with this id waits for its answer. */
  has(id: string): boolean {
    const seq = this.seqOf(id);
    return seq !== undefined && this.pending.has(seq);
  }

  /** The number of the id `<idPrefix>:<seq>` this connection gave a request; undefined for any other string. */
  private seqOf(id: string): number | undefined {
    const prefix = this.idPrefix;
    const from = prefix.length;
    const length = id.length;
    // 1 to 15 digits without a leading zero: exactly the strings `${prefix}${seq}` makes.
    if (length <= from || length > from + 15 || !id.startsWith(prefix)) return undefined;
    let seq = 0;
    for (let i = from; i < length; i++) {
      const digit = id.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9 || (digit === 0 && i === from)) return undefined;
      seq = seq * 10 + digit;
    }
    return seq;
  }

  private idOf(entry: Pending): string {
    return `${this.idPrefix}${entry.seq}`;
  }

  /** Sends a request; resolves its response (or what `mapper` makes of the outcome). Never hangs past `timeoutMs`. */
  request(frame: RequestFrame<RequestType>, options?: RequestOptions, mapper?: ResponseMapper<ExtensionFrame, unknown>): Promise<unknown> {
    const { name } = this.options;
    const signal = options?.signal;
    const timeoutMs = options?.timeoutMs;
    const request = frame.type as RequestType;
    if (signal?.aborted) return this.refuse(this.error(ErrorCode.ABORTED, `${name}: ${request} aborted`, signal.reason), mapper);
    const seq = ++this.seq;
    // Encoded first: a frame that cannot be encoded (a cycle, a BigInt, nesting that overflows the
    // stack) fails with INVALID_ARGUMENT and leaves no entry behind. The value is walked for the
    // reason only then, so a good call pays nothing for the check.
    let line: string;
    try {
      // JSON.stringify, not `${seq}`: V8 keeps the digits of a number made a string by a template
      // or String() in its number-string cache, where every request's survived the next scavenge.
      const idJson = `${this.idJsonPrefix}${JSON.stringify(seq)}"`;
      line = options?.head !== undefined ? requestLine(options.head, idJson) : encodeRequest(frame, idJson);
    } catch (err) {
      return this.refuse(this.error(ErrorCode.INVALID_ARGUMENT, `${name}: ${request} cannot be sent as JSON: it ${jsonProblem(frame) ?? (err as Error).message}`, err), mapper);
    }
    // The spec caps every frame: a conforming extension would disconnect on a larger one. A line
    // of at most a third of the cap in UTF-16 units fits in any case (3 bytes a unit at most).
    const maxFrame = this.options.maxFrameBytes;
    if (line.length * 3 > maxFrame && Buffer.byteLength(line) - 1 > maxFrame) {
      return this.refuse(this.error(ErrorCode.INVALID_ARGUMENT, `${name}: ${request} of ${Buffer.byteLength(line) - 1} bytes not sent: frames are limited to ${maxFrame} bytes`), mapper);
    }
    const watch = options?.onProgress !== undefined || options?.resetTimeoutOnProgress === true ? progressWatch(options, timeoutMs) : undefined;
    const closesStdin = options?.closeStdinOnWriteTimeout === true;
    const extra: PendingExtra | undefined = watch !== undefined || closesStdin || signal !== undefined ? { closesStdin, watch, cleanup: undefined } : undefined;
    const entry: Pending = {
      seq,
      request,
      mapper,
      resolve: noop,
      reject: noop,
      deadline: undefined,
      end: this.writer.pushed + line.length,
      line,
      frame,
      settled: false,
      extra,
    };
    capturing = entry;
    const promise = new Promise<unknown>(capture);
    this.pending.add(entry);
    try {
      // setTimeout fires at once for delays above 2^31-1 ms (about 24.8 days): such a deadline means none.
      const first = watch === undefined ? timeoutMs : Math.min(timeoutMs ?? Infinity, watch.maxTotalMs);
      if (first !== undefined && Number.isFinite(first) && first <= MAX_TIMER_MS) entry.deadline = this.timers.join(entry, first);
      if (signal !== undefined) this.watchAbort(entry, signal);
    } catch (err) {
      // An abort signal that cannot be listened to (not an AbortSignal): settled, the deadline released.
      this.settleEntry(seq, undefined, undefined, this.error(ErrorCode.INVALID_ARGUMENT, `${name}: ${request} not sent: its signal cannot be watched: ${(err as Error).message}`, err));
      return promise;
    }
    // Eager only with other requests in flight (pipelining): see docs/performance.md, "Request writes".
    // A write that throws settles this request too (onWriteFailed): nothing throws here.
    this.writer.enqueueRequest(line, this.pending.size);
    return promise;
  }

  /** An abort of `signal` settles the request ABORTED (and cancels it at the extension when negotiated). */
  private watchAbort(entry: Pending, signal: NonNullable<RequestOptions['signal']>): void {
    const { seq, request } = entry;
    const onAbort = () => {
      const pending = this.pending.has(seq);
      this.settleEntry(seq, undefined, undefined, this.error(ErrorCode.ABORTED, `${this.options.name}: ${request} aborted`, signal.reason));
      if (pending && this.cancels) this.cancel(this.idOf(entry), 'aborted');
    };
    signal.addEventListener('abort', onAbort, { once: true });
    entry.extra!.cleanup = () => signal.removeEventListener('abort', onAbort);
  }

  /** A failed request: rejects, or resolves with what the mapper makes of the error. */
  refuse(error: ExtensionHostError, mapper: ResponseMapper<ExtensionFrame, unknown> | undefined): Promise<unknown> {
    // Called as a method: a mapper may be a class instance.
    return mapper === undefined ? Promise.reject(error) : Promise.resolve(error).then((e) => mapper.error(e));
  }

  /** Queues an encoded one-way frame; false (and a diagnostic) when the outbound bound drops it. */
  sendLine(line: string, type: string): boolean {
    if (this.writer.offer(line)) return true;
    const { maxOutboundBytes } = this.options;
    this.options.diagnose(
      'OUTBOUND_DROPPED',
      `${type} of ${line.length} bytes dropped unsent: ${this.writer.queuedChars} bytes wait for ${this.options.name}'s stdin (limit ${maxOutboundBytes}); it is not reading; see ${this.options.logPath}`,
    );
    return false;
  }

  /** Queues a line past the bound (the goodbye must go out). */
  sendAlways(line: string): void {
    this.writer.enqueue(line);
  }

  /** Takes everything still queued (to hand to the transport's close). */
  takeQueued(): string | undefined {
    return this.writer.takeAll();
  }

  /** Settles the request `id` with its answer, or with `error`; an answer for no request is a diagnostic. */
  settle(id: string, frame: ExtensionFrame | undefined, error?: ExtensionHostError): void {
    this.settleEntry(this.seqOf(id), id, frame, error);
  }

  /** settle() by the request's number (`id`, when known, is the wire id, for the diagnostics). */
  private settleEntry(seq: number | undefined, wireId: string | undefined, frame: ExtensionFrame | undefined, error?: ExtensionHostError): void {
    const entry = seq === undefined ? undefined : this.pending.get(seq);
    if (entry === undefined) {
      if (frame === undefined) return;
      const id = wireId ?? `${this.idPrefix}${seq}`;
      // Once per cancelled id: the extension answered before it read the cancel, or ignored it.
      if (this.cancelled?.delete(id) === true) this.options.log?.(`late ${frame.type} for cancelled request ${JSON.stringify(id)} dropped`);
      else this.options.diagnose('UNKNOWN_ID', `${frame.type} for unknown or already settled id ${JSON.stringify(id)} dropped`);
      return;
    }
    this.pending.delete(entry.seq);
    this.release(entry);
    if (frame !== undefined) this.writer.answer();
    if (error !== undefined) {
      fail(entry, error);
    } else if (frame !== undefined && frame.type !== RESPONSE_TYPE[entry.request]) {
      fail(entry, this.error(ErrorCode.BAD_RESPONSE, `${this.options.name} answered a request expecting ${RESPONSE_TYPE[entry.request]} with ${frame.type}`));
    } else {
      succeed(entry, frame!);
    }
  }

  /** A `progress` frame: to its request's watch (a restarted deadline, onProgress); see ProgressOutcome. */
  progress(frame: ProgressFrame): ProgressOutcome {
    const seq = this.seqOf(frame.id);
    const entry = seq === undefined ? undefined : this.pending.get(seq);
    if (entry === undefined) return this.cancelled?.has(frame.id) === true ? 'cancelled' : undefined;
    const watch = entry.extra?.watch;
    if (watch === undefined) return entry;
    if (watch.resetMs !== undefined) {
      const left = watch.until - monotonicMs();
      if (left <= watch.resetMs) watch.capped = true;
      this.timers.move(entry, Math.max(0, Math.min(watch.resetMs, left)));
    }
    // The embedder's callback runs inside the read loop: a throw must not escape into the stdout
    // handler (a crash, or the lines after this one in the chunk lost).
    try {
      watch.onProgress?.(frame);
    } catch (err) {
      this.options.diagnose('CALLBACK_THREW', `callback onProgress threw: ${err instanceof Error ? err.message : String(err)}`);
    }
    return entry;
  }

  /** Settles every pending request with `error` (or what it makes of each request). */
  rejectAll(error: ExtensionHostError | ((entry: Pending) => ExtensionHostError)): void {
    if (this.pending.size === 0) return;
    const entries = this.pending.values();
    this.pending.clear();
    for (const entry of entries) {
      this.release(entry);
      fail(entry, typeof error === 'function' ? error(entry) : error);
    }
  }

  /** The connection is over: pending requests settle with `error` (when given); timers and the queue go. */
  close(error?: ExtensionHostError): void {
    if (error !== undefined) this.rejectAll(error);
    this.writer.stop();
    this.deadlines?.clear();
  }

  /** Tells the extension to stop a request that settled here (aborted or timed out); bounded like any one-way frame. */
  private cancel(id: string, reason: 'aborted' | 'timeout'): void {
    const cancelled = (this.cancelled ??= new Set());
    if (cancelled.size >= MAX_CANCELLED_IDS) cancelled.delete(cancelled.values().next().value!);
    cancelled.add(id);
    this.sendLine(`{"type":"cancel","id":${JSON.stringify(id)},"reason":"${reason}"}\n`, 'cancel');
  }

  private release(entry: Pending): void {
    const deadlines = this.deadlines;
    if (deadlines !== undefined) deadlines.release(entry);
    else entry.settled = true;
    // An embedder's signal-like object whose removeEventListener throws must not stop the settle.
    try {
      entry.extra?.cleanup?.();
    } catch {
      // The listener stays; it finds the request settled.
    }
  }

  private onRequestTimeout(entry: Pending, timeoutMs: number): void {
    const { name, logPath } = this.options;
    const type = entry.request;
    // Still whole in the queue: never begun, whatever the counters say (lines taken back after it
    // shift the counters too). Otherwise, lines taken back before it count as done: errs towards "written".
    const queued = this.writer.takeBack(entry.line);
    const unwritten = queued || this.writer.unwritten(entry.end);
    if (unwritten && entry.extra?.closesStdin === true) {
      // The spec's rule for before_agent_start: a blocked request write closes the input pipe.
      const error = this.error(ErrorCode.WRITE_TIMEOUT, `${name}: could not write ${type} within ${timeoutMs} ms (the extension is not reading its stdin); its stdin was closed; see ${logPath}`);
      this.settleEntry(entry.seq, undefined, undefined, error);
      this.closeInput(error);
      return;
    }
    // Not begun: taken back, so the extension never sees it. Begun: completed, so the framing holds.
    if (queued) {
      this.settleEntry(entry.seq, undefined, undefined, this.error(ErrorCode.TIMEOUT, `${name} did not read ${type} within ${timeoutMs} ms (its stdin is full: busy or not reading); the request was dropped unsent; see ${logPath}`));
      return;
    }
    const watch = entry.extra?.watch;
    const total = watch?.capped === true ? ` (its total limit of ${watch.maxTotalMs} ms, progress or not)` : '';
    this.settleEntry(entry.seq, undefined, undefined, this.error(ErrorCode.TIMEOUT, `${name} did not answer ${type} within ${timeoutMs} ms${total}; see ${logPath}`));
    if (this.cancels) this.cancel(this.idOf(entry), 'timeout');
  }

  /** A write threw (for the writer): every pending request settles at once, then the owner is told. */
  onWriteFailed(cause: unknown, written: number): void {
    const { name, logPath } = this.options;
    const reason = cause instanceof Error ? cause.message : String(cause);
    this.rejectAll((entry) => {
      // Its line in the chunk that threw, or still queued; or written, when its answer can no longer come.
      const fate = entry.end > written ? 'could not be written' : 'will not be answered: a later write to its stdin threw';
      return this.error(ErrorCode.PROCESS_EXITED, `${name}: ${entry.request} ${fate}: ${reason}; see ${logPath}`, cause);
    });
    if (this.options.isOver()) return;
    this.options.writeFailed?.(this.error(ErrorCode.PROCESS_EXITED, `${name}: a write to its stdin threw (${reason}); it is being stopped; see ${logPath}`, cause));
  }

  /** Its stdin made no progress for the stuck deadline: the extension is stopped, like a blocked request (for the writer). */
  onStuck(): void {
    // A closed input never progresses, and is not stuck: its end is handled where it closed.
    if (this.options.isOver() || !this.transport.writable) return;
    const message = `${this.options.name} read nothing from its stdin for ${this.options.stuckMs} ms (${this.writer.queuedChars} bytes waiting); it is stuck and is being stopped; see ${this.options.logPath}`;
    this.options.diagnose('STDIN_STUCK', message);
    this.closeInput(this.error(ErrorCode.WRITE_TIMEOUT, message));
  }

  private closeInput(error: ExtensionHostError): void {
    this.writer.stop();
    this.transport.closeInput();
    // It can receive nothing any more: the extension is gone, like one that closed its stdout.
    this.options.disconnect(error, 'stdin_blocked');
  }

  private error(code: ErrorCode, message: string, cause?: unknown): ExtensionHostError {
    return new ExtensionHostError(code, message, { extension: this.options.name, logPath: this.options.logPath, cause, exitCode: undefined, signal: undefined });
  }
}
