// StreamTransport.write(): a chunk the stream takes at once needs no callback (`true`); one left
// in progress reports its completion through `done`, once, after the chunk (and any before it) is taken.
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildHandle } from '../../src/transport/child.js';
import { MemoryTransport } from '../../src/transport/memory.js';

/** An input whose writes complete when the test says so (or at once, with `sync`). */
function input(sync: boolean) {
  const chunks: string[] = [];
  const held: (() => void)[] = [];
  const stdin = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      if (sync) callback();
      else held.push(() => callback());
    },
  });
  const stdout = new PassThrough();
  const exits: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = [];
  const child: ChildHandle = {
    pid: undefined,
    stdin,
    stdout,
    kill: () => {
      stdout.end();
      for (const exit of exits.splice(0)) exit(0, null);
    },
    onExit: (listener) => void exits.push(listener),
    onError() {},
  };
  return { child, chunks, release: () => held.shift()?.(), held };
}

let transport: MemoryTransport | undefined;
afterEach(async () => {
  await transport?.close('test', { graceful: false });
  transport = undefined;
});

describe('StreamTransport.write', () => {
  it('returns true for a chunk taken at once, and never calls done', async () => {
    const peer = input(true);
    transport = new MemoryTransport({ connect: () => peer.child, maxFrameBytes: 1024 });
    await transport.start(() => undefined);
    const done: string[] = [];
    expect(transport.write('a\n', () => done.push('a'))).toBe(true);
    expect(transport.writing).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toEqual([]);
    expect(peer.chunks).toEqual(['a\n']);
  });

  it('returns false for a chunk left in progress; done runs once it is taken, in order with the chunks before it', async () => {
    const peer = input(false);
    transport = new MemoryTransport({ connect: () => peer.child, maxFrameBytes: 1024 });
    await transport.start(() => undefined);
    const done: string[] = [];
    expect(transport.write('a\n', () => done.push('a'))).toBe(false);
    expect(transport.writing).toBe(true);
    expect(transport.write('b\n', () => done.push('b'))).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toEqual([]);
    // 'a', then whatever the transport put behind it to learn of its completion.
    while (peer.held.length > 0) {
      peer.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(done).toEqual(['a', 'b']);
    expect(peer.chunks.join('')).toBe('a\nb\n');
    expect(transport.writing).toBe(false);
  });
});
