// The host's OpenTelemetry spans (docs/tracing.md): tool calls, commands, intercept chains and their
// steps, restarts; exits and restarts as span events. `@opentelemetry/api` is imported only here, at
// start() and only with `tracing` on: off, the host holds no tracer and each traced path costs one
// `ctx.tracer` check.
import type * as Otel from '@opentelemetry/api';
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import { ErrorCode, ExtensionHostError, isExtensionHostError } from '../errors.js';
import type { ChainEnd, ChainObservation, ChainObserver, InterceptEvent, StepOutcome, TraceStep } from '../intercept/types.js';
import type { RequestFrame, RequestOptions, RequestType, ResponseMapper } from '../process/extension-process.js';
import type { ExtensionFrame, ProgressFrame, ToolResultFrame } from '../protocol/frames.js';
import { VERSION } from '../version.js';
import { toolCallFrame } from './calls.js';
import type { HostContext, LoadedExtension } from './context.js';
import type { StepSend } from './interceptors.js';
import type { HostCallOptions, HostEvents, ToolResult, TracingOption } from './types.js';

export type OtelApi = typeof Otel;

/** The tracer's name (the instrumentation scope of every span of the host). */
export const TRACER_NAME = 'zot-extension-host';

/** Whether the option turns tracing on. */
function tracingOn(option: TracingOption | undefined): option is true | Exclude<TracingOption, boolean> {
  return option !== undefined && option !== false;
}

/** The api module and the host's tracer; rejects with TRACING_UNAVAILABLE when the package is missing. */
export async function loadTracing(
  option: true | Exclude<TracingOption, boolean>,
  version: string,
  importApi: () => Promise<unknown> = () => import('@opentelemetry/api'),
): Promise<{ api: OtelApi; tracer: Otel.Tracer }> {
  let api: OtelApi;
  try {
    const loaded = (await importApi()) as OtelApi & { default?: OtelApi };
    // CJS interop: the namespace may come as `default`.
    api = typeof loaded.trace?.getTracer === 'function' ? loaded : loaded.default!;
    if (typeof api?.trace?.getTracer !== 'function') throw new Error('the module has no trace API');
  } catch (err) {
    throw new ExtensionHostError(
      ErrorCode.TRACING_UNAVAILABLE,
      `ExtensionHost option tracing is on, but @opentelemetry/api cannot be loaded (${err instanceof Error ? err.message : String(err)}); install it (npm i @opentelemetry/api) or turn tracing off`,
      { cause: err },
    );
  }
  // The option's type is structural (types.ts: TracerProviderLike); what it holds is a real provider.
  const provider = (option === true ? undefined : option.tracerProvider) as Otel.TracerProvider | undefined;
  return { api, tracer: (provider ?? api.trace.getTracerProvider()).getTracer(TRACER_NAME, version) };
}

/** Rejects with TRACING_UNAVAILABLE (before any extension starts) when `@opentelemetry/api` is missing. */
export async function startTracing(ctx: HostContext): Promise<void> {
  const option = ctx.options.tracing;
  if (ctx.tracer !== undefined || !tracingOn(option)) return;
  const { api, tracer } = await loadTracing(option, VERSION);
  const hostTracer = new HostTracer(api, tracer);
  ctx.out.tap = (name, args) => hostTracer.observe(name, args);
  ctx.tracer = hostTracer;
}

/** W3C trace context as sent in a request's `_meta` (capability "trace"). */
export interface TraceMeta {
  traceparent: string;
  tracestate?: string | undefined;
}

/** One chain call in progress: its span, its context, and the steps that made their own spans. */
class TracedChain implements ChainObservation {
  readonly live: string[] = [];
  // OpenTelemetry reads a plain number as performance.now() time (or epoch ms), not as monotonicMs().
  readonly started = performance.now();

  constructor(
    private readonly tracer: HostTracer,
    readonly event: InterceptEvent,
    readonly span: Span,
    readonly context: Context,
  ) {}

  chainEnded(result: ChainEnd | undefined, error: unknown): void {
    this.tracer.chainEnded(this, result, error);
  }
}

type Done<T> = (span: Span, value: T | undefined, error: unknown) => void;

/** The error.type of a failed request: the host's error code, else the error's name. */
function errorType(error: unknown): string {
  return isExtensionHostError(error) ? error.code : error instanceof Error ? error.name : 'Error';
}

function stepDecision(outcome: StepOutcome): Attributes {
  if (!outcome.ok) return { 'zot.intercept.decision': 'failure', 'zot.intercept.failure_kind': outcome.kind, 'error.type': outcome.kind };
  const d = outcome.decision;
  if (d === undefined) return { 'zot.intercept.decision': 'allow', 'zot.intercept.rewritten': false };
  if (d.block === true) return { 'zot.intercept.decision': 'block', 'zot.intercept.rewritten': false };
  const rewritten = d.modifiedArgs !== undefined || d.replaceText !== undefined || d.systemPrompt !== undefined;
  return { 'zot.intercept.decision': rewritten ? 'rewrite' : 'allow', 'zot.intercept.rewritten': rewritten };
}

export class HostTracer implements ChainObserver {
  /** The spans open per extension name, for the exit and restart events. */
  private readonly open = new Map<string, Set<Span>>();
  private readonly restarts = new Map<string, Span>();

  constructor(
    readonly api: OtelApi,
    private readonly tracer: Tracer,
  ) {}

  /** W3C trace context of a span (traceparent formatted from its span context). */
  meta(span: Span): TraceMeta {
    const sc = span.spanContext();
    const traceparent = `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
    const tracestate = sc.traceState?.serialize();
    return tracestate === undefined || tracestate.length === 0 ? { traceparent } : { traceparent, tracestate };
  }

  /** A tool call as span `execute_tool {name}` (GenAI semantic conventions). */
  tool(ext: LoadedExtension, name: string, args: Record<string, unknown>, options: RequestOptions, mapper: ResponseMapper<ToolResultFrame, ToolResult>, call: HostCallOptions | undefined): Promise<ToolResult> {
    const attributes: Attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.type': 'extension', 'zot.extension.name': ext.name };
    // Only traces read it: a value that is not a string is ignored, at no cost to untraced calls.
    const callId = typeof call?.toolCallId === 'string' ? call.toolCallId : undefined;
    if (callId !== undefined) attributes['gen_ai.tool.call.id'] = callId;
    const span = this.tracer.startSpan(`execute_tool ${name}`, { attributes, kind: this.api.SpanKind.INTERNAL }, this.api.context.active());
    // The wire id is the call id only when the caller gave none: then the answer's id is read.
    const traced: ResponseMapper<ToolResultFrame, ToolResult> =
      callId !== undefined
        ? mapper
        : {
            frame: (frame) => {
              span.setAttribute('gen_ai.tool.call.id', frame.id);
              return mapper.frame(frame);
            },
            error: (err) => mapper.error(err),
          };
    return this.request(ext, span, toolCallFrame(name, args, call), options, traced, (s, result) => {
      if (result === undefined) return;
      const failure = result.failure;
      if (failure !== undefined) this.failed(s, ext, failure.code, failure.message);
      else if (result.isError) this.failed(s, ext, 'tool_error', 'the tool reported an error');
    });
  }

  /** A command as span `zot.command {name}`. */
  command(ext: LoadedExtension, name: string, args: string, options: RequestOptions): Promise<ExtensionFrame> {
    const attributes: Attributes = { 'zot.command.name': name, 'zot.extension.name': ext.name };
    const span = this.tracer.startSpan(`zot.command ${name}`, { attributes, kind: this.api.SpanKind.INTERNAL }, this.api.context.active());
    return this.request<ExtensionFrame>(ext, span, { type: 'command_invoked', name, args }, options, undefined, () => undefined);
  }

  /**
   * How an extension step sends its request: each event_intercept is span `zot.intercept.step
   * {extension}`, a child of its chain call's span (or of the active context outside a chain).
   */
  stepSend(ext: LoadedExtension): StepSend {
    return (frame, options, mapper, observation) => {
      const chain = observation instanceof TracedChain ? observation : undefined;
      chain?.live.push(ext.name);
      const attributes: Attributes = { 'zot.intercept.event': frame.event, 'zot.intercept.extension': ext.name, 'zot.extension.name': ext.name };
      const span = this.tracer.startSpan(`zot.intercept.step ${ext.name}`, { attributes }, chain?.context ?? this.api.context.active());
      return this.request(ext, span, frame as RequestFrame<RequestType>, options, mapper, (s, value) => {
        if (value !== undefined) s.setAttributes(stepDecision(value as StepOutcome));
        const outcome = value as StepOutcome | undefined;
        if (outcome === undefined || outcome.ok) return;
        s.setStatus({ code: this.api.SpanStatusCode.ERROR, message: outcome.message });
        if (outcome.kind === 'timeout' && ext.process.capabilities.includes('cancel')) s.addEvent('zot.cancel', { 'zot.cancel.reason': 'timeout' });
      });
    };
  }

  /**
   * The chain's observer: each chain call that consults any interceptor becomes span `zot.intercept
   * {event}` (one with no participant makes none); steps that are not an extension's get their span
   * from the trace at its end.
   */
  chainStarted(event: InterceptEvent): ChainObservation {
    const parent = this.api.context.active();
    const span = this.tracer.startSpan(`zot.intercept ${event}`, { attributes: { 'zot.intercept.event': event } }, parent);
    return new TracedChain(this, event, span, this.api.trace.setSpan(parent, span));
  }

  /** The end of a traced chain call (TracedChain.chainEnded). */
  chainEnded(chain: TracedChain, result: ChainEnd | undefined, error: unknown): void {
    const { span } = chain;
    if (result === undefined) {
      span.setAttribute('error.type', errorType(error));
      span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      span.end();
      return;
    }
    this.plainSteps(chain, result.trace);
    const blocked = result.trace.find((s) => s.decision === 'block');
    span.setAttributes({
      'zot.intercept.steps': result.trace.length,
      'zot.intercept.decision': result.block === true ? 'block' : 'allow',
      'zot.intercept.rewritten': result.modified ?? result.trace.some((s) => s.decision === 'rewrite'),
    });
    if (blocked !== undefined) span.setAttribute('zot.intercept.blocked_by', blocked.interceptor);
    span.end();
  }

  /** Spans for the steps that made none (interceptors added with `add()`), timed from the trace. */
  private plainSteps(chain: TracedChain, trace: readonly TraceStep[]): void {
    const { event } = chain;
    let live = 0;
    let at = chain.started;
    for (const step of trace) {
      const start = at;
      at += step.ms;
      if (chain.live[live] === step.interceptor) {
        live++;
        continue;
      }
      const attributes: Attributes = { 'zot.intercept.event': event, 'zot.intercept.interceptor': step.interceptor, 'zot.intercept.decision': step.decision, 'zot.intercept.rewritten': step.decision === 'rewrite' };
      if (step.failure !== undefined) attributes['zot.intercept.failure_kind'] = attributes['error.type'] = step.failure;
      const span = this.tracer.startSpan(`zot.intercept.step ${step.interceptor}`, { attributes, startTime: start }, chain.context);
      if (step.failure !== undefined) span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: step.message });
      span.end(at);
    }
  }

  /** Host events that become span events: exits and restarts on the extension's open spans, a span per restart. */
  observe(name: string, args: unknown[]): void {
    if (name === 'extension:exit') {
      const [exit] = args as HostEvents['extension:exit'];
      const attributes: Attributes = { 'zot.extension.name': exit.name, 'zot.exit.reason': exit.reason };
      if (exit.code !== null) attributes['zot.exit.code'] = exit.code;
      if (exit.signal !== null) attributes['zot.exit.signal'] = exit.signal;
      this.eventOn(exit.name, 'zot.extension.exit', attributes);
      this.restarts.get(exit.name)?.addEvent('zot.extension.exit', attributes);
    } else if (name === 'extension:state') {
      const [change] = args as HostEvents['extension:state'];
      this.stateChanged(change);
    }
  }

  private stateChanged(change: HostEvents['extension:state'][0]): void {
    const restart = this.restarts.get(change.name);
    if (change.state === 'restarting') {
      const attributes: Attributes = { 'zot.extension.name': change.name, 'zot.restart.reason': change.reason ?? 'restart' };
      if (change.restarts !== undefined) attributes['zot.restart.count'] = change.restarts;
      this.eventOn(change.name, 'zot.extension.restart', attributes);
      if (restart === undefined) this.restarts.set(change.name, this.tracer.startSpan(`zot.extension.restart ${change.name}`, { attributes }, this.api.ROOT_CONTEXT));
      return;
    }
    if (restart === undefined || change.state === 'starting') return;
    this.restarts.delete(change.name);
    if (change.state !== 'ready') {
      restart.setAttribute('error.type', change.state);
      restart.setStatus({ code: this.api.SpanStatusCode.ERROR, message: `${change.name} ${change.state}${change.reason === undefined ? '' : ` (${change.reason})`}` });
    }
    restart.end();
  }

  /** Ends what is still open (stop). */
  close(): void {
    for (const span of this.restarts.values()) span.end();
    this.restarts.clear();
  }

  private eventOn(extension: string, name: string, attributes: Attributes): void {
    const spans = this.open.get(extension);
    if (spans !== undefined) for (const span of spans) span.addEvent(name, attributes);
  }

  private failed(span: Span, ext: LoadedExtension, type: string, message: string): void {
    span.setAttribute('error.type', type);
    span.setStatus({ code: this.api.SpanStatusCode.ERROR, message });
    if ((type === ErrorCode.ABORTED || type === ErrorCode.TIMEOUT) && ext.process.capabilities.includes('cancel')) {
      span.addEvent('zot.cancel', { 'zot.cancel.reason': type === ErrorCode.ABORTED ? 'aborted' : 'timeout' });
    }
  }

  /**
   * One traced request: `_meta` for an extension that negotiated "trace", progress as span events, the span kept open for exit/restart events until the
   * request settles.
   */
  private request<T>(ext: LoadedExtension, span: Span, frame: RequestFrame<RequestType>, options: RequestOptions, mapper: ResponseMapper<never, unknown> | undefined, done: Done<T>): Promise<T> {
    const open = this.open.get(ext.name) ?? new Set<Span>();
    this.open.set(ext.name, open);
    open.add(span);
    const proc = ext.process;
    let sent: RequestFrame<RequestType> = frame;
    if (proc.capabilities.includes('trace')) sent = { ...frame, _meta: this.meta(span) } as unknown as RequestFrame<RequestType>;
    const onProgress = options.onProgress;
    const traced: RequestOptions = {
      ...options,
      onProgress: (p: ProgressFrame) => {
        const attributes: Attributes = {};
        if (p.message !== undefined) attributes['zot.progress.message'] = p.message;
        if (p.progress !== undefined) attributes['zot.progress.progress'] = p.progress;
        if (p.total !== undefined) attributes['zot.progress.total'] = p.total;
        span.addEvent('zot.progress', attributes);
        onProgress?.(p);
      },
    };
    const end = (value: T | undefined, error: unknown): void => {
      open.delete(span);
      if (open.size === 0 && this.open.get(ext.name) === open) this.open.delete(ext.name);
      try {
        if (error !== undefined) this.failed(span, ext, errorType(error), error instanceof Error ? error.message : String(error));
        done(span, value, error);
      } finally {
        span.end();
      }
    };
    if (mapper !== undefined) traced.map = mapper;
    return (proc.request(sent, traced) as Promise<unknown> as Promise<T>).then(
      (value) => {
        end(value, undefined);
        return value;
      },
      (error: unknown) => {
        end(undefined, error ?? new Error('request failed'));
        throw error;
      },
    );
  }
}
