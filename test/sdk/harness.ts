// Plays the host for an SDK extension over in-memory streams: writes host frames, records every
// frame the extension writes (synchronously, in order) and waits for frames with a deadline.
import { PassThrough, Writable } from 'node:stream';
import { afterEach } from 'vitest';
import { LineDecoder } from '../../src/protocol/decoder.js';
import type { RunOptions } from '../../src/sdk/extension.js';
import { defineExtension, type Extension } from '../../src/sdk/index.js';
import { MEMORY_WAIT_MS, withDeadline } from '../helpers/wait.js';

export type Frame = Record<string, unknown> & { type: string };

export const HELLO_ACK = {
  type: 'hello_ack',
  protocol_version: 1,
  zot_version: '0.0.7',
  provider: 'anthropic',
  model: 'claude-opus-4-7',
  cwd: '/work/project',
  extension_dir: '/work/project/.zot/extensions/demo',
  data_dir: '/work/project/.zot/extensions/demo/data',
} as const;

interface Waiter {
  match: (frame: Frame) => boolean;
  resolve: (frame: Frame) => void;
}

export class FakeHost {
  /** Every frame the extension wrote, in order. */
  readonly received: Frame[] = [];
  /** Everything the extension wrote to its stderr. */
  stderr = '';
  readonly toExt = new PassThrough();
  readonly done: Promise<void>;
  private readonly taken = new Set<Frame>();
  private waiters: Waiter[] = [];
  private stderrWaiters: { needle: string; resolve: () => void }[] = [];
  private nextId = 1;

  constructor(ext: Extension, options: Omit<RunOptions, 'input' | 'output' | 'stderr'> = {}) {
    const decoder = new LineDecoder(
      (line) => this.record(JSON.parse(line) as Frame),
      () => {
        throw new Error('frame too large');
      },
    );
    // Records synchronously, so `received` is exact at any point a handler looks at it.
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        decoder.push(chunk);
        callback();
      },
    });
    const stderr = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        this.stderr += chunk.toString();
        this.stderrWaiters = this.stderrWaiters.filter((w) => {
          if (!this.stderr.includes(w.needle)) return true;
          w.resolve();
          return false;
        });
        callback();
      },
    });
    this.done = ext.run({ ...options, input: this.toExt, output: sink, stderr });
  }

  /** Writes one host frame. */
  send(frame: object): void {
    this.toExt.write(`${JSON.stringify(frame)}\n`);
  }

  /** Writes raw text (for garbage-input tests). */
  sendRaw(text: string): void {
    this.toExt.write(text);
  }

  id(prefix = 'req'): string {
    return `${prefix}-${this.nextId++}`;
  }

  /** The first frame not taken yet that matches; waits for it up to the deadline. */
  waitFor(match: (frame: Frame) => boolean, what = 'frame'): Promise<Frame> {
    const found = this.received.find((f) => !this.taken.has(f) && match(f));
    if (found) {
      this.taken.add(found);
      return Promise.resolve(found);
    }
    return withDeadline(() => `${what}; received: ${JSON.stringify(this.received)}`, MEMORY_WAIT_MS, (resolve) => {
      const waiter: Waiter = { match, resolve };
      this.waiters.push(waiter);
      return () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
      };
    });
  }

  waitForType(type: string): Promise<Frame> {
    return this.waitFor((f) => f.type === type, `"${type}" frame`);
  }

  /** The answer (any frame type but `progress`) to request `id`. */
  answer(id: string): Promise<Frame> {
    return this.waitFor((f) => f.id === id && f.type !== 'progress', `answer to ${id}`);
  }

  waitForStderr(needle: string): Promise<void> {
    if (this.stderr.includes(needle)) return Promise.resolve();
    return withDeadline(() => `stderr containing ${JSON.stringify(needle)}: ${this.stderr}`, MEMORY_WAIT_MS, (resolve) => {
      const waiter = { needle, resolve: () => resolve() };
      this.stderrWaiters.push(waiter);
      return () => {
        this.stderrWaiters = this.stderrWaiters.filter((w) => w !== waiter);
      };
    });
  }

  /** hello -> hello_ack -> frames up to `ready`; returns the frames between ack and ready. */
  async handshake(ack: object = {}): Promise<{ hello: Frame; registrations: Frame[] }> {
    const hello = await this.waitForType('hello');
    this.send({ ...HELLO_ACK, ...ack });
    const ready = await this.waitForType('ready');
    const registrations = this.received.slice(this.received.indexOf(hello) + 1, this.received.indexOf(ready));
    for (const f of registrations) this.taken.add(f);
    return { hello, registrations };
  }

  async command(name: string, args = ''): Promise<Frame> {
    const id = this.id('cmd');
    this.send({ type: 'command_invoked', id, name, args });
    return this.answer(id);
  }

  async callTool(name: string, args: object): Promise<Frame> {
    const id = this.id('tool');
    this.send({ type: 'tool_call', id, name, args });
    return this.answer(id);
  }

  async intercept(fields: object): Promise<Frame> {
    const id = this.id('icpt');
    this.send({ type: 'event_intercept', id, ...fields });
    return this.answer(id);
  }

  /** Sends `shutdown`, expects `shutdown_ack`, waits for run() to resolve. */
  async shutdown(): Promise<void> {
    this.send({ type: 'shutdown' });
    await this.waitForType('shutdown_ack');
    await this.done;
  }

  /** Ends the extension's input (EOF) and waits for run() to resolve. */
  async close(): Promise<void> {
    this.toExt.end();
    await this.done;
  }

  private record(frame: Frame): void {
    this.received.push(frame);
    const waiter = this.waiters.find((w) => w.match(frame));
    if (waiter) {
      this.waiters = this.waiters.filter((w) => w !== waiter);
      this.taken.add(frame);
      waiter.resolve(frame);
    }
  }
}

/** `start(ext)` for a test file; every host it started is closed (EOF) after each test. */
export function useFakeHosts(): (ext: Extension, options?: Omit<RunOptions, 'input' | 'output' | 'stderr'>) => FakeHost {
  const hosts: FakeHost[] = [];
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.close()));
  });
  return (ext, options) => {
    const host = new FakeHost(ext, options);
    hosts.push(host);
    return host;
  };
}

/** Starts an extension named `tools` with what `define` adds to it, and waits for its registrations. */
export async function startWithTools(start: ReturnType<typeof useFakeHosts>, define: (ext: Extension) => void): Promise<{ host: FakeHost; registrations: Frame[] }> {
  const ext = defineExtension({ name: 'tools' });
  define(ext);
  const host = start(ext);
  const { registrations } = await host.handshake();
  return { host, registrations };
}
