// The public types of InterceptChain: its options, the results of its calls and their trace.
import type { FailureKind, Interceptor } from './types.js';

/** The interceptable events, named as on the wire. */
export type InterceptEvent = 'tool_call' | 'turn_start' | 'assistant_message' | 'before_agent_start';

/** Something an interceptor did that the chain tolerated: a failure, or a field it ignored. */
export interface InterceptDiagnostic {
  interceptor: string;
  event: InterceptEvent;
  /** A failure kind, or `'ignored_field'` when one field of an answer was invalid or does not apply. */
  kind: FailureKind | 'ignored_field';
  message: string;
}

/** Options of {@link InterceptChain}. */
export interface InterceptChainOptions {
  /** Deadline of each step in ms (an interceptor's own `timeoutMs` wins). @default 5000 */
  timeoutMs?: number | undefined;
  /**
   * Re-ask tool-call interceptors that allowed a call once more with the final args when a later
   * interceptor rewrote them, so a later rewrite cannot slip past an earlier guard. A re-ask that
   * fails (timeout, crash, malformed answer, thrown error) blocks the call, whatever `onFailure` says.
   * @default false
   */
  revalidate?: boolean | undefined;
  /** Called for every failure and ignored field. Exceptions it throws are swallowed. @default undefined */
  onDiagnostic?: ((diagnostic: InterceptDiagnostic) => void) | undefined;
  /** Clock for the trace's `ms`, in milliseconds. @default a monotonic clock (`process.hrtime`, the one `performance.now` reads) */
  now?: (() => number) | undefined;
  /**
   * @internal Interceptors placed between the `first` ones and the rest, recomputed at each call.
   * The host supplies one adapter per subscribed extension, in load order.
   */
  source?: (() => readonly Interceptor[]) | undefined;
}

/** One consulted interceptor in a chain call. */
export interface TraceStep {
  interceptor: string;
  /** `'rewrite'` = it changed the args / text / prompt; `'failure'` = it did not decide (see `failure`). */
  decision: 'allow' | 'block' | 'rewrite' | 'failure';
  /** Duration of the step, measured with the chain's clock. */
  ms: number;
  /** Set when `decision` is `'failure'`. */
  failure?: FailureKind | undefined;
  /** Set when `decision` is `'failure'`: the policy that was applied. */
  failurePolicy?: 'allow' | 'block' | undefined;
  /** `true` for the extra steps of `revalidate`. */
  revalidation?: boolean | undefined;
  /** The failure message, or the reason of a block. */
  message?: string | undefined;
}

/** Outcome of {@link InterceptChain.toolCall}. */
export interface ToolCallResult {
  block: boolean;
  /** Why the call was blocked; the model sees it as the tool error. */
  reason?: string | undefined;
  /** Name of the interceptor that blocked. */
  blockedBy?: string | undefined;
  /** The args the tool should run with (the input object itself when `modified` is false). */
  args: Record<string, unknown>;
  /** `true` when at least one rewrite was applied. */
  modified: boolean;
  trace: TraceStep[];
}

/** Outcome of {@link InterceptChain.turnStart}. */
export interface TurnStartResult {
  block: boolean;
  /** Why the turn was blocked; shown to the user. */
  reason?: string | undefined;
  blockedBy?: string | undefined;
  trace: TraceStep[];
}

/** Outcome of {@link InterceptChain.assistantMessage}. */
export interface AssistantMessageResult {
  /** `true`: show nothing to the user (the transcript keeps the original). */
  block: boolean;
  reason?: string | undefined;
  blockedBy?: string | undefined;
  /** The user-visible text after every replacement. */
  text: string;
  /** `true` when at least one replacement was applied. */
  modified: boolean;
  trace: TraceStep[];
}

/** Options of each chain call. */
export interface CallOptions {
  /** Aborting rejects the call with `ABORTED` and aborts the running step's `ctx.signal`. @default undefined */
  signal?: AbortSignal | undefined;
}
