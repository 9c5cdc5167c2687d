/**
 * The negotiated extensions of the zot protocol (cancel, progress, trace) on the extension side:
 * the capabilities the SDK declares, the pending requests a `cancel` can reach, the per-request
 * `progress()` and the trace context read from a request's `_meta`.
 */
import type { JsonObject } from '../protocol/frames.js';
import type { ProgressUpdate } from './types.js';
import { MAX_PROGRESS_MESSAGE } from '../protocol/limits.js';
import { PROTOCOL_CAPABILITIES } from '../protocol/names.js';

/** Frames already waiting in the output queue above which a progress frame is dropped (lossy by design). */
export const PROGRESS_QUEUE_MAX = 64;
/** Longest `tracestate` passed on (W3C: 32 members, 512 characters is what must be propagated). */
const TRACESTATE_MAX = 512;
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** What the host granted in `hello_ack.capabilities`; absent or malformed means nothing. */
export interface Negotiated {
  cancel: boolean;
  progress: boolean;
  trace: boolean;
  /** zot's: the host takes `call_tool` (it lists it for every extension; ours only when declared). */
  callTool: boolean;
}

export const NOTHING_NEGOTIATED: Negotiated = Object.freeze({ cancel: false, progress: false, trace: false, callTool: false });

/** Reads `hello_ack.capabilities` (the raw frame: the ack schema does not know the field). */
export function negotiated(raw: JsonObject): Negotiated {
  const caps = raw.capabilities;
  if (!Array.isArray(caps) || caps.length === 0) return NOTHING_NEGOTIATED;
  return { cancel: caps.includes('cancel'), progress: caps.includes('progress'), trace: caps.includes('trace'), callTool: caps.includes('call_tool') };
}

/** The hello capabilities: the given ones, zot's "call_tool" when asked for, then the protocol extensions not already there. */
export function withProtocolExtensions(capabilities: readonly string[], callTool = false): string[] {
  const out = [...capabilities];
  if (callTool && !out.includes('call_tool')) out.push('call_tool');
  // Declared in every `hello`, after the usual capabilities.
  // Not `unregister`: the SDK has no way to withdraw a tool (yet).
  for (const cap of PROTOCOL_CAPABILITIES) if (cap !== 'unregister' && !out.includes(cap)) out.push(cap);
  return out;
}

export interface TraceContext {
  traceparent: string | undefined;
  tracestate: string | undefined;
}

export const NO_TRACE: TraceContext = Object.freeze({ traceparent: undefined, tracestate: undefined });

/** W3C trace context from a request frame's `_meta`; anything malformed is left out. */
export function traceContext(raw: JsonObject): TraceContext {
  const meta = raw._meta;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return NO_TRACE;
  const { traceparent, tracestate } = meta as { traceparent?: unknown; tracestate?: unknown };
  if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent)) return NO_TRACE;
  const state = typeof tracestate === 'string' && tracestate.length <= TRACESTATE_MAX ? tracestate : undefined;
  return { traceparent, tracestate: state };
}

/** The frame without `_meta` (a protocol field, never part of what handlers see). */
export function withoutMeta(raw: JsonObject): JsonObject {
  if (!Object.hasOwn(raw, '_meta')) return raw;
  const { _meta: _dropped, ...rest } = raw;
  return rest;
}

/** Thrown-away reason text for each cancel reason a host may give. */
function cancelReason(reason: string): DOMException {
  return reason === 'timeout'
    ? new DOMException('the host cancelled the request: it reached its deadline (timeout)', 'TimeoutError')
    : new DOMException(`the host cancelled the request (${reason})`, 'AbortError');
}

function invalidProgress(message: string): TypeError {
  return new TypeError(`ctx.progress: ${message}`);
}

/** The `progress` frame for an update, validated; throws a TypeError on a bad value. */
export function progressFrame(id: string, update: ProgressUpdate): JsonObject {
  if (typeof update !== 'object' || update === null) throw invalidProgress('expected an object { message?, progress?, total? }');
  const { message, progress, total } = update;
  const frame: JsonObject = { type: 'progress', id };
  if (message !== undefined) {
    if (typeof message !== 'string') throw invalidProgress('`message` must be a string');
    frame.message = message.length > MAX_PROGRESS_MESSAGE ? message.slice(0, MAX_PROGRESS_MESSAGE) : message;
  }
  for (const [key, value] of [['progress', progress], ['total', total]] as const) {
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidProgress(`\`${key}\` must be a finite number`);
    frame[key] = value;
  }
  return frame;
}

/** One request being handled. */
export class PendingRequest {
  done = false;
  /** Set when the host cancelled it: a failure after that is not answered. */
  cancelled: string | undefined;
  readonly signal: AbortSignal;
  private readonly controller: AbortController | undefined;

  constructor(
    readonly id: string,
    sessionSignal: AbortSignal,
    cancellable: boolean,
  ) {
    if (!cancellable) {
      this.signal = sessionSignal;
      return;
    }
    // Its own signal, which also fires when the session stops (PendingRequests.abortAll).
    this.controller = new AbortController();
    this.signal = sessionSignal.aborted ? sessionSignal : this.controller.signal;
  }

  cancel(reason: string): void {
    if (this.done || this.cancelled !== undefined) return;
    this.cancelled = reason;
    this.controller?.abort(cancelReason(reason));
  }

  abort(reason: unknown): void {
    this.controller?.abort(reason);
  }
}

/**
 * The requests in flight that a `cancel` can reach, by id; only tracked when `cancel` was
 * negotiated, and bounded by the number of requests in flight (each leaves on its answer).
 */
export class PendingRequests {
  private readonly byId = new Map<string, PendingRequest>();

  constructor(
    private readonly sessionSignal: AbortSignal,
    private readonly cancellable: () => boolean,
  ) {}

  begin(id: string): PendingRequest {
    const cancellable = this.cancellable();
    const request = new PendingRequest(id, this.sessionSignal, cancellable);
    // A duplicate id (a host bug) keeps the first entry: its cancel still reaches the first handler.
    if (cancellable && !this.byId.has(id)) this.byId.set(id, request);
    return request;
  }

  end(request: PendingRequest): void {
    request.done = true;
    if (this.byId.get(request.id) === request) this.byId.delete(request.id);
  }

  /** A cancel for an unknown or finished id is ignored. */
  cancel(id: string, reason: string): void {
    this.byId.get(id)?.cancel(reason);
  }

  /** The session stopped: every pending handler's signal fires. */
  abortAll(reason: unknown): void {
    for (const request of this.byId.values()) request.abort(reason);
  }
}
