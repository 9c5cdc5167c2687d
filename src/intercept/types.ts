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
