// Drives an extension subprocess over its real stdio: spawns it, decodes stdout frames, collects
// stderr, and waits for frames or exit with a deadline.
import { spawn, type ChildProcess } from 'node:child_process';
import { LineDecoder } from '../../src/protocol/decoder.js';
import { SPAWN_WAIT_MS, withDeadline } from '../helpers/wait.js';
import type { Frame } from './harness.js';

export class ChildExtension {
  readonly child: ChildProcess;
  readonly frames: Frame[] = [];
  /** Raw stdout lines, to check that nothing but frames was written. */
  readonly lines: string[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private waiters: { match: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  private cursor = 0;

  constructor(command: string, args: readonly string[], cwd: string) {
    this.child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const decoder = new LineDecoder(
      (line) => {
        this.lines.push(line);
        let frame: Frame;
        try {
          frame = JSON.parse(line) as Frame;
        } catch {
          return;
        }
        this.frames.push(frame);
        this.waiters = this.waiters.filter((w) => {
          if (!w.match(frame)) return true;
          w.resolve(frame);
          return false;
        });
      },
      () => {},
    );
    this.child.stdout?.on('data', (chunk: Buffer) => decoder.push(chunk));
    this.child.stdout?.on('end', () => decoder.end());
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => resolve({ code, signal }));
    });
  }

  send(frame: object): void {
    this.child.stdin?.write(`${JSON.stringify(frame)}\n`);
  }

  /** The next frame (after the ones already returned) that matches. */
  next(match: (f: Frame) => boolean, what: string): Promise<Frame> {
    const index = this.frames.findIndex((f, i) => i >= this.cursor && match(f));
    if (index !== -1) {
      this.cursor = index + 1;
      return Promise.resolve(this.frames[index] as Frame);
    }
    return withDeadline(() => `${what}; frames: ${JSON.stringify(this.frames)}; stderr: ${this.stderr}`, SPAWN_WAIT_MS, (resolve) => {
      const waiter = {
        match,
        resolve: (f: Frame) => {
          this.cursor = this.frames.indexOf(f) + 1;
          resolve(f);
        },
      };
      this.waiters.push(waiter);
      return () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
      };
    });
  }

  answer(id: string): Promise<Frame> {
    return this.next((f) => f.id === id, `answer to ${id}`);
  }

  /** Kills the process if it is still running (afterEach). */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
