// Loads `@opentelemetry/api` for `tracing` at start(): the only place that imports it, lazily.
import type * as Otel from '@opentelemetry/api';
import { ErrorCode, ExtensionHostError } from '../errors.js';
import type { TracingOption } from './tracing-option.js';

export type OtelApi = typeof Otel;

/** The tracer's name (the instrumentation scope of every span of the host). */
export const TRACER_NAME = 'zot-extension-host';

/** Whether the option turns tracing on. */
export function tracingOn(option: TracingOption | undefined): option is true | Exclude<TracingOption, boolean> {
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
  const provider = option === true ? undefined : option.tracerProvider;
  return { api, tracer: (provider ?? api.trace.getTracerProvider()).getTracer(TRACER_NAME, version) };
}
