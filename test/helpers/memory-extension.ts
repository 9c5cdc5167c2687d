// An extension made of streams, for process-layer tests that need fake timers or exact control.
import { PassThrough, Writable } from 'node:stream';
import type { ChildHandle } from '../../src/process/child.js';

export type Frame = Record<string, unknown>;

/** An extension made of streams: records what the host writes, answers when told to. */
export function memoryExtension(answer?: (frame: Frame) => Frame | undefined) {
  const received: Frame[] = [];
  const stdout = new PassThrough();
  let holdWrites = false;
  const exitListeners: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = [];
  let exited = false;
  const exit = () => {
    if (exited) return;
    exited = true;
    stdout.end();
    for (const listener of exitListeners) listener(0, null);
  };
  const stdin = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        const frame = JSON.parse(line) as Frame;
        received.push(frame);
        const reply = answer?.(frame);
        if (reply !== undefined) stdout.write(`${JSON.stringify(reply)}\n`);
      }
      // A held write never completes: the extension "is not reading".
      if (!holdWrites) callback();
    },
    final(callback) {
      callback();
      exit();
    },
  });
  const child: ChildHandle = {
    pid: undefined,
    stdin,
    stdout,
    kill: exit,
    onExit(listener) {
      if (exited) listener(0, null);
      else exitListeners.push(listener);
    },
    onError() {},
  };
  return {
    child,
    received,
    stdin,
    send: (frame: Frame) => stdout.write(`${JSON.stringify(frame)}\n`),
    holdWrites: () => {
      holdWrites = true;
    },
    requests: (type: string) => received.filter((f) => f.type === type),
  };
}

