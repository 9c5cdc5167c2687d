// ExtensionHostError as data: what an embedder logs or sends with JSON.stringify.
import { describe, expect, it } from 'vitest';
import { ErrorCode, ExtensionHostError, toHostError } from '../src/errors.js';

describe('ExtensionHostError.toJSON', () => {
  it('keeps the message, code, extension, log, exit and the cause message through JSON.stringify', () => {
    const error = new ExtensionHostError(ErrorCode.PROCESS_EXITED, 'kitchen exited with code 7', {
      extension: 'kitchen',
      logPath: '/logs/ext-kitchen.log',
      exitCode: 7,
      signal: null,
      cause: new Error('EPIPE'),
    });
    expect(JSON.parse(JSON.stringify({ failure: error }))).toEqual({
      failure: { name: 'ExtensionHostError', code: 'PROCESS_EXITED', message: 'kitchen exited with code 7', extension: 'kitchen', logPath: '/logs/ext-kitchen.log', exitCode: 7, signal: null, cause: 'EPIPE' },
    });
  });

  it('writes a non-Error cause as a string and leaves absent fields out', () => {
    expect(JSON.parse(JSON.stringify(toHostError('plain', ErrorCode.BAD_RESPONSE)))).toEqual({ name: 'ExtensionHostError', code: 'BAD_RESPONSE', message: 'plain', cause: 'plain' });
    expect(JSON.parse(JSON.stringify(new ExtensionHostError(ErrorCode.TIMEOUT, 'late')))).toEqual({ name: 'ExtensionHostError', code: 'TIMEOUT', message: 'late' });
  });
});
