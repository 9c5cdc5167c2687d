import type { TracerProvider } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expectTypeOf, it } from 'vitest';
import type { ErrorCode, ExtensionHostOptions, HostCallOptions, TracerProviderLike, TracingOption, TracingSettings } from '../../src/index.js';

describe('the tracing option', () => {
  it('is a boolean or { tracerProvider }, optional', () => {
    expectTypeOf<ExtensionHostOptions['tracing']>().toEqualTypeOf<TracingOption | undefined>();
    expectTypeOf<TracingOption>().toEqualTypeOf<boolean | TracingSettings>();
    // Structural (the .d.ts never imports the optional peer): every real provider is one.
    expectTypeOf<TracingSettings['tracerProvider']>().toEqualTypeOf<TracerProviderLike | undefined>();
    expectTypeOf<TracerProvider>().toMatchTypeOf<TracerProviderLike>();
    expectTypeOf<BasicTracerProvider>().toMatchTypeOf<TracerProviderLike>();
    expectTypeOf<{ tracing: { tracerProvider: TracerProvider } }>().toMatchTypeOf<ExtensionHostOptions>();
    expectTypeOf<{ tracing: true }>().toMatchTypeOf<ExtensionHostOptions>();
    expectTypeOf<{ tracing: { tracerProvider: BasicTracerProvider } }>().toMatchTypeOf<ExtensionHostOptions>();
    expectTypeOf<{ tracing: {} }>().toMatchTypeOf<ExtensionHostOptions>();
    expectTypeOf<{ tracing: { tracerProvider: { getTracer: 1 } } }>().not.toMatchTypeOf<ExtensionHostOptions>();
    expectTypeOf<{ tracing: 'yes' }>().not.toMatchTypeOf<ExtensionHostOptions>();
  });

  it('callTool takes the model tool call id; TRACING_UNAVAILABLE is an error code', () => {
    expectTypeOf<HostCallOptions['toolCallId']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<'TRACING_UNAVAILABLE'>().toMatchTypeOf<ErrorCode>();
  });
});
