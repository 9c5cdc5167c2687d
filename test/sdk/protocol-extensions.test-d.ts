import { describe, expectTypeOf, it } from 'vitest';
import { defineExtension, type ProgressUpdate, type RequestContext } from '../../src/sdk/index.js';

const ext = defineExtension({ name: 'types' });

describe('SDK types: cancel, progress, trace', () => {
  it('gives every request handler a signal, progress() and the trace context', () => {
    ext.tool('t', {}, (_args, ctx) => {
      expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>();
      expectTypeOf(ctx.progress).toEqualTypeOf<(update: ProgressUpdate) => boolean>();
      expectTypeOf(ctx.traceparent).toEqualTypeOf<string | undefined>();
      expectTypeOf(ctx.tracestate).toEqualTypeOf<string | undefined>();
      ctx.progress({ message: 'half', progress: 1, total: 2 });
      ctx.progress({});
      // @ts-expect-error -- progress is a number
      ctx.progress({ progress: '1' });
      // @ts-expect-error -- the update is an object
      ctx.progress('half');
      return 'x';
    });
    ext.command('c', (_args, ctx) => {
      expectTypeOf(ctx).toEqualTypeOf<RequestContext>();
      expectTypeOf(ctx.progress({ message: 'x' })).toEqualTypeOf<boolean>();
    });
    ext.intercept('tool_call', (_input, ctx) => {
      expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>();
      expectTypeOf(ctx.traceparent).toEqualTypeOf<string | undefined>();
    });
  });

  it('types ProgressUpdate fields as optional', () => {
    expectTypeOf<ProgressUpdate>().toEqualTypeOf<{
      message?: string | undefined;
      progress?: number | undefined;
      total?: number | undefined;
    }>();
  });
});
