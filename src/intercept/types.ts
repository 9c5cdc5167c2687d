// The public types of interception: interceptors, their inputs and decisions, the chain's options,
// results and trace; and the two internal seams of the chain (extension steps, an observer).
/**
 * What went wrong in one interceptor step. Every kind counts as "allow, unchanged" unless the
 * interceptor's `onFailure` is `'block'`.
 * - `timeout`: no answer before the step's deadline (or the request could not be written in time).
 * - `crash`: the extension behind the interceptor exited, was not started, or sent an oversized frame.
 * - `malformed`: the answer was not a decision object (or, for `before_agent_start`, its
 *   `systemPrompt` was not a string or was over 1 MiB).
 * - `error`: the interceptor threw anything else.
 */
export type FailureKind = 'timeout' | 'crash' | 'malformed' | 'error';

/** Passed to every interceptor method. */
export interface InterceptContext {
  /** Aborted at the step's deadline or when the caller of the chain aborts. */
  signal: AbortSignal;
}

/** A tool call about to run. */
export interface ToolCallInput {
  toolId: string;
  toolName: string;
  /** The parsed arguments. Interceptors get a copy: mutating it changes nothing, return `modifiedArgs`. */
  args: Record<string, unknown>;
  /**
   * The extension that asked for this call (zot's `call_tool`), sent to extension interceptors as
   * `origin_extension`; absent for the agent's own calls. @default undefined
   */
  originExtension?: string | undefined;
}

/** An interceptor's answer to a tool call. Returning nothing (or `{}`) allows it unchanged. */
export interface ToolCallDecision {
  /** `true` refuses the call; the first block in the chain wins. */
  block?: boolean | undefined;
  /** Shown to the model as the tool error when blocking. @default `blocked by <name>` */
  reason?: string | undefined;
  /** Replacement args (a plain JSON object) for the next interceptors and the tool. Ignored when blocking. */
  modifiedArgs?: unknown;
}

/** A turn about to call the model. */
export interface TurnStartInput {
  step: number;
}

/** An interceptor's answer to a turn start. Rewrites are not supported. */
export interface TurnStartDecision {
  /** `true` stops the turn before the model is called. */
  block?: boolean | undefined;
  /** Shown to the user as a status line when blocking. @default `blocked by <name>` */
  reason?: string | undefined;
}

/** An assistant message about to be shown. */
export interface AssistantMessageInput {
  text: string;
}

/** An interceptor's answer to an assistant message. */
export interface AssistantMessageDecision {
  /** `true` suppresses the message for the user (the transcript keeps it). */
  block?: boolean | undefined;
  /** Shown to the user when blocking. @default `blocked by <name>` */
  reason?: string | undefined;
  /** Replacement user-visible text; a string (`""` included) replaces, anything else is ignored. */
  replaceText?: unknown;
}

/** One `before_agent_start` step: the current system prompt and where it will be used. */
export interface BeforeAgentStartInput {
  /** The prompt as left by the previous interceptor (the base prompt for the first). */
  systemPrompt: string;
  sessionId: string;
  /** Identifies one preparation pass; shared by every interceptor in it. */
  agentRunId: string;
  cwd: string;
  provider: string;
  model: string;
}

/** An interceptor's answer to `before_agent_start`. There is no block. */
export interface BeforeAgentStartDecision {
  /** Exact replacement (`""` removes the prompt); absent keeps it; a non-string or > 1 MiB is a `malformed` failure. */
  systemPrompt?: unknown;
}

type MaybePromise<T> = T | Promise<T>;

/**
 * One participant of an `InterceptChain`. It takes part only in the events it has a method for.
 * Methods may be sync or async; a thrown error or a missed deadline is a failure (see `onFailure`).
 */
export interface Interceptor {
  /** Shown in traces, diagnostics and `blockedBy`. */
  name: string;
  /**
   * What a failed step (timeout, crash, malformed answer, thrown error) means. `'block'` makes a
   * guard fail closed; it never blocks `before_agent_start`.
   * @default 'allow'
   */
  onFailure?: 'allow' | 'block' | undefined;
  /** Deadline for each of this interceptor's steps, in ms. @default the chain's `timeoutMs` */
  timeoutMs?: number | undefined;
  toolCall?(input: ToolCallInput, ctx: InterceptContext): MaybePromise<ToolCallDecision | void>;
  turnStart?(input: TurnStartInput, ctx: InterceptContext): MaybePromise<TurnStartDecision | void>;
  assistantMessage?(
    input: AssistantMessageInput,
    ctx: InterceptContext,
  ): MaybePromise<AssistantMessageDecision | void>;
  beforeAgentStart?(
    input: BeforeAgentStartInput,
    ctx: InterceptContext,
  ): MaybePromise<BeforeAgentStartDecision | void>;
}

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
   * @internal Interceptors placed between the `first` ones and the rest, recomputed at each call;
   * each runs like one added with `add()`.
   */
  source?: (() => readonly Interceptor[]) | undefined;
  /**
   * @internal The host's extension steps, placed after the `source` ones and recomputed at each
   * call: one per extension that intercepts, in load order, each run by its own `run()`.
   */
  extensionSteps?: (() => readonly ChainStep[]) | undefined;
  /** @internal Told of every chain call that consults an interceptor (the host's tracing). */
  observer?: ChainObserver | undefined;
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

/** The interceptor methods, one per interceptable event. */
export type StepMethod = 'toolCall' | 'turnStart' | 'assistantMessage' | 'beforeAgentStart';

/** What one step did: a decision (`undefined`: allowed, nothing to apply), or a failure. */
export type StepOutcome =
  | { ok: true; decision: Record<string, unknown> | undefined }
  | { ok: false; kind: FailureKind; message: string };

/**
 * @internal One participant of a chain call: its interceptor (whose `name`, `onFailure` and
 * `timeoutMs` apply, and whose methods say which events it takes part in) and how it runs. An
 * interceptor added with `add()` runs its own method under a deadline, on copies (step.ts
 * `interceptorStep`); a host extension step sends one request (host/interceptors.ts).
 */
export interface ChainStep {
  readonly interceptor: Interceptor;
  /**
   * The step's outcome. Rejects only with ABORTED (the caller's signal) or INVALID_ARGUMENT (an
   * input that cannot be sent); `observation` is the chain call's, when an observer watches it.
   */
  run(method: StepMethod, input: object, timeoutMs: number, signal: AbortSignal | undefined, observation: ChainObservation | undefined): Promise<StepOutcome>;
}

/** @internal What a chain call ends with, as an observer sees it. */
export interface ChainEnd {
  trace: TraceStep[];
  block?: boolean | undefined;
  modified?: boolean | undefined;
}

/** @internal Watches the chain calls that consult at least one interceptor (InterceptChainOptions.observer). */
export interface ChainObserver {
  /** A chain call of `event` begins; what it returns is handed to each step and told the end. */
  chainStarted(event: InterceptEvent): ChainObservation | undefined;
}

/** @internal One observed chain call. */
export interface ChainObservation {
  /** The call resolved with `result`, or rejects with `error` (then `result` is undefined). */
  chainEnded(result: ChainEnd | undefined, error: unknown): void;
}
