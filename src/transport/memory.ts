// Extensions that run in this process (`inMemory`, the test kit): a pair of streams instead of a
// child's pipes; "exit" is the end of the extension's output.
import type { Readable, Writable } from 'node:stream';
import type { ChildHandle } from './child.js';
import { StreamTransport, type StreamTransportOptions } from './streams.js';

/** What an in-memory extension hands the host per start (see `InMemoryExtension.connect`). */
export interface MemoryStreams {
  /** The host writes the extension's input here. */
  input: Writable;
  /** The host reads the extension's output from here. */
  output: Readable;
  close?: (() => void) | undefined;
}

export interface MemoryTransportOptions extends StreamTransportOptions {
  /** Called once, by start(): the streams (and the exit) of the extension. */
  connect: () => ChildHandle;
}

export class MemoryTransport extends StreamTransport {
  private readonly connect: () => ChildHandle;

  constructor(options: MemoryTransportOptions) {
    super(options);
    this.connect = options.connect;
  }

  protected get describe(): string {
    return '(in-memory)';
  }

  protected open(): Promise<ChildHandle> {
    return Promise.resolve(this.connect());
  }
}

/** Adapts an in-memory extension's streams to the child interface the stream transport drives. */
export function memoryChild(memory: { connect: () => MemoryStreams }): ChildHandle {
  const { input, output, close } = memory.connect();
  const exitListeners: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = [];
  let exited = false;
  const exit = () => {
    if (exited) return;
    exited = true;
    for (const listener of exitListeners) listener(0, null);
  };
  output.once('end', () => setImmediate(exit));
  output.once('close', () => setImmediate(exit));
  return {
    pid: undefined,
    stdin: input,
    stdout: output,
    kill() {
      input.destroy();
      output.destroy();
      close?.();
      setImmediate(exit);
    },
    onExit(listener) {
      if (exited) listener(0, null);
      else exitListeners.push(listener);
    },
    onError() {},
  };
}
