// What a request is: the frames that ask for an answer, their answers, and how a caller may wait.
import type { ExtensionHostError } from '../errors.js';
import type { CommandResponseFrame, EventInterceptResponseFrame, ExtensionFrame, HostFrame, ProgressFrame, ToolResultFrame } from '../protocol/frames.js';

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

/** What a caller makes of a request's answer and of its failure (RequestOptions.map). */
export interface ResponseMapper<T, R> {
  frame(frame: T): R;
  error(error: ExtensionHostError): R;
}

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
  /** Each `progress` frame the extension sends for this request (capability "progress"). @default undefined */
  onProgress?: ((frame: ProgressFrame) => void) | undefined;
  /** Each `progress` frame restarts the deadline (`timeoutMs`), up to `maxTotalTimeoutMs`. @default false */
  resetTimeoutOnProgress?: boolean | undefined;
  /** With `resetTimeoutOnProgress`: the request's deadline, from its start, however often it is reset. @default 10 × timeoutMs */
  maxTotalTimeoutMs?: number | undefined;
  /**
   * What the request resolves with: its answer or its failure made into the caller's value as it
   * settles (a throw rejects). Why not a `.then()` of the caller's: that is a second promise and a
   * second microtask for every call (docs/performance.md, "Core v3, the pipelined limit").
   * @default undefined: the answer itself, failures rejected
   */
  map?: ResponseMapper<never, unknown> | undefined;
  /** Told the request's wire id once it is pending, before it is written (host/call-tool.ts: zot's `parent_id`). @default undefined */
  onId?: ((id: string) => void) | undefined;
}

