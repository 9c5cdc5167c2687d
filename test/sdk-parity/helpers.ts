// Helpers of the parity tests: an extension over raw stdio without a host (a subprocess, or an SDK
// definition in-process), and a list that can be awaited until it holds n items.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { LineDecoder } from '../../src/protocol/decoder.js';
import type { Extension } from '../../src/sdk/index.js';
import { WAIT_MS, withDeadline } from '../helpers/wait.js';

export type Frame = Record<string, unknown> & { type: string };
export type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** Items in arrival order; `waitForLength` resolves once there are at least n. */
export class Collector<T> {
  readonly items: T[] = [];
  private readonly listeners = new Set<() => void>();

  push = (item: T): void => {
    this.items.push(item);
    for (const listener of [...this.listeners]) listener();
  };

  waitForLength(n: number, ms = WAIT_MS): Promise<T[]> {
    return withDeadline(`${n} items (have ${this.items.length})`, ms, (resolve) => {
      const check = () => {
        if (this.items.length >= n) resolve(this.items.slice(0, n));
      };
      this.listeners.add(check);
      queueMicrotask(check);
      return () => this.listeners.delete(check);
    });
  }
}

/** An extension on the other end of a pair of streams, with no host: we play the host frame by frame. */
export class RawExtension {
  readonly frames: Frame[] = [];
  /** Every stdout line, to check that nothing but frames was written. */
  readonly lines: string[] = [];
  private readonly arrived = new Set<() => void>();

  constructor(
    private readonly input: Writable,
    output: Readable,
    /** Resolves with the exit status (in-process: the code passed to run()'s `exit`). */
    readonly exited: Promise<Exit>,
    private readonly killer: () => void,
  ) {
    const decoder = new LineDecoder(
      (line) => {
        this.lines.push(line);
        try {
          this.frames.push(JSON.parse(line) as Frame);
        } catch {
          // counted in `lines` only
        }
        for (const listener of [...this.arrived]) listener();
      },
      () => undefined,
    );
    output.on('data', (chunk: Buffer) => decoder.push(chunk));
    output.on('end', () => decoder.end());
  }

  send(frame: object): void {
    this.input.write(`${JSON.stringify(frame)}\n`);
  }

  /** Ends the extension's stdin (EOF). */
  endInput(): void {
    this.input.end();
  }

  /** The first frame of `type` (already received or still to come). */
  frame(type: string, ms = WAIT_MS): Promise<Frame> {
    return withDeadline(`a ${type} frame (got ${JSON.stringify(this.frames.map((f) => f.type))})`, ms, (resolve) => {
      const check = () => {
        const found = this.frames.find((f) => f.type === type);
        if (found) resolve(found);
      };
      this.arrived.add(check);
      queueMicrotask(check);
      return () => this.arrived.delete(check);
    });
  }

  /** Resolves the exit status, failing after `ms`. */
  exit(ms = WAIT_MS): Promise<Exit> {
    return withDeadline('the exit', ms, (resolve) => {
      void this.exited.then(resolve);
      return () => undefined;
    });
  }

  /** Ends it for good (afterEach): kills a process, ends an in-process run's input. */
  kill(): void {
    this.killer();
  }
}

/** Spawns an extension directory exactly as its manifest says (a bare `node` is this node). */
export function spawnRaw(dir: string): RawExtension {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'extension.json'), 'utf8')) as { exec: string; args?: string[] };
  const exec = manifest.exec === 'node' ? process.execPath : path.resolve(dir, manifest.exec);
  const child = spawn(exec, manifest.args ?? [], { cwd: dir, stdio: ['pipe', 'pipe', 'ignore'] });
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new RawExtension(child.stdin, child.stdout, exited, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
}

/** Runs an SDK definition in this process over in-memory streams. */
export function runRaw(ext: Extension): RawExtension {
  const input = new PassThrough();
  const output = new PassThrough();
  const stderr = new PassThrough().resume();
  let exitCode: number | undefined;
  const exited = ext
    .run({ input, output, stderr, exit: (code) => (exitCode = code) })
    .then((): Exit => ({ code: exitCode ?? null, signal: null }));
  return new RawExtension(input, output, exited, () => input.end());
}
