// `tracing` at start(): the api loaded once, the chain and the host events hooked once.
import { VERSION } from '../version.js';
import type { HostContext } from './context.js';
import { loadTracing, tracingOn } from './tracing-load.js';

/** Rejects with TRACING_UNAVAILABLE (before any extension starts) when `@opentelemetry/api` is missing. */
export async function startTracing(ctx: HostContext): Promise<void> {
  const option = ctx.options.tracing;
  if (ctx.tracer !== undefined || !tracingOn(option)) return;
  // The tracer's code too loads only when tracing is on.
  const [{ api, tracer }, { HostTracer }] = await Promise.all([loadTracing(option, VERSION), import('./tracing.js')]);
  const hostTracer = new HostTracer(api, tracer);
  ctx.out.tap = (name, args) => hostTracer.observe(name, args);
  ctx.tracer = hostTracer;
}
