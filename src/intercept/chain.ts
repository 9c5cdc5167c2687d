// Serial interception: order, first-block-wins, chained rewrites, deadlines, failure policy,
// optional re-validation, and a trace of every step. Every step runs the same way (its `run()`).
import { monotonicMs } from '../clock.js';
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { MAX_SYSTEM_PROMPT_BYTES } from '../protocol/limits.js';
import { abortedError, checkedRewrite, interceptorStep, invalidInput, isPlainObject, markFailure, recordStep, type StepResult } from './step.js';
import type {
  AssistantMessageInput,
  AssistantMessageResult,
  BeforeAgentStartInput,
  CallOptions,
  ChainEnd,
  ChainObservation,
  ChainObserver,
  ChainStep,
  InterceptChainOptions,
  InterceptDiagnostic,
  InterceptEvent,
  Interceptor,
  StepMethod,
  StepOutcome,
  ToolCallInput,
  ToolCallResult,
  TraceStep,
  TurnStartInput,
  TurnStartResult,
} from './types.js';

function removeStep(list: ChainStep[], match: (step: ChainStep) => boolean): boolean {
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
 * interceptors (load order), then the others in the order added. Each call works on a snapshot.
 */
export class InterceptChain {
  readonly #timeoutMs: number;
  readonly #revalidate: boolean;
  readonly #onDiagnostic: ((diagnostic: InterceptDiagnostic) => void) | undefined;
  readonly #now: () => number;
  readonly #source: (() => readonly Interceptor[]) | undefined;
  readonly #extensionSteps: (() => readonly ChainStep[]) | undefined;
  readonly #observer: ChainObserver | undefined;
  readonly #first: ChainStep[] = [];
  readonly #rest: ChainStep[] = [];
  readonly #diagnoseStep = (interceptor: Interceptor, event: InterceptEvent, kind: InterceptDiagnostic['kind'], message: string): void =>
    this.#diagnose(interceptor, event, kind, message);

  constructor(options: InterceptChainOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 5000;
    this.#revalidate = options.revalidate ?? false;
    this.#onDiagnostic = options.onDiagnostic;
    this.#now = options.now ?? monotonicMs;
    this.#source = options.source;
    this.#extensionSteps = options.extensionSteps;
    this.#observer = options.observer;
  }

  /**
   * Adds an interceptor at the end (or after the other `first` ones with `first: true`). Adding one
   * that is already in the chain moves it. Returns a disposer that removes this registration.
   */
  add(interceptor: Interceptor, options: { first?: boolean | undefined } = {}): () => void {
    this.remove(interceptor);
    const step = interceptorStep(interceptor);
    (options.first === true ? this.#first : this.#rest).push(step);
    return () => {
      const same = (candidate: ChainStep): boolean => candidate === step;
      if (!removeStep(this.#first, same)) removeStep(this.#rest, same);
    };
  }

  /** Removes an interceptor added with `add`; `false` if it was not there. */
  remove(interceptor: Interceptor): boolean {
    const same = (candidate: ChainStep): boolean => candidate.interceptor === interceptor;
    return removeStep(this.#first, same) || removeStep(this.#rest, same);
  }

  /** The current order, including the host's extension interceptors. */
  list(): readonly Interceptor[] {
    return [
      ...this.#first.map((step) => step.interceptor),
      ...(this.#source?.() ?? []),
      ...(this.#extensionSteps?.() ?? []).map((step) => step.interceptor),
      ...this.#rest.map((step) => step.interceptor),
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
  toolCall(given: ToolCallInput, givenOptions: CallOptions = {}): Promise<ToolCallResult> {
    const checked = checkedCall('toolCall', given, givenOptions);
    if (checked instanceof ExtensionHostError) return Promise.reject(checked);
    const [input, options] = checked;
    return this.#call('toolCall', 'tool_call', options.signal, (steps, observation) => this.#toolCall(steps, input, options.signal, observation));
  }

  /** A turn about to call the model: block only, rewrites are ignored. */
  turnStart(given: TurnStartInput, givenOptions: CallOptions = {}): Promise<TurnStartResult> {
    const checked = checkedCall('turnStart', given, givenOptions);
    if (checked instanceof ExtensionHostError) return Promise.reject(checked);
    const [input, options] = checked;
    return this.#call('turnStart', 'turn_start', options.signal, async (steps, observation) => {
      const trace: TraceStep[] = [];
      for (const step of steps) {
        const result = await this.#step(step, 'turnStart', 'turn_start', { ...input }, options.signal, trace, false, observation);
        if (result.blocked !== undefined) return { block: true, ...result.blocked, trace };
      }
      return { block: false, trace };
    });
  }

  /** An assistant message about to be shown: block suppresses, `replaceText` replacements chain. */
  assistantMessage(given: AssistantMessageInput, givenOptions: CallOptions = {}): Promise<AssistantMessageResult> {
    const checked = checkedCall('assistantMessage', given, givenOptions);
    if (checked instanceof ExtensionHostError) return Promise.reject(checked);
    const [input, options] = checked;
    const event: InterceptEvent = 'assistant_message';
    return this.#call('assistantMessage', event, options.signal, async (steps, observation) => {
      const trace: TraceStep[] = [];
      let text = input.text;
      let modified = false;
      for (const step of steps) {
        const result = await this.#step(step, 'assistantMessage', event, { text }, options.signal, trace, false, observation);
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
    });
  }

  /**
   * One system-prompt pass: each interceptor may replace the prompt exactly. Nothing blocks; a
   * failure, a non-string or an over-1-MiB replacement keeps the current prompt (`malformed`).
   */
  beforeAgentStart(input: BeforeAgentStartInput, options: CallOptions = {}): Promise<{ systemPrompt: string; trace: TraceStep[] }> {
    const event: InterceptEvent = 'before_agent_start';
    return this.#call('beforeAgentStart', event, options.signal, async (steps, observation) => {
      const trace: TraceStep[] = [];
      let systemPrompt = input.systemPrompt;
      for (const step of steps) {
        const result = await this.#step(step, 'beforeAgentStart', event, { ...input, systemPrompt }, options.signal, trace, false, observation);
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
    });
  }

  async #toolCall(steps: readonly ChainStep[], input: ToolCallInput, signal: AbortSignal | undefined, observation: ChainObservation | undefined): Promise<ToolCallResult> {
    const event: InterceptEvent = 'tool_call';
    const trace: TraceStep[] = [];
    let args = input.args;
    let modified = false;
    // Steps that allowed, with the args as they stood after their step.
    const allowed: { step: ChainStep; argsAfter: Record<string, unknown> }[] = [];
    // One input object per args version (interceptors added with add() get copies of it).
    const origin = input.originExtension;
    const inputFor = (a: Record<string, unknown>): ToolCallInput =>
      typeof origin === 'string' ? { toolId: input.toolId, toolName: input.toolName, args: a, originExtension: origin } : { toolId: input.toolId, toolName: input.toolName, args: a };
    let stepInput: ToolCallInput = inputFor(args);
    const current = (): ToolCallInput => (stepInput.args === args ? stepInput : (stepInput = inputFor(args)));

    for (const step of steps) {
      const result = await this.#step(step, 'toolCall', event, current(), signal, trace, false, observation);
      if (result.blocked !== undefined) return { block: true, ...result.blocked, args, modified, trace };
      // A failed step (allowed by its policy) decided nothing and is not asked again.
      if (result.decision === undefined) continue;
      const next = result.decision.modifiedArgs;
      if (next !== undefined) {
        if (isPlainObject(next)) {
          args = next;
          modified = true;
          result.traced.decision = 'rewrite';
        } else {
          this.#diagnose(step.interceptor, event, 'ignored_field', 'modifiedArgs is not a JSON object; ignored');
        }
      }
      if (this.#revalidate) allowed.push({ step, argsAfter: args });
    }

    for (const { step, argsAfter } of allowed) {
      if (argsAfter === args) continue;
      const result = await this.#step(step, 'toolCall', event, current(), signal, trace, true, observation);
      if (result.blocked !== undefined) return { block: true, ...result.blocked, args, modified, trace };
      if (result.decision?.modifiedArgs !== undefined) {
        this.#diagnose(step.interceptor, event, 'ignored_field', 'modifiedArgs during revalidation; ignored');
      }
    }
    return { block: false, args, modified, trace };
  }

  /**
   * One chain call: the steps that take part in `method`, and the observer (when it watches) told
   * of the call's start and end. Rejects with ABORTED before asking anyone when `signal` has aborted.
   */
  async #call<R extends ChainEnd>(
    method: StepMethod,
    event: InterceptEvent,
    signal: AbortSignal | undefined,
    body: (steps: readonly ChainStep[], observation: ChainObservation | undefined) => Promise<R>,
  ): Promise<R> {
    const steps = this.#participants(method);
    const observation = steps.length > 0 ? this.#observer?.chainStarted(event) : undefined;
    if (observation === undefined) {
      if (signal?.aborted) throw abortedError(signal);
      return body(steps, undefined);
    }
    let result: R;
    try {
      if (signal?.aborted) throw abortedError(signal);
      result = await body(steps, observation);
    } catch (error) {
      observation.chainEnded(undefined, error);
      throw error;
    }
    observation.chainEnded(result, undefined);
    return result;
  }

  /** The steps that take part in `method`, in chain order. */
  #participants(method: StepMethod): ChainStep[] {
    const takesPart = (interceptor: Interceptor): boolean => typeof interceptor[method] === 'function';
    const steps: ChainStep[] = this.#first.filter((step) => takesPart(step.interceptor));
    for (const interceptor of this.#source?.() ?? []) if (takesPart(interceptor)) steps.push(interceptorStep(interceptor));
    for (const step of this.#extensionSteps?.() ?? []) if (takesPart(step.interceptor)) steps.push(step);
    for (const step of this.#rest) if (takesPart(step.interceptor)) steps.push(step);
    return steps;
  }

  /** Runs one step under its deadline and the caller's signal, and records it (see recordStep). */
  async #step(
    step: ChainStep,
    method: StepMethod,
    event: InterceptEvent,
    input: object,
    signal: AbortSignal | undefined,
    trace: TraceStep[],
    revalidation: boolean,
    observation: ChainObservation | undefined,
  ): Promise<StepResult> {
    const interceptor = step.interceptor;
    const started = this.#now();
    let outcome: StepOutcome;
    try {
      outcome = await step.run(method, input, interceptor.timeoutMs ?? this.#timeoutMs, signal, observation);
    } catch (error) {
      throw invalidInput(method, error);
    }
    const ms = this.#now() - started;
    if (method === 'toolCall' && !revalidation) outcome = checkedRewrite(interceptor.name, outcome);
    return recordStep(interceptor, event, outcome, ms, trace, revalidation, this.#diagnoseStep);
  }

  #diagnose(interceptor: Interceptor, event: InterceptEvent, kind: InterceptDiagnostic['kind'], message: string): void {
    try {
      this.#onDiagnostic?.({ interceptor: interceptor.name, event, kind, message });
    } catch {
      // A faulty listener must not change the decision.
    }
  }
}

/**
 * The embedder's input and options, each read once into a plain copy (getters run once, a Proxy's
 * traps once): what is not an object, or cannot be read, is a typed INVALID_ARGUMENT, never a
 * TypeError thrown at the caller.
 */
function checkedCall<I extends object>(method: StepMethod, input: I, options: CallOptions): [I, CallOptions] | ExtensionHostError {
  if (typeof input !== 'object' || input === null) return new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `intercepts.${method}: the input must be an object, got ${input === null ? 'null' : `a ${typeof input}`}`);
  if (typeof options !== 'object' || options === null) return new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `intercepts.${method}: options must be an object, got ${options === null ? 'null' : `a ${typeof options}`}`);
  try {
    return [{ ...input }, { signal: options.signal }];
  } catch (err) {
    return invalidInput(method, err);
  }
}
