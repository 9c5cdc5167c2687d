// The inspector's HTTP server: the page (dist/inspector/, built by `npm run build`) and one
// WebSocket per page, behind a token. A request is refused without the token (401), with an
// Origin other than the page's own (403) or with a Host header that is not this server (403: DNS
// rebinding), before any host call.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Client, InspectorSession } from './session.js';
import { tokenMatches } from '../serve/auth.js';
import { isLoopback, listenOn, urlHost } from '../serve/listen.js';

/** Largest message a page may send, in bytes. */
const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

const FILES: Readonly<Record<string, string>> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/inspector.js': 'inspector.js',
  '/inspector.css': 'inspector.css',
};
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export interface InspectorServerOptions {
  host: string;
  port: number;
  token: string;
  session: InspectorSession;
  /** Where index.html, inspector.js and inspector.css are. @default the package's dist/inspector */
  assets?: string | undefined;
}

/** The directory of the built page: next to the bundled CLI (dist/inspector), or dist/ from the sources. */
export function assetsDir(): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'inspector'), path.resolve(here, '../../../dist/inspector')];
  return candidates.find((dir) => existsSync(path.join(dir, 'index.html')));
}

export class InspectorServer {
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly sockets = new Set<Socket>();
  /** Host headers that name this server (set once it listens: the port is known then). */
  private hosts = new Set<string>();
  /** The page's files as sent (index.html with the token in it), each read at its first GET: only the files of FILES. */
  private readonly bodies = new Map<string, Promise<Buffer | string | undefined>>();

  constructor(private readonly options: InspectorServerOptions) {
    this.http = createServer((req, res) => void this.request(req, res));
    this.http.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.wss = new WebSocketServer({ noServer: true, maxPayload: MAX_REQUEST_BYTES });
    this.http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => this.upgrade(req, socket, head));
  }

  async listen(): Promise<{ host: string; port: number }> {
    const port = await listenOn(this.http, this.options.host, this.options.port);
    this.hosts = hostNames(this.options.host, port);
    return { host: this.options.host, port };
  }

  /** Closes every page's socket and the server. */
  async stop(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  /** Why a request is refused: [status, text], or undefined when it may go on. */
  private refusal(req: IncomingMessage): [number, string] | undefined {
    const host = req.headers.host;
    if (host === undefined || !this.hosts.has(host.toLowerCase())) return [403, 'unknown Host header'];
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${host.toLowerCase()}`) return [403, 'foreign Origin'];
    if (!this.authorised(req)) return [401, 'missing or wrong token: open the URL zot-ext inspect printed'];
    return undefined;
  }

  private authorised(req: IncomingMessage): boolean {
    const url = new URL(req.url ?? '/', 'http://x');
    // No cookie: a cookie ignores ports, so the browser would give it to every other http://localhost:* service it opens.
    const given = [url.searchParams.get('token'), bearer(req.headers.authorization)];
    return given.some((t) => t !== undefined && t !== null && tokenMatches(t, this.options.token));
  }

  private async request(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = this.refusal(req);
    if (refused !== undefined) return end(res, refused[0], refused[1]);
    if (req.method !== 'GET' && req.method !== 'HEAD') return end(res, 405, 'method not allowed');
    const url = new URL(req.url ?? '/', 'http://x');
    const file = FILES[url.pathname];
    if (file === undefined) return end(res, 404, 'not found');
    const sent = await this.body(file);
    if (sent === undefined) return end(res, 500, 'the inspector page is not built: run npm run build');
    const headers: Record<string, string> = {
      'content-type': TYPES[path.extname(file)]!,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    };
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : sent);
  }

  /** `file` as sent, read once; undefined while it cannot be read (the page is not built: tried again at the next GET). */
  private body(file: string): Promise<Buffer | string | undefined> {
    let body = this.bodies.get(file);
    if (body === undefined) {
      const dir = this.options.assets ?? assetsDir();
      body =
        dir === undefined
          ? Promise.resolve(undefined)
          : readFile(path.join(dir, file)).then(
              // The page's later requests (its script and style, its WebSocket) carry the token in their
              // URL, from the page (never a cookie: see authorised()).
              (bytes) => (file === 'index.html' ? withToken(bytes.toString('utf8'), this.options.token) : bytes),
              () => undefined,
            );
      this.bodies.set(file, body);
      void body.then((read) => {
        if (read === undefined) this.bodies.delete(file);
      });
    }
    return body;
  }

  private upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    const refused = this.refusal(req);
    const url = new URL(req.url ?? '/', 'http://x');
    if (refused === undefined && url.pathname !== '/ws') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    if (refused !== undefined) {
      socket.end(`HTTP/1.1 ${refused[0]} ${refused[0] === 401 ? 'Unauthorized' : 'Forbidden'}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(refused[1])}\r\n\r\n${refused[1]}`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.page(ws));
  }

  private page(ws: WebSocket): void {
    const { session } = this.options;
    const client: Client = {
      send: (batch) => {
        if (ws.readyState === ws.OPEN) ws.send(batch);
      },
      buffered: () => ws.bufferedAmount,
      drop: (reason) => {
        ws.close(1013, reason);
        // The close frame waits behind what the page is not reading: end the connection soon anyway.
        setTimeout(() => ws.terminate(), 1000).unref();
      },
    };
    session.connect(client);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return ws.close(1003, 'text messages only');
      let request: unknown;
      try {
        request = JSON.parse(data.toString());
      } catch {
        return ws.close(1007, 'not JSON');
      }
      void session.handle(client, request);
    });
    ws.on('close', () => session.disconnect(client));
    ws.on('error', () => ws.terminate());
  }
}

/** Host headers that name a server bound to `bind`:`port`: its address, and localhost / 127.0.0.1 / [::1] for a loopback one. */
function hostNames(bind: string, port: number): Set<string> {
  const host = bind.toLowerCase();
  const names = [urlHost(host)];
  if (isLoopback(host)) names.push('127.0.0.1', 'localhost', '[::1]');
  return new Set(names.map((n) => `${n}:${port}`));
}

/** The page with the token in its script's and style's URLs, and in a meta tag its script reads (for a page opened with a bearer header). */
function withToken(html: string, token: string): string {
  const query = `?token=${encodeURIComponent(token)}`;
  const attr = token.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return html
    .replace('href="inspector.css"', `href="inspector.css${query}"`)
    .replace('src="inspector.js"', `src="inspector.js${query}"`)
    .replace('<head>', `<head>\n    <meta name="zot-inspect-token" content="${attr}" />`);
}

function bearer(header: string | undefined): string | undefined {
  return header?.startsWith('Bearer ') === true ? header.slice(7) : undefined;
}

function end(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`${text}\n`);
}
