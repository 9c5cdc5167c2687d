// The `tracing` option of ExtensionHost (docs/tracing.md). Types only: nothing here loads
// `@opentelemetry/api`, which the host imports at start() only when tracing is on.
import type { TracerProvider } from '@opentelemetry/api';

/** Where the host's spans go when tracing is on. */
export interface TracingSettings {
  /** The provider of the host's tracer (`zot-extension-host`). @default the global provider (`trace.getTracerProvider()`) */
  tracerProvider?: TracerProvider | undefined;
}

/**
 * OpenTelemetry traces of tool calls, commands and intercept chains (docs/tracing.md): `true` uses
 * the global tracer provider, `{ tracerProvider }` a given one. Needs the optional peer dependency
 * `@opentelemetry/api`, loaded at `start()` (a start without it rejects with TRACING_UNAVAILABLE).
 * Off, the package is never loaded. @default false
 */
export type TracingOption = boolean | TracingSettings;
