/** Writes frames to the host in order, one line each, waiting for 'drain' when the stream is full. */
import { encodeFrame } from '../protocol/codec.js';

type WriteFn = (chunk: string, callback: (err?: Error | null) => void) => boolean;

const GUARDED = new WeakSet<NodeJS.WritableStream>();
const ignore = (): void => undefined;

export class FrameWriter {
  private readonly queue: string[] = [];
  private inFlight = 0;
  private waitingForDrain = false;
  private accepting = true;
  private broken = false;
  private idleWaiters: (() => void)[] = [];
  private readonly onDrain = () => {
    this.waitingForDrain = false;
    this.pump();
  };
  private readonly onError = (err: Error) => this.fail(err);
  private readonly onClose = () => this.fail(new Error('output stream closed'));

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly write: WriteFn,
    /** Called once when the stream errors or closes: the host is gone. */
    private readonly onBroken: (err: Error) => void,
  ) {
    stream.on('error', this.onError);
    stream.on('close', this.onClose);
  }

  /** Frames waiting for the stream (backed up while it does not drain). */
  get queued(): number {
    return this.queue.length;
  }

  /** Queues one frame; silently dropped after `close()` or once the stream broke. */
  send(frame: object): void {
    if (!this.accepting || this.broken) return;
    this.queue.push(encodeFrame(frame));
    this.pump();
  }

  /** Stops accepting frames; those already queued are still written. */
  close(): void {
    this.accepting = false;
  }

  /** Resolves once every queued frame was handed to the OS (or the stream broke). */
  flush(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Removes the writer's listeners, except the 'error' one: a late EPIPE after the run must not
   * become an uncaught exception.
   */
  detach(): void {
    this.stream.removeListener('drain', this.onDrain);
    this.stream.removeListener('close', this.onClose);
    this.stream.removeListener('error', this.onError);
    // One shared no-op guard per stream, however many runs used it (no listener leak).
    if (!GUARDED.has(this.stream)) {
      GUARDED.add(this.stream);
      this.stream.on('error', ignore);
    }
  }

  private idle(): boolean {
    return this.broken || (this.queue.length === 0 && this.inFlight === 0);
  }

  private pump(): void {
    while (!this.waitingForDrain && !this.broken && this.queue.length > 0) {
      const line = this.queue.shift() as string;
      this.inFlight++;
      let ok: boolean;
      try {
        ok = this.write(line, (err) => {
          this.inFlight--;
          if (err) this.fail(err);
          else this.settle();
        });
      } catch (err) {
        this.inFlight--;
        this.fail(err as Error);
        return;
      }
      if (!ok) {
        this.waitingForDrain = true;
        this.stream.once('drain', this.onDrain);
      }
    }
    this.settle();
  }

  private settle(): void {
    if (!this.idle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private fail(err: Error): void {
    if (this.broken) return;
    this.broken = true;
    this.queue.length = 0;
    this.settle();
    this.onBroken(err);
  }
}
