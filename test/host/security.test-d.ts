import { describe, expectTypeOf, it } from 'vitest';
import type { EnvOption, ExtensionHostOptions, ExtensionInfo, PermissionPolicy, Scope } from '../../src/index.js';

describe('security options', () => {
  it('env takes a mode or the exact environment; permissions take scopes', () => {
    expectTypeOf<'minimal'>().toMatchTypeOf<EnvOption>();
    expectTypeOf<{ PATH: string }>().toMatchTypeOf<EnvOption>();
    expectTypeOf<ExtensionHostOptions['env']>().toEqualTypeOf<EnvOption | undefined>();
    expectTypeOf<ExtensionHostOptions['permissions']>().toEqualTypeOf<PermissionPolicy | undefined>();
    expectTypeOf<'all'>().toMatchTypeOf<Scope>();
    expectTypeOf<{ intercept: ['tool_call'] }>().toMatchTypeOf<Scope>();
    expectTypeOf<{ intercept: ['nope'] }>().not.toMatchTypeOf<Scope>();
    expectTypeOf<ExtensionInfo['permissions']>().toEqualTypeOf<{ granted: string[]; requested: string[] | undefined }>();
  });
});
