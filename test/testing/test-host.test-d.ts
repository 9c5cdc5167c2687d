import { describe, expectTypeOf, it } from 'vitest';
import type { PressKeyOptions, TestHost, WaitOptions } from '../../src/testing/index.js';

describe('test kit types: panels', () => {
  it('pressKey takes a deadline and the panel\'s extension', () => {
    expectTypeOf<PressKeyOptions>().toExtend<WaitOptions>();
    expectTypeOf<PressKeyOptions['extension']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<TestHost['pressKey']>().parameter(3).toEqualTypeOf<PressKeyOptions | undefined>();
  });
});
