// Options are checked once, at construction: a typed INVALID_OPTIONS error naming the option.
import { describe, expect, it } from 'vitest';
import { ErrorCode, ExtensionHost } from '../../src/index.js';
import { fixture } from '../helpers/fixtures.js';
import { constructionError, hostKit, textOf } from '../helpers/host.js';

describe('ExtensionHost options', () => {
  it.each([
    [{ cwd: 42 }, 'cwd', 'a string, got 42'],
    [{ appName: '' }, 'appName', 'a non-empty string'],
    [{ explicit: 'a-string' }, 'explicit', 'an array of strings, got "a-string"'],
    [{ explicit: ['ok', 7] }, 'explicit', 'an array of strings'],
    [{ discover: 'yes' }, 'discover', 'a boolean'],
    [{ timeouts: { tool: Number.NaN } }, 'timeouts.tool', 'got NaN'],
    [{ timeouts: { hello: Number.NaN } }, 'timeouts.hello', 'got NaN'],
    [{ timeouts: { intercept: -1 } }, 'timeouts.intercept', 'a number of ms >= 0'],
    [{ timeouts: { shutdown: '100' } }, 'timeouts.shutdown', 'got "100"'],
    [{ timeouts: { someFutureTimeout: -5 } }, 'timeouts.someFutureTimeout', '>= 0'],
    [{ timeouts: { hello: Infinity } }, 'timeouts.hello', 'a number of ms from 0 to 2147483647'],
    [{ timeouts: { shutdown: 2 ** 31 } }, 'timeouts.shutdown', 'from 0 to'],
    [{ timeouts: 5000 }, 'timeouts', 'an object'],
    [{ callbacks: { warning: 'log it' } }, 'callbacks.warning', 'a function'],
    [{ maxFrameBytes: 0 }, 'maxFrameBytes', 'a whole number of bytes >= 1'],
    [{ maxFrameBytes: Infinity }, 'maxFrameBytes', 'a whole number of bytes'],
    [{ logMaxBytes: -1 }, 'logMaxBytes', 'or Infinity (no cap)'],
    [{ inMemory: [{ name: 'x' }] }, 'inMemory', 'connect: function'],
    [{ builtinTools: [1] }, 'builtinTools', 'an array of strings'],
    [{ env: 'PATH=/bin' }, 'env', 'an object'],
    [{ interceptPolicy: { guard: 'block' } }, 'interceptPolicy["guard"]', 'an object'],
    [{ interceptPolicy: { guard: { onFailure: 'deny' } } }, 'interceptPolicy["guard"].onFailure', "'allow' or 'block'"],
    [{ revalidateIntercepts: 1 }, 'revalidateIntercepts', 'a boolean'],
    [{ rateLimits: { submit: -1 } }, 'rateLimits', 'whole numbers >= 0 or Infinity'],
    [{ rateLimits: { notify: 1.5 } }, 'rateLimits', 'whole numbers >= 0 or Infinity'],
    [{ rateLimits: { windowMs: 0 } }, 'rateLimits', 'windowMs from 1 to 2147483647'],
    [{ rateLimits: 10 }, 'rateLimits', '{ submit?, notify?, clearNotes?, panelRender?, openPanel?, windowMs? }'],
    [null, '(the options object)', 'an object, got null'],
  ])('%j -> INVALID_OPTIONS naming %s', (options, option, expected) => {
    const error = constructionError(options);
    expect(error.code).toBe(ErrorCode.INVALID_OPTIONS);
    expect(error.message).toContain(`option ${option} must be`);
    expect(error.message).toContain(expected);
  });

  it('accepts Infinity (no deadline), 0, undefined for any option, and an empty object', () => {
    expect(() => new ExtensionHost({ timeouts: { tool: Infinity, command: 0, hello: undefined }, logMaxBytes: Infinity, cwd: undefined })).not.toThrow();
    expect(() => new ExtensionHost()).not.toThrow();
    expect(() => new ExtensionHost({ interceptPolicy: { guard: { onFailure: 'block' }, other: {} } })).not.toThrow();
    expect(() => new ExtensionHost({ rateLimits: { submit: 0, notify: Infinity, windowMs: 1 } })).not.toThrow();
  });
});

describe('callTool inputs the API promises to survive', () => {
  const kit = hostKit();

  it('cyclic, BigInt and very deep args, and a NaN deadline, resolve isError + INVALID_ARGUMENT; the extension keeps answering', async () => {
    const { host } = await kit.start({ explicit: [fixture('extensions/kitchen')] });
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    const cases: [Record<string, unknown>, { timeoutMs?: number } | undefined, string][] = [
      [cyclic, undefined, 'is cyclic'],
      [{ n: 10n }, undefined, 'contains a BigInt'],
      [deep, undefined, 'nests deeper than 1000 levels'],
      [{ a: 1 }, { timeoutMs: Number.NaN }, 'timeoutMs must be a number >= 0'],
      [{ a: 1 }, { timeoutMs: -1 }, 'timeoutMs must be a number >= 0'],
    ];
    for (const [args, options, message] of cases) {
      const result = await host.callTool('echo', args, options);
      expect(result).toMatchObject({ isError: true, extension: 'kitchen', failure: { code: ErrorCode.INVALID_ARGUMENT } });
      expect(result.failure?.message).toContain(message);
    }
    expect(textOf(await host.callTool('echo', { ok: true }))).toBe('{"ok":true}');
  });
});
