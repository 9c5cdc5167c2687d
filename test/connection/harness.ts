// A Connection over a MemoryTransport over an in-memory extension: the owner's part (decoding
// lines, diagnostics, disconnecting) is played by the test.
import { Writable } from 'node:stream';
import { Connection, type ConnectionDiagnostic, type ConnectionOptions } from '../../src/connection/connection.js';
import type { ExtensionHostError } from '../../src/errors.js';
import type { ExtensionFrame } from '../../src/protocol/frames.js';
import { MemoryTransport } from '../../src/transport/memory.js';
import { type Frame, memoryExtension } from '../helpers/memory-extension.js';

export interface Harness {
  ext: ReturnType<typeof memoryExtension>;
  transport: MemoryTransport;
  connection: Connection;
  stats: { framesOut: number };
  diagnostics: { code: ConnectionDiagnostic; message: string }[];
  disconnects: { error: ExtensionHostError; reason: string }[];
  /** Answers a request the extension received. */
  answer: (request: Frame, frame?: Frame) => void;
  dispose: () => Promise<void>;
}

/** The identity and frame bound of the in-memory connections of these tests. */
export const MEM_CONNECTION = { name: 'mem', logPath: '/logs/ext-mem.log', idPrefix: 'mem', maxFrameBytes: 1024 * 1024 } as const;

/** Starts the transport; lines from the extension are parsed and handed to `connection.settle()`. */
export async function connectionHarness(options: Partial<ConnectionOptions> = {}, answer?: (frame: Frame) => Frame | undefined): Promise<Harness> {
  const ext = memoryExtension(answer);
  const transport = new MemoryTransport({ connect: () => ext.child, maxFrameBytes: 1024 * 1024, shutdownMs: 100, killMs: 100 });
  const stats = { framesOut: 0 };
  const diagnostics: Harness['diagnostics'] = [];
  const disconnects: Harness['disconnects'] = [];
  let over = false;
  const connection = new Connection(transport, {
    ...MEM_CONNECTION,
    maxOutboundBytes: 8 * 1024 * 1024,
    stuckMs: 60_000,
    stats,
    diagnose: (code, message) => diagnostics.push({ code, message }),
    disconnect: (error, reason) => {
      over = true;
      disconnects.push({ error, reason });
    },
    isOver: () => over,
    ...options,
  });
  transport.on('line', (line) => {
    const frame = JSON.parse(line) as ExtensionFrame & { id: string };
    connection.settle(frame.id, frame);
  });
  await transport.start();
  return {
    ext,
    transport,
    connection,
    stats,
    diagnostics,
    disconnects,
    answer: (request, frame = { type: 'tool_result', content: [{ type: 'text', text: 'ok' }] }) => ext.send({ ...frame, id: request.id }),
    dispose: () => transport.close('test', { graceful: false }),
  };
}

export const call = (name = 'echo', args: Frame = {}) => ({ type: 'tool_call' as const, name, args });

export async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    const value = (await promise) as { content?: { text?: string }[] };
    return `ok ${value.content?.[0]?.text ?? ''}`.trimEnd();
  } catch (err) {
    return (err as ExtensionHostError).code;
  }
}

/** Lets stream callbacks and microtasks run without moving the fake clock. */
export async function settleIo(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => process.nextTick(resolve));
}

/**
 * A stdin that can throw from its next write() (as an in-memory one does after destroy) and hold
 * its writes' completion (`state.hold`; `held` calls them back). `written`: the chunks it took.
 */
export function throwingStdin(): { stdin: Writable; state: { hold: boolean; throwNext: boolean }; held: (() => void)[]; written: string[] } {
  const held: (() => void)[] = [];
  const written: string[] = [];
  const state = { hold: false, throwNext: false };
  const stdin = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      // The transport's empty write behind a chunk left in progress is its completion callback.
      if (chunk.length > 0) written.push(chunk.toString());
      if (state.hold) held.push(() => callback());
      else callback();
    },
  });
  const write = stdin.write.bind(stdin) as (...args: unknown[]) => boolean;
  stdin.write = ((...args: unknown[]) => {
    if (state.throwNext) {
      state.throwNext = false;
      throw new Error('write after destroy');
    }
    return write(...args);
  }) as typeof stdin.write;
  return { stdin, state, held, written };
}
