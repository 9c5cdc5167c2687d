// The WebSocket server of `zot-ext serve`: checks the Origin and the token and counts upgrades
// (refused with an HTTP status before any process starts), bounds unfinished handshakes, gives each
// accepted socket its own Bridge, pings the peers, and stops everything it started.
import { createServer, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ChildHandle } from '../../transport/child.js';
import { hasBearer } from './auth.js';
import { Bridge } from './bridge.js';
import { listenOn } from './listen.js';

export interface ExtensionServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The extension's manifest name. */
  name: string;
  /** The served extension's directory: its `extension_dir` and `data_dir` in `hello_ack`. */
  dir: string;
  /** Its `data_dir` instead, when sandboxed (its directory is read-only then). @default dir */
  dataDir?: string | undefined;
  /** Starts one extension process (stderr piped). */
  spawn: () => Promise<ChildHandle>;
  /** Required as `Authorization: Bearer <token>` when set. */
  token?: string | undefined;
  /**
   * Connections at most: open ones (each with its process) and unfinished handshakes together. A new
   * TCP connection beyond it drops the oldest unfinished handshake; with none, its upgrade gets 503.
   */
  maxConnections: number;
  /** Time from the TCP connect to a completed WebSocket upgrade; a slower one is dropped. */
  handshakeMs: number;
  /**
   * Origins (`scheme://host[:port]`) whose pages may connect. An upgrade with an `Origin` header
   * (sent by browsers, never by a host) is refused with 403 unless its origin is listed.
   */
  allowedOrigins: readonly string[];
  /** Largest message in, and largest stdout line out, in bytes. */
  maxFrameBytes: number;
  /** Grace after SIGTERM before SIGKILL. */
  killGraceMs: number;
  /** Ping interval; a peer that missed a whole interval is dropped. 0: no pings. */
  keepAliveMs: number;
  /** One event line on the server's stderr. */
  log: (line: string) => void;
  /** One line an extension wrote to its stderr, prefixed `[name #n]`. */
  stderr: (line: string) => void;
}

/** Refusals logged one by one per second; the rest are counted in one line. */
const REFUSALS_LOGGED_PER_SECOND = 10;

export class ExtensionServer {
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly bridges = new Set<Bridge>();
  /** TCP connections not yet upgraded (or refused), oldest first, each with its deadline. */
  private readonly handshakes = new Map<Socket, NodeJS.Timeout>();
  private nextId = 1;
  private stopping: Promise<void> | undefined;
  private keepAlive: NodeJS.Timeout | undefined;
  private refusals = { windowStart: 0, logged: 0, suppressed: 0 };

  constructor(private readonly options: ExtensionServerOptions) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: options.maxFrameBytes, perMessageDeflate: false, clientTracking: false });
    this.http = createServer((_req, res) => {
      res.writeHead(426, { 'Content-Type': 'text/plain', Upgrade: 'websocket', Connection: 'close' }).end('zot-ext serve speaks WebSocket only\n');
    });
    this.http.on('connection', (socket: Socket) => this.onConnection(socket));
    this.http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.onUpgrade(req, socket, head));
    this.http.on('clientError', (_err, socket) => socket.destroy());
  }

  /** Listens; resolves with the bound address (the real port when 0 was asked for). */
  async listen(): Promise<{ host: string; port: number }> {
    const { host, port } = this.options;
    const bound = await listenOn(this.http, host, port);
    if (this.options.keepAliveMs > 0) {
      this.keepAlive = setInterval(() => this.ping(), this.options.keepAliveMs);
      this.keepAlive.unref();
    }
    return { host, port: bound };
  }

  /** Open connections. */
  get connections(): number {
    return this.bridges.size;
  }

  /**
   * Every TCP connection holds a slot from its connect until it is upgraded or closed, and has
   * `handshakeMs` to get there: a client that opens connections and never finishes a request cannot
   * hold the slots (or the file descriptors) that real clients need.
   */
  private onConnection(socket: Socket): void {
    socket.on('error', () => undefined);
    const { maxConnections, handshakeMs } = this.options;
    if (this.bridges.size + this.handshakes.size >= maxConnections) {
      // Room from the oldest unfinished handshake; with none, the slots are open connections and this
      // request gets its 503 once it is read.
      const oldest = this.handshakes.keys().next().value;
      if (oldest !== undefined) {
        this.logRefusal(`dropped an unfinished handshake from ${remoteOf(oldest)}: ${maxConnections} connections (--max-connections) and a new one came`);
        this.dropHandshake(oldest);
      }
    }
    const timer = setTimeout(() => {
      this.logRefusal(`dropped ${remoteOf(socket)}: no WebSocket upgrade within ${handshakeMs} ms (--handshake-timeout)`);
      this.dropHandshake(socket);
    }, handshakeMs);
    timer.unref();
    this.handshakes.set(socket, timer);
    socket.once('close', () => this.handshakeDone(socket));
  }

  private handshakeDone(socket: Socket): void {
    clearTimeout(this.handshakes.get(socket));
    this.handshakes.delete(socket);
  }

  private dropHandshake(socket: Socket): void {
    this.handshakeDone(socket);
    socket.destroy();
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => undefined);
    const remote = remoteOf(req.socket);
    if (this.stopping !== undefined) return this.refuse(socket, remote, 503, 'the server is shutting down');
    const { token, maxConnections, allowedOrigins } = this.options;
    // A web page's WebSocket always carries its Origin; a host never sends one.
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.includes(normalOrigin(origin) ?? origin)) {
      return this.refuse(socket, remote, 403, `origin ${origin.slice(0, 200)} is not allowed (--allow-origin)`);
    }
    if (token !== undefined && !hasBearer(req, token)) {
      const why = req.headers.authorization === undefined ? 'no Authorization header' : 'wrong token';
      return this.refuse(socket, remote, 401, why, { 'WWW-Authenticate': 'Bearer' });
    }
    if (this.bridges.size >= maxConnections) {
      return this.refuse(socket, remote, 503, `${maxConnections} connections open (--max-connections)`);
    }
    // The slot it holds as a handshake becomes its bridge's (an upgrade ws rejects just closes).
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.handshakeDone(req.socket);
      this.accept(ws, remote);
    });
  }

  private accept(ws: WebSocket, remote: string): void {
    const { name, dir, dataDir, spawn, maxFrameBytes, killGraceMs, log, stderr } = this.options;
    const bridge = new Bridge({ id: this.nextId++, name, dir, dataDir, socket: ws, spawn, maxFrameBytes, killGraceMs, log, stderr });
    this.bridges.add(bridge);
    void bridge.done.then(() => this.bridges.delete(bridge));
    if (this.stopping !== undefined) bridge.stop();
    void bridge.start(remote);
  }

  private refuse(socket: Duplex, remote: string, status: number, why: string, headers: Record<string, string> = {}): void {
    // Answered: it no longer holds a handshake slot (it closes within a second).
    this.handshakeDone(socket as Socket);
    this.logRefusal(`refused ${remote}: ${status} ${why}`);
    const body = `${why}\n`;
    const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, 'Connection: close', 'Content-Type: text/plain', `Content-Length: ${Buffer.byteLength(body)}`];
    for (const [key, value] of Object.entries(headers)) lines.push(`${key}: ${value}`);
    socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
    setTimeout(() => socket.destroy(), 1000).unref();
  }

  // A client retrying in a loop costs a few lines per second, not one per attempt.
  private logRefusal(line: string): void {
    const now = Date.now();
    const r = this.refusals;
    if (now - r.windowStart >= 1000) {
      if (r.suppressed > 0) this.options.log(`${r.suppressed} more connections refused`);
      this.refusals = { windowStart: now, logged: 0, suppressed: 0 };
    }
    if (this.refusals.logged < REFUSALS_LOGGED_PER_SECOND) {
      this.refusals.logged++;
      this.options.log(line);
    } else this.refusals.suppressed++;
  }

  private ping(): void {
    for (const bridge of this.bridges) bridge.keepAlive(this.options.keepAliveMs);
  }

  /** Stops listening, closes every connection with 1001 and ends every process; resolves once all are gone. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      clearInterval(this.keepAlive);
      for (const socket of [...this.handshakes.keys()]) this.dropHandshake(socket);
      const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
      this.http.closeAllConnections();
      for (const bridge of this.bridges) bridge.stop();
      await Promise.all([closed, ...[...this.bridges].map((b) => b.done)]);
    })();
    return this.stopping;
  }
}

function remoteOf(socket: Socket): string {
  return `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
}

/**
 * `scheme://host[:port]` as browsers send it in `Origin` (lower case, default port dropped), or
 * undefined for anything that is not a bare origin (a path, query, fragment, credentials, `null`).
 */
export function normalOrigin(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const bare = url.origin !== 'null' && url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '' && !value.endsWith('#') && !value.endsWith('?');
  return bare ? url.origin : undefined;
}
