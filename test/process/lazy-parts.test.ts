// What an extension makes only on first use (docs/performance.md, "Performance v2, part 2") still
// behaves as before when it is used late: the exit promise read after the end, the transport's
// `drain` after a send() that the stream refused, and diagnostics from a process that had none.
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildHandle } from '../../src/transport/child.js';
import { MemoryTransport } from '../../src/transport/memory.js';
import type { ProcessDiagnostic } from '../../src/process/extension-process.js';
import { tempDir } from '../helpers/fixtures.js';
import { memoryExtension, startMemoryProcess } from '../helpers/memory-extension.js';
import { WAIT_MS, withDeadline } from '../helpers/wait.js';

const dirs: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of dirs.splice(0)) cleanup();
});

function dir(): string {
  const { dir: path, cleanup } = tempDir();
  dirs.push(cleanup);
  return path;
}

describe('parts made on first use', { timeout: 10_000 }, () => {
  it('exited, first read after the process ended, resolves with how it ended', async () => {
    const ext = memoryExtension();
    const proc = await startMemoryProcess(ext, dir());
    const ended = withDeadline('exit event', WAIT_MS, (resolve) => {
      proc.once('exit', resolve);
      return () => proc.off('exit', resolve);
    });
    await proc.stop();
    const info = await ended;
    await expect(proc.exited).resolves.toEqual(info);
    expect(proc.exited).toBe(proc.exited);
  });

  it('a diagnostic from a process that had none is reported (logged and emitted)', async () => {
    const ext = memoryExtension();
    const proc = await startMemoryProcess(ext, dir());
    const seen = withDeadline<ProcessDiagnostic>('diagnostic', WAIT_MS, (resolve) => {
      proc.once('diagnostic', resolve);
      return () => proc.off('diagnostic', resolve);
    });
    ext.send({ type: 'no_such_frame' });
    expect((await seen).code).toBe('UNKNOWN_TYPE');
    await proc.stop();
  });

  it("send() refused by the stream: 'drain' follows once the peer reads", async () => {
    let release: (() => void) | undefined;
    const stdin = new Writable({
      highWaterMark: 4,
      write(_chunk, _encoding, callback) {
        release = callback;
      },
    });
    const stdout = new PassThrough();
    const child: ChildHandle = { pid: undefined, stdin, stdout, kill: () => stdout.end(), onExit() {}, onError() {} };
    const transport = new MemoryTransport({ connect: () => child, maxFrameBytes: 1024, shutdownMs: 100, killMs: 100 });
    await transport.start(() => undefined);
    expect(transport.send('{"type":"shutdown"}')).toBe(false);
    expect(transport.send('{"type":"shutdown"}')).toBe(false);
    let drains = 0;
    const drained = withDeadline('drain', WAIT_MS, (resolve) => {
      const onDrain = () => {
        drains++;
        resolve(undefined);
      };
      transport.on('drain', onDrain);
      return () => transport.off('drain', onDrain);
    });
    while (release !== undefined) {
      const next = release;
      release = undefined;
      next();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await drained;
    expect(drains).toBe(1);
    stdin.destroy();
    stdout.destroy();
  });
});
