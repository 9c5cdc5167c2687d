// What a request is: the frames that ask for an answer, their answers, and how a caller may wait.
import type { ExtensionHostError } from '../errors.js';
import type { CommandResponseFrame, EventInterceptResponseFrame, ExtensionFrame, HostFrame, ProgressFrame, ToolResultFrame } from '../protocol/frames.js';
import { monotonicMs } from '../clock.js';

/** Responses the host correlates by id, keyed by the request frame type that asks for them. */
export interface ResponseFor {
  command_invoked: CommandResponseFrame;
  tool_call: ToolResultFrame;
  event_intercept: EventInterceptResponseFrame;
}
export type RequestType = keyof ResponseFor;
/** A request frame without its id (the process assigns one). */
export type RequestFrame<T extends RequestType> = DistributiveOmit<Extract<HostFrame, { type: T }>, 'id'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export const RESPONSE_TYPE: Record<RequestType, ExtensionFrame['type']> = {
  command_invoked: 'command_response',
  tool_call: 'tool_result',
  event_intercept: 'event_intercept_response',
};

/** What request() uses of an AbortSignal; the intercept chain passes a lighter object with these. */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean | undefined }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface RequestOptions {
  /**
   * Deadline for the answer, including the write of the request. No timer when omitted, or above
   * 2^31-1 ms (the longest delay a timer can express), Infinity included.
   */
  timeoutMs?: number | undefined;
  /** Aborts the request (rejects with ABORTED). */
  signal?: AbortSignal | AbortLike | undefined;
  /**
   * `true`: a request not completely written at its deadline fails with WRITE_TIMEOUT, and the
   * extension's stdin is closed and the extension stopped (the spec's rule for before_agent_start).
   * Otherwise it fails with TIMEOUT: taken back unsent when none of it was written, else completed
   * (the late answer is ignored); only the stuck deadline stops an extension. @default false
   */
  closeStdinOnWriteTimeout?: boolean | undefined;
  /**
   * The frame already encoded up to its id (protocol/encode.ts `toolCallHead`, `toolCallInterceptHead`): the line is
   * `requestLine(head, id)`, the same bytes as encoding the frame again. @default undefined
   */
  head?: string | undefined;
  /** Each `progress` frame the extension sends for this request (capability "progress"). @default undefined */
  onProgress?: ((frame: ProgressFrame) => void) | undefined;
  /** Each `progress` frame restarts the deadline (`timeoutMs`), up to `maxTotalTimeoutMs`. @default false */
  resetTimeoutOnProgress?: boolean | undefined;
  /** With `resetTimeoutOnProgress`: the request's deadline, from its start, however often it is reset. @default 10 × timeoutMs */
  maxTotalTimeoutMs?: number | undefined;
}

/** What a request does with its `progress` frames; only requests that asked have one. */
export interface ProgressWatch {
  readonly onProgress: ((frame: ProgressFrame) => void) | undefined;
  /** The deadline each progress frame restarts; undefined: progress does not touch the deadline. */
  readonly resetMs: number | undefined;
  /** The time (monotonicMs) past which no reset reaches, and its length. */
  readonly until: number;
  readonly maxTotalMs: number;
  /** The current deadline is the total limit's, not a restarted one. */
  capped: boolean;
}

/** The watch of a request that asked for progress or for deadlines that progress restarts. */
export function progressWatch(options: RequestOptions, timeoutMs: number | undefined): ProgressWatch {
  const reset = options.resetTimeoutOnProgress === true && timeoutMs !== undefined && Number.isFinite(timeoutMs) ? timeoutMs : undefined;
  const maxTotalMs = reset === undefined ? Infinity : (options.maxTotalTimeoutMs ?? reset * 10);
  return { onProgress: options.onProgress, resetMs: reset, until: monotonicMs() + maxTotalMs, maxTotalMs, capped: reset !== undefined && maxTotalMs <= reset };
}

/**
 * Turns a request's response, or its failure, into the value the request resolves with, when it
 * settles: a caller that maps every outcome anyway saves a promise and a microtask per request.
 * The request then never rejects (unless a mapper throws). Both are called as methods of the
 * mapper (it may be a class instance: no closures per extension).
 */
export interface ResponseMapper<T, R> {
  frame(frame: T): R;
  error(error: ExtensionHostError): R;
}

/** One request waiting for its answer. */
export interface Pending {
  /** Its number: the id on the wire is `<idPrefix>:<seq>` (the pending map is keyed by the number). */
  readonly seq: number;
  readonly request: RequestType;
  readonly mapper: ResponseMapper<ExtensionFrame, unknown> | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** Its deadline group (see deadlines.ts). */
  deadline: { readonly timeoutMs: number } | undefined;
  /** Characters enqueued up to the end of this request: it is written once `charsDone` reaches it. */
  readonly end: number;
  /** The encoded request, to take it back from the queue while none of it is written. */
  readonly line: string;
  /** The request as given (its `name`, for progress events). */
  readonly frame: RequestFrame<RequestType>;
  settled: boolean;
  /** What only some requests have (most have none: one field less to fill and carry per call). */
  extra: PendingExtra | undefined;
}

/** A pending request's write rule, progress watch and abort listener. */
export interface PendingExtra {
  readonly closesStdin: boolean;
  readonly watch: ProgressWatch | undefined;
  cleanup: (() => void) | undefined;
}

export function succeed(entry: Pending, frame: ExtensionFrame): void {
  const { mapper } = entry;
  if (mapper === undefined) {
    entry.resolve(frame);
    return;
  }
  let value: unknown;
  try {
    value = mapper.frame(frame);
  } catch (err) {
    entry.reject(err);
    return;
  }
  entry.resolve(value);
}

export function fail(entry: Pending, error: ExtensionHostError): void {
  const { mapper } = entry;
  if (mapper === undefined) {
    entry.reject(error);
    return;
  }
  let value: unknown;
  try {
    value = mapper.error(error);
  } catch (err) {
    entry.reject(err);
    return;
  }
  entry.resolve(value);
}
