// The WebSocket server of `zot-ext serve`: authenticates and counts upgrades (refused with an HTTP
// status before any process starts), gives each accepted socket its own Bridge, pings the peers,
// and stops everything it started.
import { createServer, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ChildHandle } from '../../transport/child.js';
import { hasBearer } from './auth.js';
import { Bridge } from './bridge.js';

export interface ExtensionServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The extension's manifest name. */
  name: string;
  /** The served extension's directory: its `extension_dir` and `data_dir` in `hello_ack`. */
  dir: string;
  /** Starts one extension process (stderr piped). */
  spawn: () => Promise<ChildHandle>;
  /** Required as `Authorization: Bearer <token>` when set. */
  token?: string | undefined;
  /** Open connections (each with its process) at most; more upgrades get 503. */
  maxConnections: number;
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
  private upgrading = 0;
  private nextId = 1;
  private stopping: Promise<void> | undefined;
  private keepAlive: NodeJS.Timeout | undefined;
  private refusals = { windowStart: 0, logged: 0, suppressed: 0 };

  constructor(private readonly options: ExtensionServerOptions) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: options.maxFrameBytes, perMessageDeflate: false, clientTracking: false });
    this.http = createServer((_req, res) => {
      res.writeHead(426, { 'Content-Type': 'text/plain', Upgrade: 'websocket', Connection: 'close' }).end('zot-ext serve speaks WebSocket only\n');
    });
    this.http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.onUpgrade(req, socket, head));
    this.http.on('clientError', (_err, socket) => socket.destroy());
  }

  /** Listens; resolves with the bound address (the real port when 0 was asked for). */
  async listen(): Promise<{ host: string; port: number }> {
    const { host, port } = this.options;
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen({ host, port }, () => {
        this.http.off('error', reject);
        resolve();
      });
    });
    if (this.options.keepAliveMs > 0) {
      this.keepAlive = setInterval(() => this.ping(), this.options.keepAliveMs);
      this.keepAlive.unref();
    }
    return { host, port: (this.http.address() as AddressInfo).port };
  }

  /** Open connections. */
  get connections(): number {
    return this.bridges.size;
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => undefined);
    const remote = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`;
    if (this.stopping !== undefined) return this.refuse(socket, remote, 503, 'the server is shutting down');
    const { token, maxConnections } = this.options;
    if (token !== undefined && !hasBearer(req, token)) {
      const why = req.headers.authorization === undefined ? 'no Authorization header' : 'wrong token';
      return this.refuse(socket, remote, 401, why, { 'WWW-Authenticate': 'Bearer' });
    }
    if (this.bridges.size + this.upgrading >= maxConnections) {
      return this.refuse(socket, remote, 503, `${maxConnections} connections open (--max-connections)`);
    }
    this.upgrading++;
    let accepted = false;
    // An upgrade ws rejects (a bad handshake) never calls back: the socket just closes.
    socket.once('close', () => {
      if (!accepted) this.upgrading--;
    });
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      accepted = true;
      this.upgrading--;
      this.accept(ws, remote);
    });
  }

  private accept(ws: WebSocket, remote: string): void {
    const { name, dir, spawn, maxFrameBytes, killGraceMs, log, stderr } = this.options;
    const bridge = new Bridge({ id: this.nextId++, name, dir, socket: ws, spawn, maxFrameBytes, killGraceMs, log, stderr });
    this.bridges.add(bridge);
    void bridge.done.then(() => this.bridges.delete(bridge));
    if (this.stopping !== undefined) bridge.stop();
    void bridge.start(remote);
  }

  private refuse(socket: Duplex, remote: string, status: number, why: string, headers: Record<string, string> = {}): void {
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
      const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
      this.http.closeAllConnections();
      for (const bridge of this.bridges) bridge.stop();
      await Promise.all([closed, ...[...this.bridges].map((b) => b.done)]);
    })();
    return this.stopping;
  }
}
