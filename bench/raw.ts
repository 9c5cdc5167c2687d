/**
 * The RAW BASELINE: the least a host can do to talk NDJSON to a child. JSON.stringify + write, a
 * byte LF splitter, JSON.parse once, a pending Map keyed by counter ids. No validation, no timers,
 * no backpressure handling, no logging. Every host column is divided by this one.
 *
 * With `coalesce`, the COALESCING BASELINE: the same, but the lines of one tick are collected and
 * written in one write() in a microtask at its end, as the host batches its own writes (one write
 * and one wake-up of the child per tick instead of one per request).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

type Frame = { type: string; id?: string; [key: string]: unknown };
type Waiter = { resolve: (frame: Frame) => void; reject: (error: Error) => void };

export interface RawSpawnOptions {
  command: string;
  args: readonly string[];
  cwd?: string | undefined;
  /** Write the lines of one tick in one write() at its end. @default false */
  coalesce?: boolean | undefined;
}

const RESOLVED = Promise.resolve();

export class RawPeer {
  private readonly pending = new Map<string, Waiter>();
  private readonly typeWaiters = new Map<string, Waiter>();
  private parts: Buffer[] = [];
  private seq = 0;
  private exited = false;
  private readonly exit: Promise<void>;
  private queued: string[] = [];
  private flushScheduled = false;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly coalesce: boolean,
  ) {
    child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    this.exit = new Promise((resolve) => {
      child.once('exit', () => {
        this.exited = true;
        const error = new Error('child exited');
        for (const waiter of this.pending.values()) waiter.reject(error);
        for (const waiter of this.typeWaiters.values()) waiter.reject(error);
        this.pending.clear();
        this.typeWaiters.clear();
        resolve();
      });
    });
  }

  /** Spawns the child and resolves once its `hello` frame arrived (spawn-to-hello). */
  static async spawn(options: RawSpawnOptions): Promise<RawPeer> {
    // detached like the host's children (a process group each): with Linux autogroup scheduling a
    // new session also gets its own CPU share, and start-up under load depends on that.
    const child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'ignore'],
      detached: true,
    }) as unknown as ChildProcessWithoutNullStreams;
    const peer = new RawPeer(child, options.coalesce === true);
    const failed = new Promise<never>((_, reject) => child.once('error', reject));
    await Promise.race([peer.waitFor('hello'), failed]);
    return peer;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** hello_ack, then waits for `ready`. */
  async handshake(): Promise<void> {
    const ready = this.waitFor('ready');
    this.send({ type: 'hello_ack', protocol_version: 1, cwd: process.cwd() });
    await ready;
  }

  send(frame: Frame): void {
    this.writeLine(`${JSON.stringify(frame)}\n`);
  }

  /** Writes an already encoded line (fan-out: encode once, write to each). */
  writeLine(line: string): void {
    if (!this.coalesce) {
      this.child.stdin.write(line);
      return;
    }
    this.queued.push(line);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    void RESOLVED.then(this.flush);
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    const lines = this.queued;
    this.queued = [];
    this.child.stdin.write(lines.length === 1 ? (lines[0] as string) : lines.join(''));
  };

  /** Sends `frame` (it gets a fresh counter id) and resolves with the frame that answers it. */
  request(frame: Frame): Promise<Frame> {
    const id = String(++this.seq);
    frame.id = id;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.writeLine(`${JSON.stringify(frame)}\n`);
    });
  }

  /** tool_call -> the text of the first content block. */
  async call(name: string, args: Record<string, unknown>): Promise<string> {
    const reply = await this.request({ type: 'tool_call', name, args });
    const content = reply.content as Array<{ text?: string }> | undefined;
    return content?.[0]?.text ?? '';
  }

  /** shutdown, then waits for the child to exit (SIGKILL if it has not after `graceMs`). */
  async close(graceMs = 2000): Promise<void> {
    if (this.exited) return;
    this.send({ type: 'shutdown' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exit;
    clearTimeout(timer);
  }

  /** Spawns all in parallel (each until its hello); if any fails, closes the others and throws. */
  static async spawnAll(specs: readonly RawSpawnOptions[]): Promise<RawPeer[]> {
    const settled = await Promise.allSettled(specs.map((spec) => RawPeer.spawn(spec)));
    const peers = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failure = settled.find((r) => r.status === 'rejected');
    if (failure !== undefined) {
      await Promise.all(peers.map((p) => p.close()));
      throw failure.reason;
    }
    return peers;
  }

  private waitFor(type: string): Promise<Frame> {
    return new Promise((resolve, reject) => this.typeWaiters.set(type, { resolve, reject }));
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(10, start);
    while (nl !== -1) {
      let line: Buffer;
      if (this.parts.length === 0) {
        line = chunk.subarray(start, nl);
      } else {
        this.parts.push(chunk.subarray(start, nl));
        line = Buffer.concat(this.parts);
        this.parts = [];
      }
      start = nl + 1;
      if (line.length > 0) this.onFrame(JSON.parse(line.toString('utf8')) as Frame);
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) this.parts.push(chunk.subarray(start));
  }

  private onFrame(frame: Frame): void {
    if (frame.id !== undefined) {
      const waiter = this.pending.get(frame.id);
      if (waiter !== undefined) {
        this.pending.delete(frame.id);
        waiter.resolve(frame);
        return;
      }
    }
    const waiter = this.typeWaiters.get(frame.type);
    if (waiter !== undefined) {
      this.typeWaiters.delete(frame.type);
      waiter.resolve(frame);
    }
  }
}
