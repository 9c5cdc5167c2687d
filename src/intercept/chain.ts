// Serial interception: order, first-block-wins, chained rewrites, deadlines, failure policy,
// optional re-validation, and a trace of every step.
import { monotonicMs } from '../clock.js';
import { MAX_SYSTEM_PROMPT_BYTES } from '../protocol/limits.js';
import type {
  AssistantMessageResult,
  CallOptions,
  InterceptChainOptions,
  InterceptDiagnostic,
  InterceptEvent,
  ToolCallResult,
  TraceStep,
  TurnStartResult,
} from './chain-types.js';
import type { ExtensionStep, StepCall, StepRunner } from './extension-step.js';
import { checkedRewrite, invalidInput } from './step-checks.js';
import { markFailure, recordStep, type StepResult } from './step-record.js';
import { abortedError, runStep, type StepMethod, type StepOutcome } from './step.js';
import type { AssistantMessageInput, BeforeAgentStartInput, InterceptContext, Interceptor, ToolCallInput, TurnStartInput } from './types.js';

export type {
  AssistantMessageResult,
  CallOptions,
  InterceptChainOptions,
  InterceptDiagnostic,
  InterceptEvent,
  ToolCallResult,
  TraceStep,
  TurnStartResult,
} from './chain-types.js';

type Method = StepMethod;

/** A user's interceptor in the chain: run like any interceptor (no runner). */
type Entry = ExtensionStep & { readonly runner: undefined };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// Interceptors get copies, so one cannot change what another saw by mutating in place.
function copy<T>(value: T): T {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

function removeEntry(list: Entry[], match: (entry: Entry) => boolean): boolean {
  const index = list.findIndex(match);
  if (index === -1) return false;
  list.splice(index, 1);
  return true;
}

/** The step's runner, unless the method was replaced on its interceptor (then it runs as it is). */
function runnerOf(step: ExtensionStep, method: Method): StepRunner | undefined {
  const runner = step.runner;
  return runner !== undefined && runner.methods[method] === step.interceptor[method] ? runner : undefined;
}

let setExtensionSteps: (chain: InterceptChain, source: () => readonly ExtensionStep[]) => void;
let participates: (chain: InterceptChain, method: Method) => boolean;

/**
 * Internal, not exported by the package: `source` gives the chain's extension steps (see
 * extension-step.ts), placed after the `first` interceptors and recomputed at each call. The host
 * supplies one per extension that intercepts, in load order.
 */
export function useExtensionSteps(chain: InterceptChain, source: () => readonly ExtensionStep[]): void {
  setExtensionSteps(chain, source);
}

/** Internal: whether a call of `method` would consult any interceptor now (the tracer makes no chain span for none). */
export function hasParticipants(chain: InterceptChain, method: Method): boolean {
  return participates(chain, method);
}

/**
 * Consults interceptors serially for tool calls, turn starts, assistant messages and system-prompt
 * passes. Stands alone: a policy can be unit-tested with in-process interceptors, no subprocess.
 *
 * Order: interceptors added with `first: true` (in the order added), then the host's extension
 * interceptors (load order), then the others in the order added. Each call works on a snapshot.
 */
export class InterceptChain {
  readonly #timeoutMs: number;
  readonly #revalidate: boolean;
  readonly #onDiagnostic: ((diagnostic: InterceptDiagnostic) => void) | undefined;
  readonly #now: () => number;
  readonly #source: (() => readonly Interceptor[]) | undefined;
  #extensionSteps: (() => readonly ExtensionStep[]) | undefined;
  readonly #first: Entry[] = [];
  readonly #rest: Entry[] = [];
  readonly #diagnoseStep = (interceptor: Interceptor, event: InterceptEvent, kind: InterceptDiagnostic['kind'], message: string): void =>
    this.#diagnose(interceptor, event, kind, message);

  static {
    setExtensionSteps = (chain, source) => {
      chain.#extensionSteps = source;
    };
    participates = (chain, method) => chain.#participates(method);
  }

  constructor(options: InterceptChainOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 5000;
    this.#revalidate = options.revalidate ?? false;
    this.#onDiagnostic = options.onDiagnostic;
    this.#now = options.now ?? monotonicMs;
    this.#source = options.source;
  }

  /**
   * Adds an interceptor at the end (or after the other `first` ones with `first: true`). Adding one
   * that is already in the chain moves it. Returns a disposer that removes this registration.
   */
  add(interceptor: Interceptor, options: { first?: boolean | undefined } = {}): () => void {
    this.remove(interceptor);
    const entry: Entry = { interceptor, runner: undefined };
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

  /** The current order, including the host's extension interceptors. */
  list(): readonly Interceptor[] {
    return [
      ...this.#first.map((entry) => entry.interceptor),
      ...(this.#source?.() ?? []),
      ...(this.#extensionSteps?.() ?? []).map((step) => step.interceptor),
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
    // Steps that allowed, with the args as they stood after their step.
    const allowed: { step: ExtensionStep; argsAfter: Record<string, unknown> }[] = [];
    const revalidate = this.#revalidate;

    // Extension steps share one input object per args version, and the cache in `call` with it
    // (extension-step.ts). Any other interceptor may have changed the args in place (copy() hands
    // out the original when it cannot clone), so the next extension step starts anew.
    const call: StepCall = { cache: undefined };
    let shared: ToolCallInput | undefined;
    const inputFor = (runner: StepRunner | undefined): ToolCallInput => {
      if (runner === undefined) {
        shared = undefined;
        call.cache = undefined;
        return { toolId: input.toolId, toolName: input.toolName, args: copy(args) };
      }
      if (shared?.args !== args) {
        shared = { toolId: input.toolId, toolName: input.toolName, args };
        call.cache = undefined;
      }
      return shared;
    };

    // The hot path: each step awaited here directly (no async helper in between).
    // One clock reading per plain step: its end is the next step's start. After any other step the
    // clock is read again, so that the chain's own work is nobody's time.
    let started: number | undefined = this.#now();
    for (const step of participants) {
      const interceptor = step.interceptor;
      const runner = runnerOf(step, 'toolCall');
      started ??= this.#now();
      let outcome: StepOutcome;
      try {
        outcome = await this.#run(interceptor, runner, 'toolCall', inputFor(runner), signal, call);
      } catch (error) {
        throw invalidInput('toolCall', error);
      }
      const ended = this.#now();
      if (outcome.ok && outcome.decision === undefined) {
        // Allowed with nothing to apply or report: recordStep's result, without its objects.
        trace.push({ interceptor: interceptor.name, decision: 'allow', ms: ended - started });
        if (revalidate) allowed.push({ step, argsAfter: args });
        started = ended;
        continue;
      }
      const result = recordStep(interceptor, event, checkedRewrite(interceptor.name, outcome), ended - started, trace, false, this.#diagnoseStep);
      started = undefined;
      if (result.blocked !== undefined) return { block: true, ...result.blocked, args, modified, trace };
      if (result.decision === undefined) continue;
      const next = result.decision.modifiedArgs;
      if (next !== undefined) {
        if (isPlainObject(next)) {
          // An extension step's answer is freshly parsed JSON, nobody else's.
          args = runner !== undefined ? next : copy(next);
          modified = true;
          result.traced.decision = 'rewrite';
        } else {
          this.#diagnose(interceptor, event, 'ignored_field', 'modifiedArgs is not a JSON object; ignored');
        }
      }
      if (revalidate) allowed.push({ step, argsAfter: args });
    }

    if (revalidate) {
      for (const { step, argsAfter } of allowed) {
        if (argsAfter === args) continue;
        const runner = runnerOf(step, 'toolCall');
        const result = await this.#step(step.interceptor, runner, 'toolCall', event, inputFor(runner), signal, trace, true, call);
        if (result.blocked !== undefined) return { block: true, ...result.blocked, args, modified, trace };
        if (result.decision?.modifiedArgs !== undefined) {
          this.#diagnose(step.interceptor, event, 'ignored_field', 'modifiedArgs during revalidation; ignored');
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
    const call: StepCall = { cache: undefined };
    for (const step of participants) {
      const result = await this.#step(step.interceptor, runnerOf(step, 'turnStart'), 'turnStart', 'turn_start', { ...input }, signal, trace, false, call);
      if (result.blocked !== undefined) return { block: true, ...result.blocked, trace };
    }
    return { block: false, trace };
  }

  /** An assistant message about to be shown: block suppresses, `replaceText` replacements chain. */
  async assistantMessage(input: AssistantMessageInput, options: CallOptions = {}): Promise<AssistantMessageResult> {
    const { signal } = options;
    const event: InterceptEvent = 'assistant_message';
    const participants = this.#participants('assistantMessage', signal);
    const trace: TraceStep[] = [];
    const call: StepCall = { cache: undefined };
    let text = input.text;
    let modified = false;
    for (const step of participants) {
      const result = await this.#step(step.interceptor, runnerOf(step, 'assistantMessage'), 'assistantMessage', event, { text }, signal, trace, false, call);
      if (result.blocked !== undefined) return { block: true, ...result.blocked, text, modified, trace };
      const next = result.decision?.replaceText;
      if (next === undefined) continue;
      if (typeof next === 'string') {
        text = next;
        modified = true;
        result.traced.decision = 'rewrite';
      } else {
        this.#diagnose(step.interceptor, event, 'ignored_field', 'replaceText is not a string; ignored');
      }
    }
    return { block: false, text, modified, trace };
  }

  /**
   * One system-prompt pass: each interceptor may replace the prompt exactly. Nothing blocks; a
   * failure, a non-string or an over-1-MiB replacement keeps the current prompt (`malformed`).
   */
  async beforeAgentStart(input: BeforeAgentStartInput, options: CallOptions = {}): Promise<{ systemPrompt: string; trace: TraceStep[] }> {
    const { signal } = options;
    const event: InterceptEvent = 'before_agent_start';
    const participants = this.#participants('beforeAgentStart', signal);
    const trace: TraceStep[] = [];
    const call: StepCall = { cache: undefined };
    let systemPrompt = input.systemPrompt;
    for (const step of participants) {
      const runner = runnerOf(step, 'beforeAgentStart');
      const result = await this.#step(step.interceptor, runner, 'beforeAgentStart', event, { ...input, systemPrompt }, signal, trace, false, call);
      const next = result.decision?.systemPrompt;
      if (next === undefined) continue;
      const problem =
        typeof next !== 'string'
          ? `systemPrompt is ${next === null ? 'null' : `a ${typeof next}`}, not a string; prompt kept`
          : Buffer.byteLength(JSON.stringify(next), 'utf8') > MAX_SYSTEM_PROMPT_BYTES
            ? `systemPrompt is over ${MAX_SYSTEM_PROMPT_BYTES} bytes encoded; prompt kept`
            : undefined;
      if (problem === undefined) {
        systemPrompt = next as string;
        result.traced.decision = 'rewrite';
      } else {
        markFailure(result.traced, 'malformed', 'allow', problem);
        this.#diagnose(step.interceptor, event, 'malformed', problem);
      }
    }
    return { systemPrompt, trace };
  }

  /** Whether a call of `method` would consult any interceptor (tracing only): stops at the first, builds no list. */
  #participates(method: Method): boolean {
    const has = (interceptor: Interceptor) => typeof interceptor[method] === 'function';
    const hasStep = (step: { interceptor: Interceptor }) => has(step.interceptor);
    return this.#first.some(hasStep) || this.#source?.()?.some(has) === true || this.#extensionSteps?.()?.some(hasStep) === true || this.#rest.some(hasStep);
  }

  #participants(method: Method, signal: AbortSignal | undefined): ExtensionStep[] {
    if (signal?.aborted) throw abortedError(signal);
    // list() filtered, without its intermediate arrays (this runs once per chain call).
    const out: ExtensionStep[] = [];
    for (const entry of this.#first) if (typeof entry.interceptor[method] === 'function') out.push(entry);
    const sourced = this.#source?.();
    if (sourced !== undefined) for (const interceptor of sourced) if (typeof interceptor[method] === 'function') out.push({ interceptor, runner: undefined });
    const steps = this.#extensionSteps?.();
    if (steps !== undefined) for (const step of steps) if (typeof step.interceptor[method] === 'function') out.push(step);
    for (const entry of this.#rest) if (typeof entry.interceptor[method] === 'function') out.push(entry);
    return out;
  }

  /** Runs one step and records it (see recordStep). */
  async #step(
    interceptor: Interceptor,
    runner: StepRunner | undefined,
    method: Method,
    event: InterceptEvent,
    input: object,
    signal: AbortSignal | undefined,
    trace: TraceStep[],
    revalidation: boolean,
    call: StepCall,
  ): Promise<StepResult> {
    const started = this.#now();
    let outcome: StepOutcome;
    try {
      outcome = await this.#run(interceptor, runner, method, input, signal, call);
    } catch (error) {
      throw invalidInput(method, error);
    }
    return recordStep(interceptor, event, outcome, this.#now() - started, trace, revalidation, this.#diagnoseStep);
  }

  /** Runs one step under its deadline and the caller's signal: by its runner, or as runStep() runs any interceptor. */
  #run(interceptor: Interceptor, runner: StepRunner | undefined, method: Method, input: object, signal: AbortSignal | undefined, call: StepCall): Promise<StepOutcome> {
    const timeoutMs = interceptor.timeoutMs ?? this.#timeoutMs;
    if (runner !== undefined) return runner.run(method, input, timeoutMs, signal, call);
    return runStep(
      (ctx: InterceptContext) => (interceptor[method] as (input: object, ctx: InterceptContext) => unknown).call(interceptor, input, ctx),
      { name: interceptor.name, timeoutMs, signal },
    );
  }

  #diagnose(interceptor: Interceptor, event: InterceptEvent, kind: InterceptDiagnostic['kind'], message: string): void {
    try {
      this.#onDiagnostic?.({ interceptor: interceptor.name, event, kind, message });
    } catch {
      // A faulty listener must not change the decision.
    }
  }
}
