// System-prompt passes (`before_agent_start`): one shared pass per input, cached until invalidated,
// rerun with a new agent_run_id when invalidated mid-pass, nothing committed on abort.
import { ErrorCode, ExtensionHostError, isExtensionHostError } from '../errors.js';
import type { InterceptChain } from './chain.js';
import type { TraceStep } from './types.js';
import { abortedError } from './step.js';

/** Options of {@link SystemPromptPreparer}. */
export interface SystemPromptPreparerOptions {
  /** The chain whose `beforeAgentStart` interceptors run each pass. */
  chain: InterceptChain;
  /** Read at the start of every pass, so a rerun after a model change sees the new model. */
  context: () => { cwd: string; provider: string; model: string };
  /** Makes the `agent_run_id` of each pass. @default `globalThis.crypto.randomUUID` (Web Crypto: loading node:crypto would cost every import ~6 ms) */
  newRunId?: (() => string) | undefined;
  /** Session id used when `prepare()` gets none. @default a random UUID, fixed for this preparer */
  runtimeSessionId?: string | undefined;
  /** Called for every failed step (timeout, crash, malformed, error) of a completed pass. @default undefined */
  onWarning?: ((message: string, interceptor?: string) => void) | undefined;
}

/** Options of {@link SystemPromptPreparer.prepare}. */
export interface PrepareSystemPromptOptions {
  /** The unmodified base prompt. */
  systemPrompt: string;
  /** The conversation id. @default the preparer's `runtimeSessionId` */
  sessionId?: string | undefined;
  /**
   * Aborting rejects this call with `ABORTED`; the pass stops, committing nothing, once no caller waits.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
}

/** The prompt to send to the model. */
export interface PreparedSystemPrompt {
  systemPrompt: string;
  /** The id of the pass that produced it. */
  agentRunId: string;
  /** `true` when no interceptor was asked (the committed result was reused). */
  cached: boolean;
  /** The steps of the pass that produced it. */
  trace: TraceStep[];
}

interface Inputs {
  base: string;
  sessionId: string;
}

interface Committed extends Inputs {
  systemPrompt: string;
  agentRunId: string;
  trace: TraceStep[];
}

interface Waiter {
  resolve(value: Committed): void;
  reject(error: unknown): void;
  /** The pass it currently waits for (a rerun may hand it over to another pass). */
  pass: Pass;
}

interface Pass {
  key: string;
  waiters: Set<Waiter>;
  /** Aborted when every caller of the pass has aborted. */
  stop: AbortController;
  /** Aborted by `invalidate()` to cut the current iteration short. */
  iteration: AbortController;
}

const keyOf = (inputs: Inputs): string => JSON.stringify([inputs.base, inputs.sessionId]);

/**
 * Runs and caches `before_agent_start` passes.
 *
 * The committed result is reused while it is not invalidated and `prepare()` gets the same base
 * prompt and session id as the pass that produced it; a different base or session runs a new pass.
 * Concurrent calls with the same inputs share one pass. `invalidate()` during a pass discards it and
 * runs again against the current base (the most recent `prepare()` inputs) with a new
 * `agent_run_id`; its callers get that new result.
 */
export class SystemPromptPreparer {
  readonly #chain: InterceptChain;
  readonly #context: () => { cwd: string; provider: string; model: string };
  readonly #newRunId: () => string;
  #runtimeSessionId: string | undefined;
  readonly #onWarning: ((message: string, interceptor?: string) => void) | undefined;
  readonly #passes = new Map<string, Pass>();
  #committed: Committed | undefined;
  #latest: Inputs | undefined;
  #generation = 0;

  constructor(options: SystemPromptPreparerOptions) {
    this.#chain = options.chain;
    this.#context = options.context;
    this.#newRunId = options.newRunId ?? (() => globalThis.crypto.randomUUID());
    this.#runtimeSessionId = options.runtimeSessionId;
    this.#onWarning = options.onWarning;
  }

  /** The system prompt for the next model call: the committed one, or the result of a new pass. */
  async prepare(given: PrepareSystemPromptOptions): Promise<PreparedSystemPrompt> {
    const options = checkedOptions(given);
    const { signal } = options;
    if (signal?.aborted) throw abortedError(signal);
    const inputs: Inputs = { base: options.systemPrompt, sessionId: options.sessionId ?? (this.#runtimeSessionId ??= globalThis.crypto.randomUUID()) };
    this.#latest = inputs;
    const committed = this.#committed;
    if (committed !== undefined && keyOf(committed) === keyOf(inputs)) return this.#result(committed, true);
    const pass = this.#passes.get(keyOf(inputs)) ?? this.#start(inputs);
    return this.#result(await this.#wait(pass, signal), false);
  }

  /**
   * Forget the committed result (model change, clear, session change, rebuild, reload). A pass in
   * progress is discarded and runs again against the current base with a new `agent_run_id`.
   */
  invalidate(): void {
    this.#generation += 1;
    this.#committed = undefined;
    for (const pass of this.#passes.values()) pass.iteration.abort();
  }

  #result(committed: Committed, cached: boolean): PreparedSystemPrompt {
    return { systemPrompt: committed.systemPrompt, agentRunId: committed.agentRunId, cached, trace: committed.trace };
  }

  #start(inputs: Inputs): Pass {
    const pass: Pass = {
      key: keyOf(inputs),
      waiters: new Set(),
      stop: new AbortController(),
      iteration: new AbortController(),
    };
    this.#passes.set(pass.key, pass);
    const settle = (action: (waiter: Waiter) => void): void => {
      if (this.#passes.get(pass.key) === pass) this.#passes.delete(pass.key);
      for (const waiter of pass.waiters) action(waiter);
      pass.waiters.clear();
    };
    this.#run(pass, inputs).then(
      (committed) => settle((waiter) => waiter.resolve(committed)),
      (error: unknown) => settle((waiter) => waiter.reject(error)),
    );
    return pass;
  }

  /** Resolves with the committed result; rejects with ABORTED once no caller waits for this pass. */
  async #run(pass: Pass, first: Inputs): Promise<Committed> {
    let inputs = first;
    for (;;) {
      const generation = this.#generation;
      const agentRunId = this.#newRunId();
      const { cwd, provider, model } = this.#context();
      const signal = AbortSignal.any([pass.stop.signal, pass.iteration.signal]);
      let outcome: { systemPrompt: string; trace: TraceStep[] } | undefined;
      try {
        outcome = await this.#chain.beforeAgentStart(
          { systemPrompt: inputs.base, sessionId: inputs.sessionId, agentRunId, cwd, provider, model },
          { signal },
        );
      } catch (error) {
        if (pass.stop.signal.aborted || !isExtensionHostError(error, 'ABORTED')) throw error;
      }
      if (pass.stop.signal.aborted) throw abortedError(pass.stop.signal);
      if (outcome !== undefined) this.#warn(outcome.trace);
      if (outcome !== undefined && generation === this.#generation) {
        const { systemPrompt, trace } = outcome;
        this.#committed = { ...inputs, systemPrompt, agentRunId, trace };
        return this.#committed;
      }
      // Invalidated while waiting: discard and run again against the current base.
      pass.iteration = new AbortController();
      inputs = this.#latest ?? inputs;
      const committed = this.#committed;
      if (committed !== undefined && keyOf(committed) === keyOf(inputs)) return committed;
      const key = keyOf(inputs);
      if (key === pass.key) continue;
      if (this.#passes.get(pass.key) === pass) this.#passes.delete(pass.key);
      const other = this.#passes.get(key);
      if (other === undefined) {
        pass.key = key;
        this.#passes.set(key, pass);
        continue;
      }
      // Same inputs as a pass already running: hand our callers over to it and end this one.
      for (const waiter of pass.waiters) {
        waiter.pass = other;
        other.waiters.add(waiter);
      }
      pass.waiters.clear();
      pass.stop.abort();
      throw abortedError(pass.stop.signal);
    }
  }

  #warn(trace: readonly TraceStep[]): void {
    if (this.#onWarning === undefined) return;
    for (const step of trace) {
      if (step.decision !== 'failure') continue;
      const message = `${step.interceptor}: system prompt kept (${step.failure ?? 'error'}): ${step.message ?? ''}`;
      try {
        this.#onWarning(message, step.interceptor);
      } catch {
        // A faulty listener must not lose the pass.
      }
    }
  }

  /** Waits for a pass on behalf of one caller; a pass stops once every caller has aborted. */
  #wait(pass: Pass, signal: AbortSignal | undefined): Promise<Committed> {
    return new Promise<Committed>((resolve, reject) => {
      const onAbort = (): void => {
        const current = waiter.pass;
        current.waiters.delete(waiter);
        reject(abortedError(signal as AbortSignal));
        if (current.waiters.size > 0) return;
        if (this.#passes.get(current.key) === current) this.#passes.delete(current.key);
        current.stop.abort(signal?.reason);
      };
      const waiter: Waiter = {
        pass,
        resolve: (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      pass.waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** The embedder's options read once; what is not `{ systemPrompt: string, sessionId?: string }` is INVALID_ARGUMENT. */
function checkedOptions(given: unknown): PrepareSystemPromptOptions {
  const invalid = (why: string, cause?: unknown) => new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `prepareSystemPrompt: ${why}`, { cause });
  if (typeof given !== 'object' || given === null) throw invalid(`options must be { systemPrompt, sessionId?, signal? }, got ${given === null ? 'null' : `a ${typeof given}`}`);
  let options: PrepareSystemPromptOptions;
  try {
    const { systemPrompt, sessionId, signal } = given as PrepareSystemPromptOptions;
    options = { systemPrompt, sessionId, signal };
  } catch (err) {
    throw invalid('options could not be read', err);
  }
  if (typeof options.systemPrompt !== 'string') throw invalid(`systemPrompt must be a string, got a ${typeof options.systemPrompt}`);
  if (options.sessionId !== undefined && typeof options.sessionId !== 'string') throw invalid(`sessionId must be a string, got a ${typeof options.sessionId}`);
  return options;
}
