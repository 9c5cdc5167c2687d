// `zot-ext mcp --http`: MCP's Streamable HTTP on one path (/mcp), each client session its own MCP
// server (McpSessions.create) over the SDK's web-standard transport. Before anything reaches the SDK
// a request passes the same gates as `zot-ext serve`: a foreign Origin gets 403, a Host that is not
// the loopback address we listen on gets 403 (DNS rebinding), no bearer token 401.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { hasBearer } from '../serve/auth.js';
import { isLoopback, listenOn } from '../serve/listen.js';
import { normalOrigin } from '../serve/server.js';
import type { McpSessions } from './bridge.js';

/** The one path MCP is served on. */
export const MCP_PATH = '/mcp';
/** Largest request body read, in bytes; a larger one gets 413. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Refusals logged one by one per second (as `zot-ext serve`); the rest are counted in one line. */
const REFUSALS_LOGGED_PER_SECOND = 10;

export interface McpHttpOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Required as `Authorization: Bearer <token>`. */
  token: string;
  /** Origins (`scheme://host[:port]`) whose pages may call; any other request with an Origin gets 403. */
  allowedOrigins: readonly string[];
  /** Whether `host` is a loopback address: then the Host header must name loopback too. */
  loopback: boolean;
  /**
   * Sessions open at once. A new one beyond closes the session whose last request is the oldest (its
   * client gets 404 on its next request and starts a new session, as MCP clients do): a client that
   * went away without ending its session holds no slot for long.
   */
  maxSessions: number;
  sessions: McpSessions;
  log: (line: string) => void;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  /** When a request of it last came (Date.now()). */
  used: number;
  close(): Promise<void>;
}

export class McpHttpServer {
  private readonly http: HttpServer;
  /** Sessions by id, once initialised. */
  private readonly open = new Map<string, Session>();
  /** Every session not yet closed (initialised or not). */
  private readonly all = new Set<Session>();
  private stopping: Promise<void> | undefined;
  private refusals = { windowStart: 0, logged: 0, suppressed: 0 };

  constructor(private readonly options: McpHttpOptions) {
    this.http = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        options.log(`${req.method ?? '?'} ${MCP_PATH}: ${err instanceof Error ? err.message : String(err)}`);
        if (!res.headersSent) plain(res, 500, 'internal error');
        else res.destroy();
      });
    });
    this.http.on('clientError', (_err, socket) => socket.destroy());
  }

  async listen(): Promise<{ host: string; port: number }> {
    const { host, port } = this.options;
    return { host, port: await listenOn(this.http, host, port) };
  }

  get sessions(): number {
    return this.all.size;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { token, allowedOrigins, loopback } = this.options;
    if (this.stopping !== undefined) return plain(res, 503, 'the server is shutting down');
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.includes(normalOrigin(origin) ?? origin)) {
      this.refused(`refused ${remoteOf(req)}: 403 origin ${origin.slice(0, 200)} is not allowed (--allow-origin)`);
      return plain(res, 403, 'origin not allowed');
    }
    if (loopback && !isLoopbackHost(req.headers.host)) {
      this.refused(`refused ${remoteOf(req)}: 403 Host ${String(req.headers.host).slice(0, 200)} is not a loopback address`);
      return plain(res, 403, 'host not allowed');
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== MCP_PATH) return plain(res, 404, `MCP is served on ${MCP_PATH}`);
    if (!hasBearer(req, token)) {
      this.refused(`refused ${remoteOf(req)}: 401 ${req.headers.authorization === undefined ? 'no Authorization header' : 'wrong token'}`);
      return plain(res, 401, 'a bearer token is required', { 'WWW-Authenticate': 'Bearer' });
    }
    const body = await readBody(req);
    if (body === 'too large') return plain(res, 413, `request body over ${MAX_BODY_BYTES} bytes`, { Connection: 'close' });
    const id = req.headers['mcp-session-id'];
    let session: Session;
    if (typeof id === 'string') {
      const found = this.open.get(id);
      if (found === undefined) return jsonError(res, 404, 'session not found');
      session = found;
      session.used = Date.now();
    } else {
      if (req.method !== 'POST') return jsonError(res, 400, 'no Mcp-Session-Id: initialize first');
      // The slot is taken before anything is awaited (close() and newSession() change `all` at once):
      // initializes that come together cannot open more than --max-sessions.
      const evicted: Promise<void>[] = [];
      while (this.all.size > 0 && this.all.size >= this.options.maxSessions) {
        const oldest = [...this.all].reduce((a, b) => (b.used < a.used ? b : a));
        this.options.log(`closed the session idle longest (${Math.round((Date.now() - oldest.used) / 1000)} s): ${this.options.maxSessions} sessions open (--max-sessions) and a new one came`);
        evicted.push(oldest.close());
      }
      const created = this.newSession();
      await Promise.all(evicted);
      session = await created;
    }
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) for (const v of value) headers.append(key, v);
      else if (value !== undefined) headers.set(key, value);
    }
    const request = new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`), {
      method: req.method ?? 'GET',
      headers,
      ...(body === undefined ? {} : { body }),
    });
    const response = await session.transport.handleRequest(request);
    // An opening request the SDK refused (not an initialize): the session never began.
    if (typeof id !== 'string' && session.transport.sessionId === undefined) void session.close();
    await send(res, response);
  }

  // A client retrying in a loop costs a few lines per second, not one per attempt.
  private refused(line: string): void {
    const now = Date.now();
    if (now - this.refusals.windowStart >= 1000) {
      if (this.refusals.suppressed > 0) this.options.log(`${this.refusals.suppressed} more requests refused`);
      this.refusals = { windowStart: now, logged: 0, suppressed: 0 };
    }
    if (this.refusals.logged < REFUSALS_LOGGED_PER_SECOND) {
      this.refusals.logged++;
      this.options.log(line);
    } else this.refusals.suppressed++;
  }

  /** A new session, in `all` before this returns (the rest is awaited). */
  private async newSession(): Promise<Session> {
    const server = this.options.sessions.create();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        this.open.set(sid, session);
      },
    });
    // Out of `all` and `open`: it holds no slot and no request finds it.
    const forget = () => {
      this.all.delete(session);
      if (transport.sessionId !== undefined) this.open.delete(transport.sessionId);
    };
    const session: Session = {
      transport,
      used: Date.now(),
      close: async () => {
        forget();
        await server.close().catch(() => undefined);
      },
    };
    this.all.add(session);
    const closed = server.onclose;
    server.onclose = () => {
      closed?.();
      forget();
    };
    await server.connect(transport);
    return session;
  }

  /** Closes every session, then the listener and every connection. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await Promise.all([...this.all].map((s) => s.close()));
      const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
      this.http.closeAllConnections();
      await closed;
    })();
    return this.stopping;
  }
}

function remoteOf(req: IncomingMessage): string {
  return `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`;
}

function isLoopbackHost(header: string | undefined): boolean {
  if (header === undefined) return false;
  let hostname: string;
  try {
    hostname = new URL(`http://${header}`).hostname;
  } catch {
    return false;
  }
  return isLoopback(hostname.replace(/^\[(.*)\]$/, '$1'));
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain', ...headers }).end(`${text}\n`);
}

function jsonError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** The request body (undefined for none), at most MAX_BODY_BYTES. */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined | 'too large'> {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE') return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return 'too large';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Writes a web Response to Node's response, streaming its body (SSE streams stay open until either side ends them). */
async function send(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => (headers[key] = value));
  res.writeHead(response.status, headers);
  if (response.body === null) return void res.end();
  const reader = response.body.getReader();
  res.once('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
      if (res.destroyed) break;
    }
  } catch {
    // The client went away, or the session closed.
  }
  res.end();
}
