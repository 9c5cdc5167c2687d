// `tracing` at start(): the api loaded once, the chain and the host events hooked once.
import { VERSION } from '../version.js';
import type { HostContext } from './context.js';
import { loadTracing, tracingOn } from './tracing-load.js';
import { HostTracer } from './tracing.js';

/** Rejects with TRACING_UNAVAILABLE (before any extension starts) when `@opentelemetry/api` is missing. */
export async function startTracing(ctx: HostContext): Promise<void> {
  const option = ctx.options.tracing;
  if (ctx.tracer !== undefined || !tracingOn(option)) return;
  const { api, tracer } = await loadTracing(option, VERSION);
  const hostTracer = new HostTracer(api, tracer);
  hostTracer.wrapChain(ctx.chain);
  ctx.out.tap = (name, args) => hostTracer.observe(name, args);
  ctx.tracer = hostTracer;
}
