import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { FrameWriter } from '../../src/sdk/writer.js';

it('many runs over one output stream leave one error guard, not one listener per run', () => {
  const out = new PassThrough();
  for (let i = 0; i < 20; i++) {
    const writer = new FrameWriter(out, (line, cb) => out.write(line, cb), () => undefined);
    writer.detach();
  }
  expect(out.listenerCount('error')).toBe(1);
  expect(out.listenerCount('close')).toBe(0);
  expect(() => out.emit('error', new Error('EPIPE after the run'))).not.toThrow();
});
