// A raw-frame WebSocket client for `zot-ext serve` tests, and a served CLI: every wait is bounded
// and resolves on the event itself.
import WebSocket, { type ClientOptions } from 'ws';
import { withDeadline, WAIT_MS } from '../helpers/wait.js';
import { CliProcess, type CliOptions } from './cli.js';

export type Frame = Record<string, unknown> & { type: string };

const clients = new Set<FrameClient>();

/** One connection speaking the protocol's frames as JSON text messages. */
export class FrameClient {
  readonly frames: Frame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly listeners = new Set<() => void>();

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()) as Frame);
      for (const l of this.listeners) l();
    });
    ws.on('error', () => undefined);
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    clients.add(this);
    void this.closed.then(() => clients.delete(this));
  }

  /** Resolves once open; rejects with the HTTP status of a refused upgrade (`status` on the error). */
  static connect(url: string, options: ClientOptions = {}): Promise<FrameClient> {
    const ws = new WebSocket(url, options);
    const client = new FrameClient(ws);
    return withDeadline<FrameClient | Error>(`connect ${url}`, WAIT_MS, (resolve) => {
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) => {
        resolve(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode }));
        res.resume();
        ws.terminate();
      });
      ws.once('error', (err) => resolve(err));
      return () => undefined;
    }).then((r) => {
      if (r instanceof Error) throw r;
      return r;
    });
  }

  send(frame: Frame): void {
    this.ws.send(JSON.stringify(frame));
  }

  /** The first frame (received so far or later) that matches. */
  waitFor(predicate: (f: Frame) => boolean, what = 'a frame', ms = WAIT_MS): Promise<Frame> {
    return withDeadline(() => `${what}; got ${this.frames.map((f) => f.type).join(', ')}`, ms, (resolve) => {
      const check = () => {
        const found = this.frames.find(predicate);
        if (found !== undefined) resolve(found);
      };
      this.listeners.add(check);
      check();
      return () => this.listeners.delete(check);
    });
  }

  /** hello -> hello_ack -> ready. */
  async handshake(): Promise<Frame> {
    const hello = await this.waitFor((f) => f.type === 'hello', 'hello');
    this.send({ type: 'hello_ack', protocol_version: 1 });
    await this.waitFor((f) => f.type === 'ready', 'ready');
    return hello;
  }

  /** Resolves with the close code and reason; rejects after `ms`. */
  closeInfo(ms = WAIT_MS): Promise<{ code: number; reason: string }> {
    return withDeadline('the connection to close', ms, (resolve) => {
      void this.closed.then(resolve);
      return () => undefined;
    });
  }
}

/** For afterEach: drops every client still connected. */
export async function closeClients(): Promise<void> {
  const open = [...clients];
  for (const c of open) c.ws.terminate();
  await Promise.all(open.map((c) => c.closed));
}

/** `zot-ext serve <dir> ...args` running, and the URL it printed on its first stdout line. */
export async function startServe(dir: string, args: readonly string[] = [], options: CliOptions = {}): Promise<{ cli: CliProcess; url: string }> {
  const cli = new CliProcess(['serve', dir, ...args], options);
  await cli.waitFor('\n');
  const first = cli.stdout.split('\n')[0]!;
  const match = /^listening (ws:\/\/127\.0\.0\.1:(\d+))$/.exec(first);
  if (match === null) throw new Error(`unexpected first line ${JSON.stringify(first)}; stderr: ${cli.stderr}`);
  return { cli, url: match[1]! };
}

/** The pid `zot-ext serve` logged for connection `n`. */
export async function pidOf(cli: CliProcess, n: number): Promise<number> {
  const pattern = new RegExp(`#${n} connect from [^\\n]*, pid (\\d+)`);
  await cli.waitFor(pattern, 'stderr');
  return Number(pattern.exec(cli.stderr)![1]);
}
