// A transport over a pair of streams with a process behind them (ChildHandle): a child's pipes
// (StdioTransport) or in-memory streams (MemoryTransport). Reads lines, writes chunks, and turns
// the end of the streams and of the process into one `close`.
import type { Readable, Writable } from 'node:stream';
import { EventEmitter } from 'eventemitter3';
import { LineDecoder } from '../protocol/decoder.js';
import type { ChildHandle, ChildWatcher } from './child.js';
import { spawnProblem } from './child.js';
import { settlesWithin } from './settles-within.js';
import type { Transport, TransportCloseOptions, TransportEvents, TransportExit, TransportFault, TransportWatcher } from './transport.js';

/** How long exit and the end of stdout (or of stdin) may be apart and still count as one event. */
export const STDOUT_EXIT_GRACE_MS = 50;

export interface StreamTransportOptions {
  /** Largest line in bytes; a longer one is a `frame_too_large` fault. */
  maxFrameBytes: number;
  /** Grace after the input ends (graceful close) before the peer is forced. @default 2000 */
  shutdownMs?: number | undefined;
  /** Grace after SIGTERM before SIGKILL. @default 1000 */
  killMs?: number | undefined;
}

const noop = (): void => undefined;

// The pipes' listeners are shared functions that find their transport on the stream (`this`), not
// closures per extension; the decoder's sinks are shared functions called with the decoder as `this`.
const LINES = Symbol('StreamLines');
type Tagged = { [LINES]: StreamLines };

/** The peer's output, split into lines, and where they go (`receiver` called with `context` as `this`). */
class StreamLines extends LineDecoder {
  constructor(
    readonly transport: StreamTransport,
    readonly receiver: ((line: string) => void) | undefined,
    readonly context: unknown,
    maxFrameBytes: number,
  ) {
    super(lineOut, lineTooLarge, { maxFrameBytes });
  }
}

function lineOut(this: StreamLines, line: string): void {
  const { receiver } = this;
  if (receiver === undefined) this.transport.emit('line', line);
  else receiver.call(this.context, line);
}

function lineTooLarge(this: StreamLines, bytes: number, limit: number): void {
  this.transport.fault({ kind: 'frame_too_large', bytes, limit });
}

function onOutputData(this: Readable, chunk: Buffer): void {
  (this as Readable & Tagged)[LINES].push(chunk);
}

function onOutputEnd(this: Readable): void {
  const lines = (this as Readable & Tagged)[LINES];
  lines.end();
  // stdout usually ends just before the exit event; only a process that stays alive has really closed it.
  setTimeout(outputLost, STDOUT_EXIT_GRACE_MS, lines.transport).unref();
}

// Node closes stdin at the child's exit too; only a process that stays alive has really lost its input.
function onInputClose(this: Writable): void {
  setTimeout(inputLost, STDOUT_EXIT_GRACE_MS, (this as Writable & Tagged)[LINES].transport).unref();
}

function outputLost(transport: StreamTransport): void {
  transport.lost('output_closed');
}

function inputLost(transport: StreamTransport): void {
  transport.lost('input_closed');
}

/** `done` called with `context` as `this` (see StreamTransport.write). */
function callbackWith(done: () => void, context: unknown): () => void {
  return () => done.call(context);
}

/**
 * Runs `done` once `stdout` has ended (a process that exited may still have lines in the pipe), or
 * after `ms` with stdout destroyed (a grandchild may hold it open). `done` may run twice: it guards.
 */
export function afterOutput(stdout: Readable, ms: number, done: () => void): void {
  if (stdout.readableEnded || stdout.destroyed) {
    done();
    return;
  }
  const timer = setTimeout(() => {
    stdout.destroy();
    done();
  }, ms);
  timer.unref();
  stdout.once('close', () => {
    clearTimeout(timer);
    done();
  });
}

export abstract class StreamTransport extends EventEmitter<TransportEvents> implements Transport, ChildWatcher {
  protected child: ChildHandle | undefined;
  private input: Writable | undefined;
  /** Set at the process's exit; `close` follows once stdout is done. */
  private exitStatus: TransportExit | undefined;
  private ended = false;
  /** Made by the first wait for the end (most extensions run until the host stops them). */
  private closed: Promise<void> | undefined;
  private resolveClosed: (() => void) | undefined;
  /** A `drain` listener is on the input (only after a send() that returned false). */
  private drainWatched = false;
  private watcher: TransportWatcher | undefined;

  constructor(protected readonly options: StreamTransportOptions) {
    super();
  }

  watch(watcher: TransportWatcher): void {
    this.watcher = watcher;
  }

  /** Internal: `error`, to the watcher and the listeners. */
  fault(fault: TransportFault): void {
    this.watcher?.transportFault(fault);
    this.emit('error', fault);
  }

  /** Starts the process (or connects the streams). */
  protected abstract open(): Promise<ChildHandle>;

  /** What was started, for a message when it is not found (`exec` of the manifest). */
  protected abstract get describe(): string;

  /** Told when the peer has to be forced (SIGTERM, SIGKILL), as a log line. */
  protected forced(_message: string): void {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get writable(): boolean {
    const input = this.input;
    return input !== undefined && !input.destroyed && !input.writableEnded;
  }

  get writing(): boolean {
    return this.input !== undefined && this.input.writableLength > 0;
  }

  async start(receiver?: (line: string) => void, context?: unknown): Promise<void> {
    this.attach(await this.open(), receiver, context);
  }

  private attach(child: ChildHandle, receiver: ((line: string) => void) | undefined, context: unknown): void {
    this.child = child;
    const { stdin, stdout } = child;
    this.input = stdin;
    const lines = new StreamLines(this, receiver, context, this.options.maxFrameBytes);
    (stdout as Readable & Tagged)[LINES] = lines;
    (stdin as Writable & Tagged)[LINES] = lines;
    stdout.on('data', onOutputData);
    // on(), not once(): each is emitted once, and once() wraps every listener in two more objects.
    stdout.on('end', onOutputEnd);
    stdout.on('error', noop);
    stdin.on('error', noop);
    stdin.on('close', onInputClose);
    if (child.watch !== undefined) {
      child.watch(this);
    } else {
      child.onError((err) => this.childFailed(err));
      child.onExit((code, signal) => this.childExited(code, signal));
    }
  }

  /** Internal (the pipes' listeners): the output or the input closed; a fault unless the peer exited meanwhile. */
  lost(kind: 'output_closed' | 'input_closed'): void {
    if (this.exitStatus === undefined && !this.ended) this.fault({ kind });
  }

  /** Internal (ChildWatcher): the child could not be spawned, or failed. */
  childFailed(err: Error): void {
    const code = (err as NodeJS.ErrnoException).code;
    const message = code === 'ENOENT' ? `executable not found on PATH: ${this.describe}` : spawnProblem(err);
    this.fault({ kind: 'failed', message, cause: err });
    this.finish({ code: null, signal: null });
  }

  /** Internal (ChildWatcher): the child exited. */
  childExited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.ended) return;
    const status: TransportExit = { code, signal };
    this.exitStatus = status;
    this.watcher?.transportExit(status);
    this.emit('exit', status);
    // Frames written just before exit may still be in the pipe: close after stdout ends (or shortly after).
    afterOutput(this.child!.stdout, STDOUT_EXIT_GRACE_MS, () => this.finish(status));
  }

  private finish(status: TransportExit): void {
    if (this.ended) return;
    this.ended = true;
    // Grandchildren may outlive the leader: the group goes too.
    this.child?.kill('SIGKILL');
    this.resolveClosed?.();
    this.watcher?.transportClose(status);
    this.emit('close', status);
  }

  send(line: string): boolean {
    if (!this.writable) return false;
    const input = this.input!;
    if (input.write(`${line}\n`)) return true;
    if (!this.drainWatched) {
      this.drainWatched = true;
      input.on('drain', () => this.emit('drain'));
    }
    return false;
  }

  write(chunk: string, done: () => void, context?: unknown): boolean {
    const input = this.input!;
    // Without a callback, a write the pipe takes at once costs Node no nextTick (one per write with
    // a callback: ~3 us a write when an event goes to 20 extensions). Left in progress (or behind
    // one), an empty write behind it calls back once the chunk is taken (a closure for that write
    // only, with a context: made by callbackWith, as a closure made here would have V8 allocate
    // the variables it captures on every call, whether the chunk was taken at once or not).
    input.write(chunk);
    if (input.writableLength === 0) return true;
    input.write('', context === undefined ? done : callbackWith(done, context));
    return false;
  }

  closeInput(): void {
    this.input?.destroy();
  }

  async close(_reason?: string, options: TransportCloseOptions = {}): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    try {
      if (!this.ended) {
        // Before the goodbye: once the extension exits, descendants that left its group are untraceable.
        child.findDescendants?.();
        const { stdin } = child;
        if (options.graceful === false) {
          stdin.destroy();
          await this.terminate();
        } else {
          // Behind a write in progress too: the stream buffers it until the pipe takes it.
          const { last } = options;
          if (last !== undefined && !stdin.destroyed && !stdin.writableEnded) stdin.write(last);
          stdin.end();
          const graceMs = this.options.shutdownMs ?? 2000;
          if (!(await this.waitClosed(graceMs))) {
            // A launcher (ssh, docker exec -i) that outlives both is the usual case: say so.
            this.forced(`still running ${graceMs} ms after shutdown and stdin EOF: SIGTERM to its process group`);
            await this.terminate();
          }
        }
      }
      // Resolve only once the whole tree is gone (grandchildren are killed with the group after exit).
      await child.treeGone?.(1000);
    } catch (err) {
      child.kill('SIGKILL');
      throw err;
    }
  }

  async terminate(): Promise<void> {
    const child = this.child;
    if (child === undefined || this.ended) return;
    child.kill('SIGTERM');
    const killMs = this.options.killMs ?? 1000;
    if (await this.waitClosed(killMs)) return;
    this.forced(`still running ${killMs} ms after SIGTERM: SIGKILL`);
    child.kill('SIGKILL');
    await this.waitClosed(5000);
  }

  private async waitClosed(ms: number): Promise<boolean> {
    if (this.ended) return true;
    this.closed ??= new Promise((resolve) => (this.resolveClosed = resolve));
    return settlesWithin(this.closed, ms);
  }
}
