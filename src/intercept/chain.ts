// Serial interception: order, first-block-wins, chained rewrites, deadlines, failure policy,
// optional re-validation, and a trace of every step.
import { MAX_SYSTEM_PROMPT_BYTES } from '../protocol/limits.js';
import { checkedRewrite, invalidInput } from './step-checks.js';
import { ALLOWED, DIRECT_STEP, TRUSTED_INTERCEPTOR, abortedError, runStep, type DirectStep, type StepMethod, type StepOutcome } from './step.js';
import type {
  AssistantMessageInput,
  BeforeAgentStartInput,
  FailureKind,
  InterceptContext,
  Interceptor,
  ToolCallInput,
  TurnStartInput,
} from './types.js';

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
  /** Clock for the trace's `ms`. @default performance.now */
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

type Method = StepMethod;

interface StepResult {
  traced: TraceStep;
  decision?: Record<string, unknown> | undefined;
  blocked?: { reason: string; blockedBy: string } | undefined;
}

interface Entry {
  readonly interceptor: Interceptor;
}

/** Fields each event accepts; other decision fields are reported as ignored. */
const FOREIGN_FIELDS: Record<InterceptEvent, readonly string[]> = {
  tool_call: ['replaceText', 'systemPrompt'],
  turn_start: ['modifiedArgs', 'replaceText', 'systemPrompt'],
  assistant_message: ['modifiedArgs', 'systemPrompt'],
  before_agent_start: ['modifiedArgs', 'replaceText'],
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The host's extension adapters: they serialize what they get and answer fresh objects (no copies needed). */
function isTrusted(interceptor: Interceptor): boolean {
  return (interceptor as { [TRUSTED_INTERCEPTOR]?: boolean })[TRUSTED_INTERCEPTOR] === true;
}

// Interceptors get copies, so one cannot change what another saw by mutating in place.
function copy<T>(value: T): T {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

function markFailure(step: TraceStep, kind: FailureKind, policy: 'allow' | 'block', message: string): void {
  step.decision = 'failure';
  step.failure = kind;
  step.failurePolicy = policy;
  step.message = message;
}

function removeEntry(list: Entry[], match: (entry: Entry) => boolean): boolean {
  const index = list.findIndex(match);
  if (index === -1) return false;
  list.splice(index, 1);
  return true;
}

/**
 * Consults interceptors serially for tool calls, turn starts, assistant messages and system-prompt
 * passes. Stands alone: a policy can be unit-tested with in-process interceptors, no subprocess.
 *
 * Order: interceptors added with `first: true` (in the order added), then the host's extension
 * adapters (load order), then the others in the order added. Each call works on a snapshot.
 */
export class InterceptChain {
  readonly #timeoutMs: number;
  readonly #revalidate: boolean;
  readonly #onDiagnostic: ((diagnostic: InterceptDiagnostic) => void) | undefined;
  readonly #now: () => number;
  readonly #source: (() => readonly Interceptor[]) | undefined;
  readonly #first: Entry[] = [];
  readonly #rest: Entry[] = [];

  constructor(options: InterceptChainOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 5000;
    this.#revalidate = options.revalidate ?? false;
    this.#onDiagnostic = options.onDiagnostic;
    this.#now = options.now ?? (() => performance.now());
    this.#source = options.source;
  }

  /**
   * Adds an interceptor at the end (or after the other `first` ones with `first: true`). Adding one
   * that is already in the chain moves it. Returns a disposer that removes this registration.
   */
  add(interceptor: Interceptor, options: { first?: boolean | undefined } = {}): () => void {
    this.remove(interceptor);
    const entry: Entry = { interceptor };
    (options.first === true ? this.#first : this.#rest).push(entry);
    return () => {
      const same = (candidate: Entry): boolean => candidate === entry;
      if (!removeEntry(this.#first, same)) removeEntry(this.#rest, same);
    };
  }

  /** Removes an interceptor added with `add`; `false` if it was not there. */
  remove(interceptor: Interceptor): boolean {
    const same = (candidate: Entry): boolean => candidate.interceptor === interceptor;
    return removeEntry(this.#first, same) || removeEntry(this.#rest, same);
  }

  /** The current order, including the host's extension adapters. */
  list(): readonly Interceptor[] {
    return [
      ...this.#first.map((entry) => entry.interceptor),
      ...(this.#source?.() ?? []),
      ...this.#rest.map((entry) => entry.interceptor),
    ];
  }

  /**
   * A tool call about to run. The first block wins and stops the chain; `modifiedArgs` rewrites chain.
   * Rejects only with `ABORTED` (caller's signal), or `INVALID_ARGUMENT` when `input.args` cannot be
   * sent to extensions as JSON; interceptor failures are in the trace (a rewrite that could not be
   * sent on, e.g. nested deeper than 1000 levels, is a `malformed` failure).
   * `input.args` must not be changed while the call is pending: extension interceptors are sent the
   * args as they were when the first of them was asked (until a rewrite replaces them).
   */
  async toolCall(input: ToolCallInput, options: CallOptions = {}): Promise<ToolCallResult> {
    const { signal } = options;
    const event: InterceptEvent = 'tool_call';
    const participants = this.#participants('toolCall', signal);
    const trace: TraceStep[] = [];
    let args = input.args;
    let modified = false;
    // Interceptors that allowed, with the args as they stood after their step.
    const allowed: { interceptor: Interceptor; argsAfter: Record<string, unknown> }[] = [];
    const revalidate = this.#revalidate;

    // Trusted adapters share one input object per args version: they neither change nor keep it,
    // and the host's adapters encode its frame once for all of them. Any other interceptor may
    // have changed the args in place (copy() hands out the original when it cannot clone), so the
    // next trusted step encodes them anew.
    let shared: ToolCallInput | undefined;
    const seen = (interceptor: Interceptor): ToolCallInput => {
      if (!isTrusted(interceptor)) {
        shared = undefined;
        return { toolId: input.toolId, toolName: input.toolName, args: copy(args) };
      }
      if (shared?.args !== args) shared = { toolId: input.toolId, toolName: input.toolName, args };
      return shared;
    };

    // The hot path: each step awaited here directly (no async helper in between).
    // One clock reading per plain step: its end is the next step's start. After any other step the
    // clock is read again, so that the chain's own work is nobody's time.
    let started: number | undefined = this.#now();
    for (const interceptor of participants) {
      started ??= this.#now();
      let outcome: StepOutcome;
      try {
        outcome = await this.#run(interceptor, 'toolCall', seen(interceptor), signal);
      } catch (error) {
        throw invalidInput('toolCall', error);
      }
      const ended = this.#now();
      if (outcome === ALLOWED) {
        // Allowed with nothing to apply or report: #record's result, without its objects.
        trace.push({ interceptor: interceptor.name, decision: 'allow', ms: ended - started });
        if (revalidate) allowed.push({ interceptor, argsAfter: args });
        started = ended;
        continue;
      }
      const step = this.#record(interceptor, event, checkedRewrite(interceptor.name, outcome), ended - started, trace, false);
      started = undefined;
      if (step.blocked !== undefined) return { block: true, ...step.blocked, args, modified, trace };
      if (step.decision === undefined) continue;
      const next = step.decision.modifiedArgs;
      if (next !== undefined) {
        if (isPlainObject(next)) {
          args = isTrusted(interceptor) ? next : copy(next);
          modified = true;
          step.traced.decision = 'rewrite';
        } else {
          this.#diagnose(interceptor, event, 'ignored_field', 'modifiedArgs is not a JSON object; ignored');
        }
      }
      if (revalidate) allowed.push({ interceptor, argsAfter: args });
    }

    if (revalidate) {
      for (const { interceptor, argsAfter } of allowed) {
        if (argsAfter === args) continue;
        const step = await this.#step(interceptor, 'toolCall', event, seen(interceptor), signal, trace, true);
        if (step.blocked !== undefined) return { block: true, ...step.blocked, args, modified, trace };
        if (step.decision?.modifiedArgs !== undefined) {
          this.#diagnose(interceptor, event, 'ignored_field', 'modifiedArgs during revalidation; ignored');
        }
      }
    }
    return { block: false, args, modified, trace };
  }

  /** A turn about to call the model: block only, rewrites are ignored. */
  async turnStart(input: TurnStartInput, options: CallOptions = {}): Promise<TurnStartResult> {
    const { signal } = options;
    const participants = this.#participants('turnStart', signal);
    const trace: TraceStep[] = [];
    for (const interceptor of participants) {
      const step = await this.#step(interceptor, 'turnStart', 'turn_start', { ...input }, signal, trace, false);
      if (step.blocked !== undefined) return { block: true, ...step.blocked, trace };
    }
    return { block: false, trace };
  }

  /** An assistant message about to be shown: block suppresses, `replaceText` replacements chain. */
  async assistantMessage(
    input: AssistantMessageInput,
    options: CallOptions = {},
  ): Promise<AssistantMessageResult> {
    const { signal } = options;
    const event: InterceptEvent = 'assistant_message';
    const participants = this.#participants('assistantMessage', signal);
    const trace: TraceStep[] = [];
    let text = input.text;
    let modified = false;
    for (const interceptor of participants) {
      const step = await this.#step(interceptor, 'assistantMessage', event, { text }, signal, trace, false);
      if (step.blocked !== undefined) return { block: true, ...step.blocked, text, modified, trace };
      const next = step.decision?.replaceText;
      if (next === undefined) continue;
      if (typeof next === 'string') {
        text = next;
        modified = true;
        step.traced.decision = 'rewrite';
      } else {
        this.#diagnose(interceptor, event, 'ignored_field', 'replaceText is not a string; ignored');
      }
    }
    return { block: false, text, modified, trace };
  }

  /**
   * One system-prompt pass: each interceptor may replace the prompt exactly. Nothing blocks; a
   * failure, a non-string or an over-1-MiB replacement keeps the current prompt (`malformed`).
   */
  async beforeAgentStart(
    input: BeforeAgentStartInput,
    options: CallOptions = {},
  ): Promise<{ systemPrompt: string; trace: TraceStep[] }> {
    const { signal } = options;
    const event: InterceptEvent = 'before_agent_start';
    const participants = this.#participants('beforeAgentStart', signal);
    const trace: TraceStep[] = [];
    let systemPrompt = input.systemPrompt;
    for (const interceptor of participants) {
      const step = await this.#step(
        interceptor,
        'beforeAgentStart',
        event,
        { ...input, systemPrompt },
        signal,
        trace,
        false,
      );
      const next = step.decision?.systemPrompt;
      if (next === undefined) continue;
      const problem =
        typeof next !== 'string'
          ? `systemPrompt is ${next === null ? 'null' : `a ${typeof next}`}, not a string; prompt kept`
          : Buffer.byteLength(JSON.stringify(next), 'utf8') > MAX_SYSTEM_PROMPT_BYTES
            ? `systemPrompt is over ${MAX_SYSTEM_PROMPT_BYTES} bytes encoded; prompt kept`
            : undefined;
      if (problem === undefined) {
        systemPrompt = next as string;
        step.traced.decision = 'rewrite';
      } else {
        markFailure(step.traced, 'malformed', 'allow', problem);
        this.#diagnose(interceptor, event, 'malformed', problem);
      }
    }
    return { systemPrompt, trace };
  }

  #participants(method: Method, signal: AbortSignal | undefined): Interceptor[] {
    if (signal?.aborted) throw abortedError(signal);
    // list() filtered, without its intermediate arrays (this runs once per chain call).
    const out: Interceptor[] = [];
    for (const entry of this.#first) if (typeof entry.interceptor[method] === 'function') out.push(entry.interceptor);
    const sourced = this.#source?.();
    if (sourced !== undefined) for (const interceptor of sourced) if (typeof interceptor[method] === 'function') out.push(interceptor);
    for (const entry of this.#rest) if (typeof entry.interceptor[method] === 'function') out.push(entry.interceptor);
    return out;
  }

  /**
   * Runs one step and records it (see #record).
   */
  async #step(
    interceptor: Interceptor,
    method: Method,
    event: InterceptEvent,
    input: object,
    signal: AbortSignal | undefined,
    trace: TraceStep[],
    revalidation: boolean,
  ): Promise<StepResult> {
    const started = this.#now();
    let outcome: StepOutcome;
    try {
      outcome = await this.#run(interceptor, method, input, signal);
    } catch (error) {
      throw invalidInput(method, error);
    }
    return this.#record(interceptor, event, outcome, this.#now() - started, trace, revalidation);
  }

  /** Runs one step under its deadline and the caller's signal (see runStep). */
  #run(interceptor: Interceptor, method: Method, input: object, signal: AbortSignal | undefined): Promise<StepOutcome> {
    const timeoutMs = interceptor.timeoutMs ?? this.#timeoutMs;
    const direct = (interceptor as { [DIRECT_STEP]?: DirectStep })[DIRECT_STEP];
    if (direct !== undefined && direct.methods[method] === interceptor[method]) return direct.run(method, input, timeoutMs, signal);
    return runStep(
      (ctx: InterceptContext) =>
        (interceptor[method] as (input: object, ctx: InterceptContext) => unknown).call(interceptor, input, ctx),
      { name: interceptor.name, timeoutMs, signal },
    );
  }

  /**
   * Records one step in the trace. `blocked` is set when the step blocks (by decision or by failure
   * policy); `decision` is the answer of a non-failed step, for the caller to apply its rewrite.
   */
  #record(
    interceptor: Interceptor,
    event: InterceptEvent,
    outcome: StepOutcome,
    ms: number,
    trace: TraceStep[],
    revalidation: boolean,
  ): StepResult {
    const name = interceptor.name;
    const traced: TraceStep = { interceptor: name, decision: 'allow', ms };
    if (revalidation) traced.revalidation = true;
    trace.push(traced);

    const canBlock = event !== 'before_agent_start';
    if (!outcome.ok) {
      // A re-ask that fails blocks whatever the policy: otherwise a rewriter that makes the guard
      // fail (too deep, too big, too slow) would get its rewrite past it.
      const policy = !canBlock ? 'allow' : revalidation ? 'block' : (interceptor.onFailure ?? 'allow');
      markFailure(traced, outcome.kind, policy, outcome.message);
      this.#diagnose(interceptor, event, outcome.kind, outcome.message);
      if (policy === 'allow') return { traced };
      const reason = revalidation
        ? `${name} failed (${outcome.kind}) when asked again with the rewritten args: blocked`
        : `${name} failed (${outcome.kind}): blocked by policy`;
      return { traced, blocked: { reason, blockedBy: name } };
    }

    const decision = outcome.decision ?? {};
    for (const field of FOREIGN_FIELDS[event]) {
      if (decision[field] !== undefined) {
        this.#diagnose(interceptor, event, 'ignored_field', `${field} does not apply to ${event}; ignored`);
      }
    }
    const { block, reason } = decision;
    if (block !== undefined && typeof block !== 'boolean') {
      this.#diagnose(interceptor, event, 'ignored_field', 'block is not a boolean; ignored');
    }
    if (!canBlock) {
      if (block === true) {
        this.#diagnose(interceptor, event, 'ignored_field', 'block does not apply to before_agent_start; ignored');
      }
      return { traced, decision };
    }
    if (block !== true) return { traced, decision };
    if (reason !== undefined && typeof reason !== 'string') {
      this.#diagnose(interceptor, event, 'ignored_field', 'reason is not a string; ignored');
    }
    const text = typeof reason === 'string' && reason !== '' ? reason : `blocked by ${name}`;
    traced.decision = 'block';
    traced.message = text;
    return { traced, decision, blocked: { reason: text, blockedBy: name } };
  }

  #diagnose(interceptor: Interceptor, event: InterceptEvent, kind: InterceptDiagnostic['kind'], message: string): void {
    try {
      this.#onDiagnostic?.({ interceptor: interceptor.name, event, kind, message });
    } catch {
      // A faulty listener must not change the decision.
    }
  }
}
