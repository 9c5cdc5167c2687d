// A WebSocket server on 127.0.0.1 that plays a remote extension: scripted (the test sends and reads
// frames per connection) or an SDK extension run in this process per connection. Close it in
// afterEach: it terminates every connection and stops listening.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { RunnableExtension } from '../../src/testing/index.js';
import { WAIT_MS, withDeadline } from './wait.js';

export type Frame = Record<string, unknown>;

/** One connection the server accepted. */
export class PeerConnection {
  readonly frames: Frame[] = [];
  /** Raw messages, as received. */
  readonly messages: string[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly socket: WebSocket,
    readonly headers: IncomingHttpHeaders,
  ) {
    socket.on('message', (data: Buffer) => {
      const text = data.toString('utf8');
      this.messages.push(text);
      try {
        this.frames.push(JSON.parse(text) as Frame);
      } catch {
        // kept in messages only
      }
      for (const listener of [...this.listeners]) listener();
    });
    this.closed = new Promise((resolve) => socket.once('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString('utf8') })));
  }

  send(frame: Frame | string): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** The first received frame of `type` matching `predicate` (already received or still to come). */
  next(type: string, predicate: (frame: Frame) => boolean = () => true, ms = WAIT_MS): Promise<Frame> {
    return withDeadline(`a ${type} frame from the host`, ms, (resolve) => {
      const check = () => {
        const found = this.frames.find((f) => f.type === type && predicate(f));
        if (found !== undefined) resolve(found);
      };
      this.listeners.add(check);
      check();
      return () => this.listeners.delete(check);
    });
  }

  /** Says hello (and, once acknowledged, sends `after`, e.g. registrations and ready). */
  async hello(name: string, after: Frame[] = [{ type: 'ready' }], capabilities: string[] = ['commands', 'tools']): Promise<void> {
    this.send({ type: 'hello', name, version: '1.0.0', capabilities });
    await this.next('hello_ack');
    for (const frame of after) this.send(frame);
  }
}

export interface WsPeerOptions {
  /** Runs for each accepted connection. */
  onConnection?: ((connection: PeerConnection) => void) | undefined;
  /** Answer pings (false: a silent network). @default true */
  autoPong?: boolean | undefined;
  /** Refuse an upgrade without this `Authorization` header value (401). */
  authorization?: string | undefined;
  /**
   * What onConnection sends at once leaves in one TCP write with the upgrade's answer: the client
   * reads the frames with the upgrade (its connect has not returned yet when they arrive).
   */
  withUpgrade?: boolean | undefined;
}

export interface WsPeer {
  /** `ws://127.0.0.1:<port>/ext` */
  url: string;
  port: number;
  connections: PeerConnection[];
  /** The `index`-th connection (0-based), already accepted or still to come. */
  connection(index?: number, ms?: number): Promise<PeerConnection>;
  close(): Promise<void>;
}

export async function startWsPeer(options: WsPeerOptions = {}): Promise<WsPeer> {
  // withUpgrade: the upgrade is handed over by hand, its socket corked until onConnection ran.
  const http = options.withUpgrade === true ? createServer() : undefined;
  const server = new WebSocketServer({
    ...(http === undefined ? { host: '127.0.0.1', port: 0 } : { noServer: true }),
    autoPong: options.autoPong ?? true,
    maxPayload: 64 * 1024 * 1024,
    verifyClient:
      options.authorization === undefined ? undefined : (info, done) => (info.req.headers.authorization === options.authorization ? done(true) : done(false, 401, 'Unauthorized')),
  });
  if (http !== undefined) {
    http.on('upgrade', (request, socket, head) => {
      socket.cork();
      server.handleUpgrade(request, socket, head, (ws) => server.emit('connection', ws, request));
      process.nextTick(() => socket.uncork());
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(0, '127.0.0.1', resolve);
    });
  } else {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  }
  const port = ((http ?? server).address() as net.AddressInfo).port;
  const connections: PeerConnection[] = [];
  const waiters = new Set<() => void>();
  server.on('connection', (socket, request) => {
    const connection = new PeerConnection(socket, request.headers);
    connections.push(connection);
    options.onConnection?.(connection);
    for (const waiter of [...waiters]) waiter();
  });
  return {
    url: `ws://127.0.0.1:${port}/ext`,
    port,
    connections,
    connection: (index = 0, ms = WAIT_MS) =>
      withDeadline(`connection #${index}`, ms, (resolve) => {
        const check = () => {
          if (connections[index] !== undefined) resolve(connections[index]);
        };
        waiters.add(check);
        check();
        return () => waiters.delete(check);
      }),
    close: async () => {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (http !== undefined) await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** Per connection, a fresh SDK extension speaks over it (a message per line, both ways). */
export function serveExtension(create: () => RunnableExtension): (connection: PeerConnection) => void {
  return (connection) => {
    const input = new PassThrough();
    const output = new PassThrough();
    let rest = '';
    output.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop()!;
      for (const line of lines) if (line !== '' && connection.socket.readyState === 1) connection.socket.send(line);
    });
    connection.socket.on('message', (data: Buffer) => input.write(`${data.toString('utf8')}\n`));
    connection.socket.once('close', () => input.end());
    void create()
      .run({ input, output, stderr: new PassThrough(), exit: () => undefined })
      .finally(() => {
        if (connection.socket.readyState === 1) connection.socket.close(1000, 'extension ended');
      });
  };
}

/** A TCP server that accepts and never upgrades (nor answers anything). */
export async function startSilentTcp(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}/`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port on 127.0.0.1 nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
