import type { StepMethod, StepOutcome } from './step.js';
import type { Interceptor } from './types.js';

/**
 * Extension steps: the intercept chain's one fast path (see docs/performance.md, "Intercept chains").
 *
 * The chain runs two kinds of steps. An `Interceptor` added with `add()` (the public way) runs
 * through runStep(): a promise, a timer and an abortable context per step, and copies of its input
 * and its answer, so that no interceptor can change what another one saw. An extension step (the
 * host's, one per extension that intercepts, handed to the chain with `useExtensionSteps()`, which
 * the package does not export) brings its own runner: one request whose deadline is the step's,
 * answered straight into the step's outcome. It serializes its input and answers freshly parsed
 * JSON, so it gets no copies; and the extension steps of one chain call share one `StepCall`, in
 * which they keep what they derive from the input (the tool_call frame, encoded once: see
 * protocol/encode.ts `toolCallInterceptHead`) until the input changes.
 */
export interface ExtensionStep {
  /**
   * The step as an interceptor: what `list()` shows, whose `name`, `onFailure` and `timeoutMs`
   * apply, and whose methods say which events it takes part in.
   */
  readonly interceptor: Interceptor;
  /** Runs the step; `undefined`: `interceptor` runs like any interceptor (e.g. a stand-in). */
  readonly runner: StepRunner | undefined;
}

export interface StepRunner {
  /**
   * The interceptor's methods as the runner made them: one replaced on the interceptor since runs
   * as it is, like any interceptor's.
   */
  readonly methods: Readonly<Partial<Record<StepMethod, unknown>>>;
  /**
   * The step's outcome exactly as runStep() would classify it. Rejects only with ABORTED (the
   * caller's signal) or INVALID_ARGUMENT (an input that cannot be encoded).
   */
  run(method: StepMethod, input: object, timeoutMs: number, signal: AbortSignal | undefined, call: StepCall): Promise<StepOutcome>;
}

/** One chain call, as its extension steps share it. */
export interface StepCall {
  /**
   * What a runner derived from the current input, for the next one to reuse. The chain empties it
   * whenever the input changes (a rewrite) or another interceptor had it (it may have changed it
   * in place).
   */
  cache: unknown;
}
