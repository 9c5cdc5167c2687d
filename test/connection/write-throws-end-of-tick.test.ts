// A write() that throws at the end of a tick (or from a completed write's callback) is that
// connection's lost input: nothing escapes as an unhandled rejection or exception, every pending
// request of it settles at once with PROCESS_EXITED, and the other connections' lines of the same
// pass are written.
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Connection } from '../../src/connection/connection.js';
import { ErrorCode, type ExtensionHostError } from '../../src/errors.js';
import type { ChildHandle } from '../../src/transport/child.js';
import { MemoryTransport } from '../../src/transport/memory.js';
import { call, MEM_CONNECTION, settleIo, throwingStdin } from './harness.js';

/** An input that records what it was given, can throw from its next write() and hold its writes' completion. */
function input() {
  const { stdin, state, held, written } = throwingStdin();
  const stdout = new PassThrough();
  const exits: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = [];
  const kill = () => {
    stdout.end();
    setImmediate(() => exits.splice(0).forEach((exit) => exit(0, null)));
  };
  const child: ChildHandle = { pid: undefined, stdin, stdout, kill, onExit: (listener) => void exits.push(listener), onError() {} };
  return { child, state, held, written };
}

const transports: MemoryTransport[] = [];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});

afterEach(async () => {
  process.off('unhandledRejection', onUnhandled);
  await Promise.all(transports.splice(0).map((t) => t.close('test', { graceful: false })));
});

/** A connection over an input() peer; `lost` collects what its writeFailed hook is told (which then throws with `hookThrows`). */
async function connect(name: string, hookThrows = false) {
  const peer = input();
  const transport = new MemoryTransport({ connect: () => peer.child, maxFrameBytes: 1024 * 1024 });
  transports.push(transport);
  await transport.start(() => undefined);
  const lost: ExtensionHostError[] = [];
  let over = false;
  const connection = new Connection(transport, {
    name,
    logPath: `/logs/ext-${name}.log`,
    idPrefix: name,
    maxFrameBytes: 1024 * 1024,
    maxOutboundBytes: 1024 * 1024,
    stuckMs: 60_000,
    stats: { framesOut: 0 },
    diagnose: () => undefined,
    disconnect: () => (over = true),
    isOver: () => over,
    writeFailed: (error) => {
      over = true;
      lost.push(error);
      connection.close();
      if (hookThrows) throw new Error('terminate failed');
    },
  });
  return { peer, connection, lost };
}

/** The error a request settled with, or 'pending' while it has not. */
function track(promise: Promise<unknown>) {
  const seen: { error: ExtensionHostError | 'pending' } = { error: 'pending' };
  promise.then(
    () => (seen.error = 'pending'),
    (e: ExtensionHostError) => (seen.error = e),
  );
  return seen;
}

/** Lets the stream callbacks run, and one macrotask go by (Node reports unhandled rejections after the microtasks). */
async function settle(): Promise<void> {
  await settleIo();
  await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('a write that throws at the end of the tick', () => {
  it('settles the request of that tick at once with PROCESS_EXITED, escapes nowhere, and another connection of the same tick still gets its lines', async () => {
    const a = await connect('alpha');
    const b = await connect('beta');
    a.peer.state.throwNext = true;
    // One tick: a request and an event for each (alpha's first, so its write is the first of the pass).
    const aCall = track(a.connection.request(call('a'), { timeoutMs: 60_000 }));
    a.connection.sendLine('{"type":"event","event":"tick"}\n', 'event');
    const bCall = track(b.connection.request(call('b'), { timeoutMs: 60_000 }));
    b.connection.sendLine('{"type":"event","event":"tock"}\n', 'event');
    await settleIo();
    // At once: no timer moved.
    expect(aCall.error).toMatchObject({ code: ErrorCode.PROCESS_EXITED, extension: 'alpha', logPath: '/logs/ext-alpha.log' });
    expect((aCall.error as ExtensionHostError).message).toBe('alpha: tool_call could not be written: write after destroy; see /logs/ext-alpha.log');
    expect(a.connection.has('alpha:request-1')).toBe(false);
    expect(a.lost).toHaveLength(1);
    expect(a.lost[0]).toMatchObject({ code: ErrorCode.PROCESS_EXITED, extension: 'alpha', logPath: '/logs/ext-alpha.log' });
    expect(a.lost[0]!.message).toMatch(/^alpha: a write to its stdin threw \(write after destroy\); it is being stopped; see \/logs\/ext-alpha\.log$/);
    await settle();
    expect(b.peer.written.join('')).toBe('{"type":"tool_call","name":"b","args":{},"id":"beta:request-1"}\n{"type":"event","event":"tock"}\n');
    expect(bCall.error).toBe('pending');
    expect(a.peer.written).toEqual([]);
    expect(unhandled).toEqual([]);
    b.connection.close();
  });

  it('an owner whose own handling of the lost input throws changes none of that', async () => {
    const a = await connect('alpha', true);
    const b = await connect('beta');
    a.peer.state.throwNext = true;
    const aCall = track(a.connection.request(call('a'), { timeoutMs: 60_000 }));
    const bCall = track(b.connection.request(call('b'), { timeoutMs: 60_000 }));
    await settle();
    expect(aCall.error).toMatchObject({ code: ErrorCode.PROCESS_EXITED, extension: 'alpha' });
    expect(a.lost).toHaveLength(1);
    expect(b.peer.written.join('')).toBe('{"type":"tool_call","name":"b","args":{},"id":"beta:request-1"}\n');
    expect(bCall.error).toBe('pending');
    expect(unhandled).toEqual([]);
    // The pass is whole for the next tick too.
    const again = track(b.connection.request(call('b2'), { timeoutMs: 60_000 }));
    await settle();
    expect(b.peer.written.join('')).toContain('"name":"b2"');
    expect(again.error).toBe('pending');
    b.connection.close();
  });

  it('nor with a request in flight: the next request still settles, and request() does not throw', async () => {
    const a = await connect('alpha', true);
    const first = track(a.connection.request(call('a1'), { timeoutMs: 60_000 }));
    await settle();
    // One in flight: the next request's write (at the end of the tick) throws.
    a.peer.state.throwNext = true;
    let second: ReturnType<typeof track> | undefined;
    expect(() => (second = track(a.connection.request(call('a2'), { timeoutMs: 60_000 })))).not.toThrow();
    await settle();
    expect(second!.error).toMatchObject({ code: ErrorCode.PROCESS_EXITED, extension: 'alpha' });
    expect(first.error).toMatchObject({ code: ErrorCode.PROCESS_EXITED, extension: 'alpha' });
    expect(a.lost).toHaveLength(1);
    expect(unhandled).toEqual([]);
  });

  it('a chunk that carried several requests settles each of them, and the one in flight, at once; the throw in the completed write\'s callback escapes nowhere', async () => {
    const a = await connect('alpha');
    a.peer.state.hold = true;
    const first = track(a.connection.request(call('first'), { timeoutMs: 60_000 }));
    await settle();
    expect(a.peer.held).toHaveLength(1);
    // Queued behind the write in progress, in later ticks: one chunk when it completes.
    const queued = [track(a.connection.request(call('q1'), { timeoutMs: 60_000 }))];
    await settle();
    queued.push(track(a.connection.request(call('q2'), { timeoutMs: 60_000 })), track(a.connection.request(call('q3'), { timeoutMs: 60_000 })));
    await settle();
    expect(a.peer.written).toHaveLength(1);
    a.peer.state.throwNext = true;
    a.peer.state.hold = false;
    while (a.peer.held.length > 0) {
      a.peer.held.shift()!();
      await settleIo();
    }
    await settle();
    for (const [i, request] of queued.entries()) {
      expect(request.error).toMatchObject({ code: ErrorCode.PROCESS_EXITED, extension: 'alpha' });
      expect((request.error as ExtensionHostError).message).toBe(`alpha: tool_call could not be written: write after destroy; see /logs/ext-alpha.log`);
      expect(a.connection.has(`alpha:request-${i + 2}`)).toBe(false);
    }
    expect(first.error).toMatchObject({ code: ErrorCode.PROCESS_EXITED, extension: 'alpha' });
    expect((first.error as ExtensionHostError).message).toBe('alpha: tool_call will not be answered: a later write to its stdin threw: write after destroy; see /logs/ext-alpha.log');
    expect(a.lost).toHaveLength(1);
    expect(unhandled).toEqual([]);
  });

  it('every pending request settles, the one in flight too, and the owner is told once', async () => {
    const a = await connect('alpha');
    const first = track(a.connection.request(call('first'), { timeoutMs: 60_000 }));
    await settle();
    a.peer.state.throwNext = true;
    // With one in flight, the next request's write throws.
    const second = track(a.connection.request(call('second'), { timeoutMs: 60_000 }));
    expect((second.error as ExtensionHostError | 'pending') === 'pending').toBe(true);
    await settleIo();
    expect(second.error).toMatchObject({ code: ErrorCode.PROCESS_EXITED, message: 'alpha: tool_call could not be written: write after destroy; see /logs/ext-alpha.log' });
    expect(first.error).toMatchObject({ code: ErrorCode.PROCESS_EXITED });
    expect(a.lost).toHaveLength(1);
    await settle();
    expect(unhandled).toEqual([]);
  });

  it('a request whose write throws rejects typed (PROCESS_EXITED)', async () => {
    const a = await connect('alpha');
    a.peer.state.throwNext = true;
    await expect(a.connection.request(call('m'), { timeoutMs: 60_000 })).rejects.toMatchObject({ code: 'PROCESS_EXITED' });
  });
});

it('a write that throws with no writeFailed hook settles the requests and leaves the connection usable', async () => {
  vi.useFakeTimers();
  try {
    const peer = input();
    const transport = new MemoryTransport({ connect: () => peer.child, maxFrameBytes: 1024 * 1024 });
    transports.push(transport);
    await transport.start(() => undefined);
    const connection = new Connection(transport, {
      ...MEM_CONNECTION,
      maxOutboundBytes: 1024 * 1024,
      stuckMs: 1000,
      stats: { framesOut: 0 },
      diagnose: () => undefined,
      disconnect: () => undefined,
      isOver: () => false,
    });
    peer.state.throwNext = true;
    const lost = track(connection.request(call('lost'), { timeoutMs: 60_000 }));
    await settleIo();
    expect(lost.error).toMatchObject({ code: ErrorCode.PROCESS_EXITED });
    connection.sendLine('{"type":"event","event":"after"}\n', 'event');
    await settleIo();
    expect(peer.written).toEqual(['{"type":"event","event":"after"}\n']);
    connection.close();
  } finally {
    vi.useRealTimers();
  }
});
