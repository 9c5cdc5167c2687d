import { describe, expectTypeOf, it } from 'vitest';
import type { ExtensionHostOptions, RateLimitOptions, RateLimits } from '../../src/index.js';

describe('rate limit types', () => {
  it('rateLimits is an optional host option of five optional numbers', () => {
    expectTypeOf<ExtensionHostOptions['rateLimits']>().toEqualTypeOf<RateLimits | undefined>();
    expectTypeOf<RateLimitOptions['rateLimits']>().toEqualTypeOf<RateLimits | undefined>();
    expectTypeOf<RateLimits['submit']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<RateLimits['notify']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<RateLimits['windowMs']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<RateLimits['clearNotes']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<RateLimits['panelRender']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<{ rateLimits: { notify: typeof Infinity } }>().toMatchTypeOf<ExtensionHostOptions>();
  });
});
