// Extensions as interceptors: each one's chain step (one event_intercept request per step), the
// chain's list of them in load order with the stand-ins of fail-closed ones still starting or
// restarting, and the bounded warnings of interceptor failures.
import { monotonicMs } from '../clock.js';
import { ErrorCode, type ExtensionHostError } from '../errors.js';
import { NO_DECISION, abortedError, failureOutcome, interceptorStep, runStep, stepDeadline, timeoutOutcome } from '../intercept/step.js';
import type { ChainObservation, ChainStep, InterceptContext, InterceptDiagnostic, Interceptor, StepMethod, StepOutcome } from '../intercept/types.js';
import { INTERCEPT_METHODS, interceptDecision, interceptRequest } from '../intercept/wire.js';
import type { ExtensionProcess, RequestOptions, ResponseMapper } from '../process/extension-process.js';
import type { EventInterceptResponseFrame, InterceptName } from '../protocol/frames.js';
import { restartingError, type HostContext, type LoadedExtension } from './context.js';
import { policyFor } from './options.js';
import type { HostWarning, InterceptPolicy } from './types.js';

/**
 * The chain's extension steps (InterceptChainOptions.extensionSteps), made at each chain call: the
 * steps of ready extensions in load order, and a stand-in for each fail-closed one still starting
 * or restarting.
 */
export function extensionSteps(ctx: HostContext): ChainStep[] {
  const list: ChainStep[] = [];
  for (const ext of ctx.loaded) {
    if (ext.restarting) {
      const before = ext.slot.carry?.interceptor;
      if (before !== undefined && policyFor(ctx.options.interceptPolicy, ext.name)?.onFailure === 'block') list.push(interceptorStep(restartingGuard(ext, before)));
      continue;
    }
    if (ext.state === 'starting' && policyFor(ctx.options.interceptPolicy, ext.name)?.onFailure === 'block') {
      list.push(pendingStep(ext, () => ctx.adapters.get(ext)));
      continue;
    }
    if (ext.state !== 'ready') continue;
    const adapter = ctx.adapters.get(ext);
    if (adapter !== undefined) list.push(adapter);
  }
  return list;
}

/** `ext` subscribed to at least one intercept: (re)builds its step. */
export function addInterceptor(ctx: HostContext, ext: LoadedExtension): void {
  ctx.adapters.set(ext, extensionStep(ext.name, ext.process, ext.intercept, ctx.timeouts.intercept, policyFor(ctx.options.interceptPolicy, ext.name), ctx.tracer?.stepSend(ext)));
}

export function removeInterceptor(ctx: HostContext, ext: LoadedExtension): void {
  ctx.adapters.delete(ext);
}

/** How a step's request is sent: the process's request, or (tracing on) one within the chain call's span. */
export type StepSend = (request: ReturnType<typeof interceptRequest>, options: RequestOptions, mapper: ResponseMapper<EventInterceptResponseFrame, StepOutcome> | undefined, observation: ChainObservation | undefined) => Promise<unknown>;

const EVENT_OF = Object.fromEntries(Object.entries(INTERCEPT_METHODS).map(([event, method]) => [method, event])) as Record<StepMethod, InterceptName>;

/** An answer with no decision field at all (the usual "allow"): the same for every event. */
function isPlainAllow(r: EventInterceptResponseFrame): boolean {
  return r.block === undefined && r.reason === undefined && r.modified_args === undefined && r.replace_text === undefined && r.system_prompt === undefined;
}

/**
 * The interceptor for one extension and the events it intercepts. Its methods can be called like
 * any interceptor's (one request each); see extensionStep() for how the host's chain runs it.
 */
export function interceptAdapter(name: string, proc: Pick<ExtensionProcess, 'request'>, events: ReadonlySet<string>, timeoutMs: number, policy?: InterceptPolicy): Interceptor {
  return extensionStep(name, proc, events, timeoutMs, policy).interceptor;
}

/**
 * One extension as a step of the host's chain: its interceptor (what `list()` shows, whose methods
 * say which events it takes part in), and its run: one request whose deadline is the step's,
 * answered straight into the step's outcome. It serializes its input and its answer is freshly
 * parsed JSON, so it needs no copies.
 */
export function extensionStep(name: string, proc: Pick<ExtensionProcess, 'request'>, events: ReadonlySet<string>, timeoutMs: number, policy?: InterceptPolicy, send?: StepSend): ChainStep {
  // Each step's options are its own (run() makes them): the mapper is set on them in place.
  const request: StepSend =
    send ??
    ((frame, options, mapper) => {
      if (mapper !== undefined) options.map = mapper;
      return proc.request(frame, options);
    });
  const interceptor: Interceptor = { name };
  if (policy?.onFailure !== undefined) interceptor.onFailure = policy.onFailure;
  for (const [event, method] of Object.entries(INTERCEPT_METHODS) as [InterceptName, StepMethod][]) {
    if (!events.has(event)) continue;
    const closeStdinOnWriteTimeout = method === 'beforeAgentStart' || undefined;
    (interceptor as Record<StepMethod, unknown>)[method] = async (input: object, ctx: InterceptContext): Promise<Record<string, unknown>> => {
      const answer = (await request(interceptRequest(event, input as Record<string, unknown>), { timeoutMs, signal: ctx.signal, closeStdinOnWriteTimeout }, undefined, undefined)) as EventInterceptResponseFrame;
      return interceptDecision(event, answer);
    };
  }
  return {
    interceptor,
    run(method, input, stepTimeoutMs, signal, observation) {
      if (signal?.aborted) return Promise.reject(abortedError(signal));
      const event = EVENT_OF[method];
      const options: RequestOptions = { timeoutMs: stepDeadline(stepTimeoutMs) };
      if (signal !== undefined) options.signal = signal;
      // A before_agent_start step that cannot even be written within its deadline closes the
      // extension's stdin (the spec: "a blocked request write closes its input pipe"); the step
      // counts as a timeout. Other steps follow the request rule (taken back or completed).
      if (method === 'beforeAgentStart') options.closeStdinOnWriteTimeout = true;
      const mapper: ResponseMapper<EventInterceptResponseFrame, StepOutcome> = {
        frame: (r) => (isPlainAllow(r) ? NO_DECISION : { ok: true, decision: interceptDecision(event, r) }),
        error: (error: ExtensionHostError) => {
          if (error.code === ErrorCode.ABORTED && signal?.aborted === true) throw abortedError(signal);
          // Input that cannot be encoded is the caller's fault, not this guard's: it must reject the
          // chain call (INVALID_ARGUMENT), never pass as a failed step that the policy may allow.
          if (error.code === ErrorCode.INVALID_ARGUMENT) throw error;
          return error.code === ErrorCode.TIMEOUT ? timeoutOutcome(name, stepTimeoutMs) : failureOutcome(error);
        },
      };
      return request(interceptRequest(event, input as Record<string, unknown>), options, mapper, observation) as Promise<StepOutcome>;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Stand-ins. A fail-closed guard that is still starting (it joins late, see lifecycle.ts
// `startBound`) must not let calls pass unseen: its place in the chain waits for it within the
// step's deadline, then asks it (or lets the event pass when it does not intercept that event),
// and fails, so blocks, when it is not ready by then.
// ---------------------------------------------------------------------------------------------

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * The stand-in for a fail-closed `ext` while it restarts: each event its interceptor (`before`, from
 * before the crash) took fails at once with RESTARTING, so the chain blocks; the others pass.
 */
function restartingGuard(ext: LoadedExtension, before: Interceptor): Interceptor {
  const fail = (): Promise<never> => Promise.reject(restartingError(ext, 'intercept'));
  const guard: Record<string, unknown> = { name: ext.name, onFailure: 'block' };
  for (const method of ['toolCall', 'turnStart', 'assistantMessage', 'beforeAgentStart'] as const) if (typeof before[method] === 'function') guard[method] = fail;
  return guard as unknown as Interceptor;
}

/**
 * The stand-in for a fail-closed `ext` while it starts, as the chain runs it: within the step's
 * deadline it waits for the extension, then runs its step (`current()`, once it has subscribed) with
 * what is left of the deadline and the chain call's observation; an event it does not intercept passes.
 */
function pendingStep(ext: LoadedExtension, current: () => ChainStep | undefined): ChainStep {
  return {
    interceptor: pendingGuard(ext, () => current()?.interceptor),
    async run(method, input, timeoutMs, signal, observation) {
      const started = monotonicMs();
      const waited = await runStep(async (ctx) => {
        await Promise.race([ext.settled, aborted(ctx.signal)]);
        if (ext.state !== 'ready') throw new Error(notReady(ext));
      }, { name: ext.name, timeoutMs, signal });
      if (!waited.ok) return waited;
      const step = current();
      if (step === undefined || typeof step.interceptor[method] !== 'function') return NO_DECISION;
      const outcome = await step.run(method, input, Math.max(0, timeoutMs - (monotonicMs() - started)), signal, observation);
      // Timed out as one step: the whole deadline is the step's.
      return !outcome.ok && outcome.kind === 'timeout' ? timeoutOutcome(ext.name, timeoutMs) : outcome;
    },
  };
}

function notReady(ext: LoadedExtension): string {
  return `${ext.name} is not ready yet (still starting or failed); blocked by its interceptPolicy`;
}

/** The stand-in for `ext` while it starts, as an interceptor (what `list()` shows, callable like any). */
function pendingGuard(ext: LoadedExtension, adapter: () => Interceptor | undefined): Interceptor {
  const step = (method: StepMethod) => async (input: object, ctx: InterceptContext): Promise<unknown> => {
    await Promise.race([ext.settled, aborted(ctx.signal)]);
    if (ext.state !== 'ready') throw new Error(notReady(ext));
    const current = adapter();
    const fn = current?.[method] as ((input: object, ctx: InterceptContext) => unknown) | undefined;
    return fn === undefined ? {} : fn.call(current, input, ctx);
  };
  return {
    name: ext.name,
    onFailure: 'block',
    toolCall: step('toolCall'),
    turnStart: step('turnStart'),
    assistantMessage: step('assistantMessage'),
    beforeAgentStart: step('beforeAgentStart'),
  } as Interceptor;
}

// ---------------------------------------------------------------------------------------------
// Interceptor failures reach the `warning` callback, bounded: the 1st, 10th, 100th, ... failure of
// each interceptor and kind, so a flood of timeouts is a handful of warnings (every one is still a
// diagnostic).
// ---------------------------------------------------------------------------------------------

/** Counters kept at most; past it they start over (only interceptor names the embedder invents get there). */
const MAX_KEYS = 1024;

/** Kinds warned about here: a crash is already warned about as the extension's exit, a system-prompt failure by its pass. */
const WARNED: ReadonlySet<string> = new Set(['timeout', 'malformed', 'error']);

export class InterceptWarnings {
  readonly #counts = new Map<string, number>();

  /** The warning for this diagnostic, or undefined when it is not one to show (or is counted only). */
  warningFor(d: InterceptDiagnostic, logPath: string | undefined): HostWarning | undefined {
    if (!WARNED.has(d.kind) || d.event === 'before_agent_start') return undefined;
    const key = `${d.interceptor}\0${d.kind}`;
    let n = this.#counts.get(key);
    if (n === undefined && this.#counts.size >= MAX_KEYS) this.#counts.clear();
    n = (n ?? 0) + 1;
    this.#counts.set(key, n);
    if (!isPowerOfTen(n)) return undefined;
    const where = logPath === undefined ? '' : `; see ${logPath}`;
    const message =
      n === 1
        ? `interceptor ${d.interceptor} (${d.event}) failed (${d.kind}): ${d.message}${where}`
        : `interceptor ${d.interceptor}: ${n} ${d.kind} failures so far (latest, ${d.event}: ${d.message})${where}`;
    return { message, extension: logPath === undefined ? undefined : d.interceptor, logPath, code: `INTERCEPT_${d.kind.toUpperCase()}` };
  }

  /** A new run of the extensions: every count starts again. */
  reset(): void {
    this.#counts.clear();
  }
}

function isPowerOfTen(n: number): boolean {
  while (n >= 10 && n % 10 === 0) n /= 10;
  return n === 1;
}
