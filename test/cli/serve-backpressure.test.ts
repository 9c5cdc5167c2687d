// The serve bridge under floods, in process: a real server and client on 127.0.0.1, the extension
// a pair of streams whose speed the test controls. Neither side buffers more than a bound.
import { Readable, Writable } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import { ExtensionServer } from '../../src/cli/serve/server.js';
import { MAX_STDERR_LINE_CHARS, prefixLines } from '../../src/cli/serve/stderr-lines.js';
import type { ChildHandle } from '../../src/transport/child.js';
import { waitUntil, withDeadline } from '../helpers/wait.js';
import { closeClients, FrameClient } from './serve-client.js';

const MiB = 1024 * 1024;
let server: ExtensionServer | undefined;

afterEach(async () => {
  await closeClients();
  await server?.stop();
  server = undefined;
});

/** A child whose stdin and stdout are the given streams; it "exits" when killed. */
function fakeChild(stdin: Writable, stdout: Readable): ChildHandle {
  const exits: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = [];
  let exited = false;
  return {
    pid: undefined,
    stdin,
    stdout,
    kill(signal) {
      if (exited) return;
      exited = true;
      stdout.destroy();
      setImmediate(() => exits.forEach((l) => l(null, signal)));
    },
    onExit: (l) => void exits.push(l),
    onError: () => undefined,
  };
}

async function serveChild(child: () => ChildHandle, extra: Partial<ConstructorParameters<typeof ExtensionServer>[0]> = {}): Promise<string> {
  server = new ExtensionServer({
    host: '127.0.0.1',
    port: 0,
    name: 'fake',
    dir: '/srv/fake',
    spawn: () => Promise.resolve(child()),
    maxConnections: 4,
    handshakeMs: 5000,
    allowedOrigins: [],
    maxFrameBytes: 4 * MiB,
    killGraceMs: 100,
    keepAliveMs: 0,
    log: () => undefined,
    stderr: () => undefined,
    ...extra,
  });
  const { port } = await server.listen();
  return `ws://127.0.0.1:${port}`;
}

it('stops reading the socket while the extension does not take its stdin', { timeout: 20_000 }, async () => {
  const held: (() => void)[] = [];
  let taking = false;
  let received = 0;
  let maxQueued = 0;
  const stdin: Writable = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _enc, done) {
      received += chunk.length;
      maxQueued = Math.max(maxQueued, stdin.writableLength);
      if (taking) done();
      else held.push(done);
    },
  });
  const url = await serveChild(() => fakeChild(stdin, new Readable({ read() {} })));
  const client = await FrameClient.connect(url);
  const message = `{"type":"x","pad":"${'p'.repeat(128 * 1024)}"}`;
  const count = 200; // 25 MiB
  for (let i = 0; i < count; i++) client.ws.send(message);
  // The client cannot get rid of its data: the server stopped reading.
  await waitUntil('the client to be held back', () => {
    maxQueued = Math.max(maxQueued, stdin.writableLength);
    return held.length > 0 && client.ws.bufferedAmount > 4 * MiB;
  });
  expect(stdin.writableLength).toBeLessThan(2 * MiB);
  taking = true;
  for (const done of held.splice(0)) done();
  await waitUntil('every message to arrive', () => {
    maxQueued = Math.max(maxQueued, stdin.writableLength);
    return received === count * (message.length + 1);
  }, 10_000);
  expect(maxQueued).toBeLessThan(2 * MiB);
});

it('stops reading the extension\'s stdout while the socket is backed up, and loses nothing', { timeout: 20_000 }, async () => {
  const line = `{"type":"notify","message":"${'m'.repeat(64 * 1024)}"}\n`;
  const total = 1024; // 64 MiB
  let produced = 0;
  const stdout = new Readable({
    highWaterMark: 64 * 1024,
    read() {
      if (produced < total) {
        produced++;
        this.push(line);
      }
    },
  });
  let pausedAt: number | undefined;
  const paused = withDeadline<number>('stdout to be paused', 10_000, (resolve) => {
    const original = stdout.pause.bind(stdout);
    stdout.pause = () => {
      pausedAt ??= produced;
      resolve(produced);
      return original();
    };
    return () => undefined;
  });
  const url = await serveChild(() => fakeChild(new Writable({ write: (_c, _e, done) => done() }), stdout));
  const client = await FrameClient.connect(url);
  client.ws.pause();
  const atPause = await paused;
  expect(atPause).toBeLessThan(total / 2);
  // While paused, the pull-based stdout is not read further than its own buffer.
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(produced - atPause).toBeLessThanOrEqual(2);
  client.ws.resume();
  await waitUntil('every line to arrive', () => client.frames.length === total, 15_000);
  expect(client.frames.every((f) => f.type === 'notify')).toBe(true);
  expect(pausedAt).toBeDefined();
});

it('prints a stderr flood line by line, each cut at the bound', async () => {
  const stderr = new Readable({ read() {} });
  const lines: string[] = [];
  prefixLines(stderr, '[x #1]', (l) => lines.push(l));
  stderr.push('a'.repeat(3 * MAX_STDERR_LINE_CHARS));
  stderr.push(`${'b'.repeat(10)}\r\nsecond \x1b[2Jline\nun`);
  stderr.push('finished');
  stderr.push(null);
  await new Promise((resolve) => stderr.once('end', resolve));
  expect(lines).toEqual([`[x #1] ${'a'.repeat(MAX_STDERR_LINE_CHARS)}…`, '[x #1] second line', '[x #1] unfinished']);
});

it('logs a flood of refused connections as a few lines per second', { timeout: 20_000 }, async () => {
  const log: string[] = [];
  const url = await serveChild(() => fakeChild(new Writable({ write: (_c, _e, done) => done() }), new Readable({ read() {} })), { token: 't', log: (l) => log.push(l) });
  const attempts = 50;
  const began = Date.now();
  const results = await Promise.allSettled(Array.from({ length: attempts }, () => FrameClient.connect(url)));
  expect(results.every((r) => r.status === 'rejected' && (r.reason as { status?: number }).status === 401)).toBe(true);
  const windows = Math.floor((Date.now() - began) / 1000) + 1;
  expect(log.filter((l) => l.startsWith('refused')).length).toBeLessThanOrEqual(Math.min(10 * windows, attempts - 1));
});
