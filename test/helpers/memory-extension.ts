// An extension made of streams, for process-layer tests that need fake timers or exact control.
import { PassThrough, Writable } from 'node:stream';
import type { ChildHandle } from '../../src/transport/child.js';
import { ExtensionProcess } from '../../src/process/extension-process.js';

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


/**
 * An ExtensionProcess named `mem` over `ext` (logs and dirs in `dir`, short shutdown graces),
 * started: the extension's hello is sent and the handshake awaited.
 */
export async function startMemoryProcess(ext: ReturnType<typeof memoryExtension>, dir: string): Promise<ExtensionProcess> {
  const proc = new ExtensionProcess({
    name: 'mem',
    dir,
    launch: { kind: 'connect', connect: () => ext.child },
    logDir: dir,
    host: { hostVersion: '1.0.0', provider: '', model: '', cwd: dir },
    timeouts: { shutdown: 100, kill: 100 },
  });
  const started = proc.start();
  ext.send({ type: 'hello', name: 'mem' });
  await started;
  return proc;
}

/** The frames a host writes to `stream` (one JSON object per line), in order, as they come; `onFrame` after each chunk's frames. */
export function collectFrames(stream: NodeJS.ReadableStream, onFrame?: () => void): Frame[] {
  const received: Frame[] = [];
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    let lf: number;
    while ((lf = buffered.indexOf('\n')) !== -1) {
      received.push(JSON.parse(buffered.slice(0, lf)) as Frame);
      buffered = buffered.slice(lf + 1);
    }
    onFrame?.();
  });
  return received;
}
