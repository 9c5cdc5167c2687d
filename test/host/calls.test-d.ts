import { describe, expectTypeOf, it } from 'vitest';
import type { CommandOutcome, ExtensionHost, ExtensionHostError } from '../../src/index.js';

describe('callTool and runCommand agree on a host that is not running', () => {
  it('an unhandled outcome may carry a typed failure (NOT_STARTED)', () => {
    type Unhandled = Extract<CommandOutcome, { handled: false }>;
    expectTypeOf<Unhandled['failure']>().toEqualTypeOf<ExtensionHostError | undefined>();
  });

  it('callTool takes no args (they default to {})', () => {
    expectTypeOf<ExtensionHost['callTool']>().toBeCallableWith('echo');
    expectTypeOf<Parameters<ExtensionHost['callTool']>[1]>().toEqualTypeOf<Record<string, unknown> | undefined>();
  });
});
