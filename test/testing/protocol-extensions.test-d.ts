import { describe, expectTypeOf, it } from 'vitest';
import type { ProgressRecord, ProtocolCapability, TestCallOptions, TestHost, TestHostOptions, TestRecord } from '../../src/testing/index.js';

describe('test kit types: protocol extensions', () => {
  it('types capabilities, call options and progress records', () => {
    expectTypeOf<TestHostOptions['capabilities']>().toEqualTypeOf<readonly ProtocolCapability[] | undefined>();
    expectTypeOf<ProtocolCapability>().toEqualTypeOf<'cancel' | 'progress' | 'trace' | 'unregister'>();
    expectTypeOf<TestCallOptions['signal']>().toEqualTypeOf<AbortSignal | undefined>();
    expectTypeOf<TestCallOptions['traceparent']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<TestCallOptions['onProgress']>().toEqualTypeOf<((progress: ProgressRecord) => void) | undefined>();
    expectTypeOf<TestRecord['progress']>().toEqualTypeOf<ProgressRecord[]>();
    expectTypeOf<ProgressRecord['progress']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<TestHost['callTool']>().parameter(2).toEqualTypeOf<TestCallOptions | undefined>();
  });
});
