// The `restart` option is checked at construction like every other: INVALID_OPTIONS naming the field.
import { describe, expect, it } from 'vitest';
import { ErrorCode, ExtensionHost } from '../../src/index.js';
import { constructionError } from '../helpers/host.js';

describe('ExtensionHost restart option', () => {
  it.each([
    [{ restart: 'yes' }, 'restart', 'a boolean or an object, got "yes"'],
    [{ restart: [1] }, 'restart', 'a boolean or an object, got an array'],
    [{ restart: { maxRestarts: -1 } }, 'restart.maxRestarts', 'a whole number from 0 to 100, got -1'],
    [{ restart: { maxRestarts: 1.5 } }, 'restart.maxRestarts', 'a whole number from 0 to 100'],
    [{ restart: { maxRestarts: 101 } }, 'restart.maxRestarts', 'a whole number from 0 to 100'],
    [{ restart: { windowMs: 0 } }, 'restart.windowMs', 'a number of ms > 0, or Infinity, got 0'],
    [{ restart: { windowMs: Number.NaN } }, 'restart.windowMs', 'got NaN'],
    [{ restart: { backoffMs: [] } }, 'restart.backoffMs', 'an array of 1 to 100 numbers of ms from 0 to 2147483647'],
    [{ restart: { backoffMs: 250 } }, 'restart.backoffMs', 'an array of 1 to 100'],
    [{ restart: { backoffMs: [250, -1] } }, 'restart.backoffMs', 'an array of 1 to 100'],
    [{ restart: { backoffMs: [Infinity] } }, 'restart.backoffMs', 'an array of 1 to 100'],
    [{ restart: { backoffMs: Array.from({ length: 101 }, () => 1) } }, 'restart.backoffMs', 'an array of 1 to 100'],
    [{ restart: { jitter: 2 } }, 'restart.jitter', 'a number from 0 to 1, got 2'],
  ])('%j -> INVALID_OPTIONS naming %s', (options, option, expected) => {
    const error = constructionError(options);
    expect(error.code).toBe(ErrorCode.INVALID_OPTIONS);
    expect(error.message).toContain(`option ${option} must be`);
    expect(error.message).toContain(expected);
  });

  it('refuses an unknown field (a misspelling would silently mean the default)', () => {
    const error = constructionError({ restart: { maxRestart: 3 } });
    expect(error.code).toBe(ErrorCode.INVALID_OPTIONS);
    expect(error.message).toBe('ExtensionHost option restart has an unknown field "maxRestart" (known: maxRestarts, windowMs, backoffMs, jitter)');
  });

  it('accepts booleans, an empty policy, undefined fields and the edges of each range', () => {
    for (const restart of [true, false, undefined, {}, { maxRestarts: undefined }, { maxRestarts: 0, windowMs: Infinity, backoffMs: [0], jitter: 0 }, { maxRestarts: 100, backoffMs: [2 ** 31 - 1], jitter: 1 }]) {
      expect(() => new ExtensionHost({ restart })).not.toThrow();
    }
  });
});
