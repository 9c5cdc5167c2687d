// The request path over any Transport, top to bottom: a request gets an id, is encoded, waits in a
// Map of pending requests with its own deadline timer, goes out with the tick's write (writer.ts),
// and settles exactly once: with its answer, at its deadline, when aborted, when it cannot be
// written, or when the connection ends (settle-all).
import { monotonicMs } from '../clock.js';
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { encodeFrame, encodeRequest } from '../protocol/frame-check.js';
import type { ExtensionFrame, ProgressFrame } from '../protocol/frames.js';
import { jsonProblem } from '../protocol/json-check.js';
import { MAX_TIMER_MS } from '../protocol/limits.js';
import type { Transport } from '../transport/transport.js';
import { RESPONSE_TYPE, type RequestFrame, type RequestOptions, type RequestType, type ResponseMapper } from './requests.js';
import { OutboundWriter, type WriterOwner } from './writer.js';

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
  /** A `[host]` line in the extension's log. */
  log?(message: string): void;
  /** Sees each line queued for the peer (with its LF), e.g. `zot-ext run --trace`. */
  readonly tap?: ((direction: 'in' | 'out', line: string) => void) | undefined;
  /**
   * A write to the transport threw: it is lost (every pending request has settled PROCESS_EXITED
   * already). The owner ends the connection; without this hook the connection goes on, and later
   * lines are written again. Not called once `isOver()`.
   */
  writeFailed?(error: ExtensionHostError): void;
}

/**
 * The Map of pending requests is replaced by a copy after this many requests. Why: V8 allocates a
 * Map's next hash table in the generation of its current one, and keeps a replaced table's entries
 * until the next full GC; once a busy connection's Map is old, every rehash makes an old table that
 * holds young requests, so every request (its promise, frame and answer) is promoted and freed by
 * full GCs only. A young copy now and then keeps them young: about half the GC time of pipelined
 * calls, measured (docs/performance.md, "Core v3, the pipelined limit").
 */
const RENEW_PENDING = 1024;

/** How many cancelled ids are remembered, to tell their late answers from unknown ids. */
export const MAX_CANCELLED_IDS = 256;

/** What a request does with its `progress` frames; only requests that asked have one. */
interface ProgressWatch {
  readonly onProgress: ((frame: ProgressFrame) => void) | undefined;
  /** The deadline each progress frame restarts; undefined: progress does not touch the deadline. */
  readonly resetMs: number | undefined;
  /** The time (monotonicMs) past which no reset reaches, and its length. */
  readonly until: number;
  readonly maxTotalMs: number;
  /** The current deadline is the total limit's, not a restarted one. */
  capped: boolean;
}

/** One request waiting for its answer. */
export interface Pending {
  readonly id: string;
  readonly request: RequestType;
  /** The request as given (its `name`, for progress events). */
  frame: RequestFrame<RequestType>;
  /** The encoded request, to take it back from the queue while none of it is written. */
  line: string;
  /** Characters enqueued up to the end of this request: it is written once the writer's done count reaches it. */
  readonly end: number;
  readonly closesStdin: boolean;
  watch: ProgressWatch | undefined;
  /** What the caller makes of the answer (RequestOptions.map). */
  map: ResponseMapper<never, unknown> | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Its deadline: the timer, and the timeout it was set for (in the message). */
  timer: NodeJS.Timeout | undefined;
  timeoutMs: number;
  /** Removes the abort listener. */
  cleanup: (() => void) | undefined;
}

/** A progress frame's fate: delivered, for a request cancelled a moment ago (dropped quietly), or for no request. */
export type ProgressOutcome = Pending | 'cancelled' | undefined;

/** Every request settles exactly once: with its answer, at its deadline, when aborted, when it cannot be written, or when the connection ends. */
export class Connection implements WriterOwner {
  /** Pending requests by id; a fresh Map every RENEW_PENDING requests (see there). */
  private pending = new Map<string, Pending>();
  private sinceRenewal = 0;
  private seq = 0;
  private readonly writer: OutboundWriter;
  /** Capability "cancel" was negotiated: an aborted or timed-out request gets a `cancel` frame. */
  cancels = false;
  /** zot's "tool_cancel" was declared (and "cancel" not negotiated): an aborted or timed-out `tool_call` gets zot's `tool_cancel` frame. */
  toolCancels = false;
  /** The last MAX_CANCELLED_IDS cancelled ids, oldest first. */
  private readonly cancelled = new Set<string>();

  constructor(
    private readonly transport: Transport,
    private readonly options: ConnectionOptions,
  ) {
    this.writer = new OutboundWriter(transport, this);
  }

  // For the writer (WriterOwner).
  get stuckMs(): number {
    return this.options.stuckMs;
  }

  get stats(): { framesOut: number } {
    return this.options.stats;
  }

  get maxQueuedChars(): number {
    return this.options.maxOutboundBytes;
  }

  /** Characters waiting to be written. */
  get queuedChars(): number {
    return this.writer.queuedChars;
  }

  /** A request with this id waits for its answer. */
  has(id: string): boolean {
    return this.pending.has(id);
  }

  /** Sends a request (the frame gets its `id`); resolves with its response, rejects with a typed error. Never hangs past `timeoutMs`. */
  request(frame: RequestFrame<RequestType>, options?: RequestOptions): Promise<unknown> {
    const { name } = this.options;
    const request = frame.type as RequestType;
    const signal = options?.signal;
    if (signal?.aborted) return this.refuse(this.error(ErrorCode.ABORTED, `${name}: ${request} aborted`, signal.reason), options?.map);
    // More than 10 characters, whatever the prefix: V8's JSON.parse interns string values of up to
    // 10, and each answer's fresh id would grow the string table until the next full GC (~350 ns
    // an answer, measured: docs/performance.md, "Core v3, the pipelined limit").
    const id = `${this.options.idPrefix}:request-${++this.seq}`;
    // Encoded first: a frame that cannot be encoded (a cycle, a BigInt, nesting that overflows the
    // stack) fails with INVALID_ARGUMENT and leaves no entry behind. The value is walked for the
    // reason only then, so a good call pays nothing for the check.
    let line: string;
    try {
      // The frame gets its id in place (each request's frame is made for it): no copy to encode.
      line = encodeRequest(frame, id);
    } catch (err) {
      return this.refuse(this.error(ErrorCode.INVALID_ARGUMENT, `${name}: ${request} cannot be sent as JSON: it ${jsonProblem(frame) ?? (err as Error).message}`, err), options?.map);
    }
    // The spec caps every frame: a conforming extension would disconnect on a larger one. A line
    // of at most a third of the cap in UTF-16 units fits in any case (3 bytes a unit at most).
    const maxFrame = this.options.maxFrameBytes;
    if (line.length * 3 > maxFrame && Buffer.byteLength(line) - 1 > maxFrame) {
      return this.refuse(this.error(ErrorCode.INVALID_ARGUMENT, `${name}: ${request} of ${Buffer.byteLength(line) - 1} bytes not sent: frames are limited to ${maxFrame} bytes`), options?.map);
    }
    const timeoutMs = options?.timeoutMs;
    const watch = options?.onProgress !== undefined || options?.resetTimeoutOnProgress === true ? progressWatch(options, timeoutMs) : undefined;
    let resolve!: (value: unknown) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<unknown>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const entry: Pending = {
      id,
      request,
      frame,
      line,
      end: this.writer.pushed + line.length,
      closesStdin: options?.closeStdinOnWriteTimeout === true,
      watch,
      map: options?.map,
      resolve,
      reject,
      timer: undefined,
      timeoutMs: 0,
      cleanup: undefined,
    };
    if (++this.sinceRenewal === RENEW_PENDING) {
      this.pending = new Map(this.pending);
      this.sinceRenewal = 0;
    }
    this.pending.set(id, entry);
    options?.onId?.(id);
    const first = watch === undefined ? timeoutMs : Math.min(timeoutMs ?? Infinity, watch.maxTotalMs);
    if (first !== undefined) this.arm(entry, first);
    if (signal !== undefined) {
      try {
        this.watchAbort(entry, signal);
      } catch (err) {
        // An abort signal that cannot be listened to (not an AbortSignal): settled, unsent.
        this.settleEntry(entry, undefined, this.error(ErrorCode.INVALID_ARGUMENT, `${name}: ${request} not sent: its signal cannot be watched: ${(err as Error).message}`, err));
        return promise;
      }
    }
    // A write that throws settles this request too (onWriteFailed): nothing throws here.
    this.options.tap?.('out', line);
    this.writer.enqueue(line);
    return promise;
  }

  /** A request that fails before it is sent: rejected with `error`, or resolved with what `map` makes of it (as deliver() settles any request). */
  refuse(error: ExtensionHostError, map?: ResponseMapper<never, unknown>): Promise<never> {
    if (map === undefined) return Promise.reject(error);
    return new Promise((resolve, reject) => deliver({ map, resolve, reject }, undefined, error));
  }

  /**
   * One timer per request: `timeoutMs` from now, replacing any earlier one. Not unref'd: the caller
   * awaits the request, and an in-memory peer holds no handle, so the deadline may be all that
   * keeps Node running until the request settles (a request without one holds nothing).
   */
  private arm(entry: Pending, timeoutMs: number): void {
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    entry.timer = undefined;
    // setTimeout fires at once for delays above 2^31-1 ms (about 24.8 days): such a deadline means none.
    if (!Number.isFinite(timeoutMs) || timeoutMs > MAX_TIMER_MS) return;
    entry.timeoutMs = timeoutMs;
    entry.timer = setTimeout(fireDeadline, Math.max(0, timeoutMs), this, entry);
  }

  /** An abort of `signal` settles the request ABORTED (and cancels it at the extension when negotiated). */
  private watchAbort(entry: Pending, signal: NonNullable<RequestOptions['signal']>): void {
    const onAbort = () => {
      if (this.pending.get(entry.id) !== entry) return;
      this.settleEntry(entry, undefined, this.error(ErrorCode.ABORTED, `${this.options.name}: ${entry.request} aborted`, signal.reason));
      this.cancel(entry, 'aborted');
    };
    signal.addEventListener('abort', onAbort, { once: true });
    entry.cleanup = () => signal.removeEventListener('abort', onAbort);
  }

  /** Queues an encoded one-way frame; false (and a diagnostic) when the outbound bound drops it. */
  sendLine(line: string, type: string): boolean {
    if (this.writer.offer(line)) {
      this.options.tap?.('out', line);
      return true;
    }
    const { maxOutboundBytes, name, logPath } = this.options;
    this.options.diagnose(
      'OUTBOUND_DROPPED',
      `${type} of ${line.length} bytes dropped unsent: ${this.writer.queuedChars} bytes wait for ${name}'s stdin (limit ${maxOutboundBytes}); it is not reading; see ${logPath}`,
    );
    return false;
  }

  /** Queues a line past the bound (the goodbye must go out). */
  sendAlways(line: string): void {
    this.options.tap?.('out', line);
    this.writer.enqueue(line);
  }

  /** Takes everything still queued (to hand to the transport's close). */
  takeQueued(): string | undefined {
    return this.writer.takeAll();
  }

  /** Settles the request `id` with its answer, or with `error`; an answer for no request is a diagnostic. */
  settle(id: string, frame: ExtensionFrame | undefined, error?: ExtensionHostError): void {
    const entry = this.pending.get(id);
    if (entry !== undefined) {
      this.settleEntry(entry, frame, error);
      return;
    }
    if (frame === undefined) return;
    // Once per cancelled id: the extension answered before it read the cancel, or ignored it.
    if (this.cancelled.delete(id)) this.options.log?.(`late ${frame.type} for cancelled request ${JSON.stringify(id)} dropped`);
    else this.options.diagnose('UNKNOWN_ID', `${frame.type} for unknown or already settled id ${JSON.stringify(id)} dropped`);
  }

  private settleEntry(entry: Pending, frame: ExtensionFrame | undefined, error?: ExtensionHostError): void {
    this.pending.delete(entry.id);
    this.release(entry);
    if (error === undefined && frame!.type !== RESPONSE_TYPE[entry.request]) {
      deliver(entry, undefined, this.error(ErrorCode.BAD_RESPONSE, `${this.options.name} answered a request expecting ${RESPONSE_TYPE[entry.request]} with ${frame!.type}`));
    } else {
      deliver(entry, frame, error);
    }
    forget(entry);
  }

  /** A `progress` frame: to its request's watch (a restarted deadline, onProgress); see ProgressOutcome. */
  progress(frame: ProgressFrame): ProgressOutcome {
    const entry = this.pending.get(frame.id);
    if (entry === undefined) return this.cancelled.has(frame.id) ? 'cancelled' : undefined;
    const { watch } = entry;
    if (watch === undefined) return entry;
    if (watch.resetMs !== undefined) {
      const left = watch.until - monotonicMs();
      if (left <= watch.resetMs) watch.capped = true;
      this.arm(entry, Math.max(0, Math.min(watch.resetMs, left)));
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

  /** Settles every pending request with `error` (or what it makes of each request), in the order they were sent. */
  rejectAll(error: ExtensionHostError | ((entry: Pending) => ExtensionHostError)): void {
    if (this.pending.size === 0) return;
    const entries = [...this.pending.values()];
    this.pending.clear();
    for (const entry of entries) {
      this.release(entry);
      deliver(entry, undefined, typeof error === 'function' ? error(entry) : error);
      forget(entry);
    }
  }

  /** The connection is over: pending requests settle with `error` (when given); timers and the queue go. */
  close(error?: ExtensionHostError): void {
    if (error !== undefined) this.rejectAll(error);
    this.writer.stop();
  }

  /**
   * Tells the extension to stop a request that settled here (aborted or timed out), when it asked to
   * be told: our `cancel` for any request, else zot's `tool_cancel` for a tool call; bounded like any
   * one-way frame.
   */
  private cancel({ id, request }: Pending, reason: 'aborted' | 'timeout'): void {
    const frame = this.cancels ? { type: 'cancel', id, reason } : this.toolCancels && request === 'tool_call' ? { type: 'tool_cancel', id } : undefined;
    if (frame === undefined) return;
    const { cancelled } = this;
    if (cancelled.size >= MAX_CANCELLED_IDS) cancelled.delete(cancelled.values().next().value!);
    cancelled.add(id);
    this.sendLine(encodeFrame(frame), frame.type);
  }

  private release(entry: Pending): void {
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    entry.timer = undefined;
    // An embedder's signal-like object whose removeEventListener throws must not stop the settle.
    try {
      entry.cleanup?.();
    } catch {
      // The listener stays; it finds the request settled.
    }
  }

  /** Internal (fireDeadline): the request's timer fired. */
  onRequestTimeout(entry: Pending): void {
    if (this.pending.get(entry.id) !== entry) return;
    const { name, logPath } = this.options;
    const { request: type, timeoutMs } = entry;
    // Take-back. Why: a request still whole in the queue has never begun; dropping it means the
    // extension never runs a call whose caller gave up. Lines taken back after it shift the
    // counters too: otherwise, lines taken back before it count as done (errs towards "written").
    const queued = this.writer.takeBack(entry.line);
    const unwritten = queued || this.writer.unwritten(entry.end);
    if (unwritten && entry.closesStdin) {
      // The spec's rule for before_agent_start: a blocked request write closes the input pipe.
      const error = this.error(ErrorCode.WRITE_TIMEOUT, `${name}: could not write ${type} within ${timeoutMs} ms (the extension is not reading its stdin); its stdin was closed; see ${logPath}`);
      this.settleEntry(entry, undefined, error);
      this.closeInput(error);
      return;
    }
    // Not begun: taken back, so the extension never sees it. Begun: completed, so the framing holds.
    if (queued) {
      this.settleEntry(entry, undefined, this.error(ErrorCode.TIMEOUT, `${name} did not read ${type} within ${timeoutMs} ms (its stdin is full: busy or not reading); the request was dropped unsent; see ${logPath}`));
      return;
    }
    const total = entry.watch?.capped === true ? ` (its total limit of ${entry.watch.maxTotalMs} ms, progress or not)` : '';
    this.settleEntry(entry, undefined, this.error(ErrorCode.TIMEOUT, `${name} did not answer ${type} within ${timeoutMs} ms${total}; see ${logPath}`));
    this.cancel(entry, 'timeout');
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

  /**
   * Stuck detection (for the writer): its stdin made no progress for the stuck deadline. Why: an
   * extension that stops reading would hold its queue, and every request in it, forever; it is
   * stopped like a blocked request.
   */
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

/** The watch of a request that asked for progress or for deadlines that progress restarts. */
function progressWatch(options: RequestOptions, timeoutMs: number | undefined): ProgressWatch {
  const reset = options.resetTimeoutOnProgress === true && timeoutMs !== undefined && Number.isFinite(timeoutMs) ? timeoutMs : undefined;
  const maxTotalMs = reset === undefined ? Infinity : (options.maxTotalTimeoutMs ?? reset * 10);
  return { onProgress: options.onProgress, resetMs: reset, until: monotonicMs() + maxTotalMs, maxTotalMs, capped: reset !== undefined && maxTotalMs <= reset };
}

const noop = (): void => undefined;

const NO_FRAME: RequestFrame<RequestType> = { type: 'command_invoked', name: '', args: '' };

/**
 * A settled request keeps nothing of its call. Why: V8 may keep a settled entry reachable from a
 * table the pending Map replaced until the next full GC; an entry that still held its promise's
 * functions, frame and line kept all of them alive through every scavenge (promoted, then a full GC
 * to free them): ~1 us more per pipelined call, measured (docs/performance.md, "Core v3").
 */
function forget(entry: Pending): void {
  entry.resolve = noop;
  entry.reject = noop;
  entry.frame = NO_FRAME;
  entry.line = '';
  entry.watch = undefined;
  entry.map = undefined;
  entry.timer = undefined;
  entry.cleanup = undefined;
}

/** A request's timer: a module function with its arguments, so a request makes no closure for it. */
function fireDeadline(connection: Connection, entry: Pending): void {
  connection.onRequestTimeout(entry);
}

/** The request resolves with its answer or rejects with `error`, or resolves with what its `map` makes of either (rejects when that throws). */
function deliver(entry: Pick<Pending, 'map' | 'resolve' | 'reject'>, frame: ExtensionFrame | undefined, error: ExtensionHostError | undefined): void {
  const { map } = entry;
  if (map === undefined) {
    if (error === undefined) entry.resolve(frame);
    else entry.reject(error);
    return;
  }
  let value: unknown;
  try {
    value = error === undefined ? map.frame(frame as never) : map.error(error);
  } catch (err) {
    entry.reject(err);
    return;
  }
  entry.resolve(value);
}
