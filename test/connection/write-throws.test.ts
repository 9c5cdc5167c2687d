// A write() that throws (an in-memory input after destroy) leaves the writer's accounting whole: a
// later write that completes is progress for the stuck watch, and a later request that was written
// is known to be written when its deadline comes.
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Connection, type ConnectionDiagnostic } from '../../src/connection/connection.js';
import { ErrorCode, type ExtensionHostError } from '../../src/errors.js';
import type { ChildHandle } from '../../src/transport/child.js';
import { MemoryTransport } from '../../src/transport/memory.js';
import { call, MEM_CONNECTION, outcome, settleIo, throwingStdin } from './harness.js';

/** An input that can throw from its next write() and hold its writes' completion. */
function input() {
  const { stdin, state, held } = throwingStdin();
  const stdout = new PassThrough();
  const child: ChildHandle = { pid: undefined, stdin, stdout, kill: () => stdout.end(), onExit() {}, onError() {} };
  return { child, state, held };
}

let transport: MemoryTransport | undefined;

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(async () => {
  const closed = transport?.close('test', { graceful: false });
  await vi.runAllTimersAsync();
  await closed;
  transport = undefined;
  vi.useRealTimers();
});

/** A connection whose second request's write threw (the first is still in flight). */
async function afterThrowingWrite() {
  const peer = input();
  transport = new MemoryTransport({ connect: () => peer.child, maxFrameBytes: 1024 * 1024 });
  await transport.start(() => undefined);
  const diagnostics: ConnectionDiagnostic[] = [];
  const disconnects: ExtensionHostError[] = [];
  const connection = new Connection(transport, {
    ...MEM_CONNECTION,
    maxOutboundBytes: 1024 * 1024,
    stuckMs: 1000,
    stats: { framesOut: 0 },
    diagnose: (code) => diagnostics.push(code),
    disconnect: (error) => disconnects.push(error),
    isOver: () => disconnects.length > 0,
  });
  void outcome(connection.request(call('first'), { timeoutMs: 60_000 }));
  await settleIo();
  // With one in flight the next request is written at once: its write throws.
  peer.state.throwNext = true;
  const second = connection.request(call('second'), { timeoutMs: 60_000 });
  await expect(second).rejects.toThrow('write after destroy');
  const error = (await second.catch((e: unknown) => e)) as ExtensionHostError;
  return { peer, connection, diagnostics, disconnects, error };
}

describe('a write that throws', () => {
  it('fails its request at once with a typed error naming the extension and its log, and leaves it pending nowhere', async () => {
    const { connection, error } = await afterThrowingWrite();
    expect(error).toMatchObject({ code: ErrorCode.PROCESS_EXITED, extension: 'mem', logPath: '/logs/ext-mem.log' });
    expect(error.message).toMatch(/^mem: tool_call could not be written: write after destroy/);
    expect(connection.has('mem:2')).toBe(false);
    connection.close();
  });

  it('a later write left in progress that completes within stuckMs is progress: no STDIN_STUCK', async () => {
    const { peer, connection, diagnostics } = await afterThrowingWrite();
    peer.state.hold = true;
    connection.sendLine('{"type":"event","event":"tick"}\n', 'event');
    await settleIo();
    expect(peer.held.length).toBeGreaterThan(0);
    await vi.advanceTimersByTimeAsync(500);
    while (peer.held.length > 0) {
      peer.held.shift()!();
      await settleIo();
    }
    await vi.advanceTimersByTimeAsync(1000);
    expect(diagnostics).toEqual([]);
    connection.close();
  });

  it('a later request written at once that gets no answer is a TIMEOUT, not a WRITE_TIMEOUT', async () => {
    const { connection, disconnects } = await afterThrowingWrite();
    const hook = outcome(connection.request(call('hook'), { timeoutMs: 100, closeStdinOnWriteTimeout: true }));
    await settleIo();
    await vi.advanceTimersByTimeAsync(100);
    expect(await hook).toBe(ErrorCode.TIMEOUT);
    expect(disconnects).toEqual([]);
    expect(transport!.writable).toBe(true);
    connection.close();
  });
});
