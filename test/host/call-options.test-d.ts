import { describe, expectTypeOf, it } from 'vitest';
import type { CallProgress, ExtensionHost, HostCallOptions, HostEvents, ToolProgress } from '../../src/index.js';

describe('call options: progress and deadlines that progress restarts', () => {
  it('HostCallOptions takes onProgress, resetTimeoutOnProgress, maxTotalTimeoutMs', () => {
    expectTypeOf<HostCallOptions['onProgress']>().toEqualTypeOf<((progress: CallProgress) => void) | undefined>();
    expectTypeOf<HostCallOptions['resetTimeoutOnProgress']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<HostCallOptions['maxTotalTimeoutMs']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Parameters<ExtensionHost['callTool']>[2]>().toEqualTypeOf<HostCallOptions | undefined>();
  });

  it('progress reports are typed; tool:progress carries the tool', () => {
    expectTypeOf<CallProgress>().toEqualTypeOf<{ extension: string; requestId: string; message?: string | undefined; progress?: number | undefined; total?: number | undefined }>();
    expectTypeOf<ToolProgress>().toMatchTypeOf<CallProgress & { tool: string }>();
    expectTypeOf<HostEvents['tool:progress']>().toEqualTypeOf<[progress: ToolProgress]>();
  });
});
