// A remote extension: the same NDJSON frames over one WebSocket, one text message per line. No
// signal crosses a network: the end is in-band (`shutdown`, then a close with code 1000), a peer
// that stops answering pings is dead, and a dropped connection is the peer's exit.
import type { WebSocket as WsSocket } from 'ws';
import { EventEmitter } from 'eventemitter3';
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { redactUrl, resolveHeaders } from '../manifest/remote.js';
import type { ExtensionLog } from './log.js';
import { settlesWithin } from './settles-within.js';
import type { Transport, TransportCloseOptions, TransportEvents, TransportExit, TransportWatcher } from './transport.js';

/** ws send options of every message: text frames. */
const TEXT = { binary: false } as const;

/** A write's completion callback with its `this` (no closure per write). */
function callWith(done: () => void, context: unknown): void {
  done.call(context);
}

/** Ping period of a remote connection. */
const DEFAULT_PING_INTERVAL_MS = 15_000;
/** A peer that has not answered a ping (nor sent anything) for this long is dead. */
const DEFAULT_PING_TIMEOUT_MS = 10_000;
// send() reports backpressure over this many bytes buffered in the socket.
const HIGH_WATER_BYTES = 1024 * 1024;

type WsConstructor = typeof import('ws').WebSocket;
let WebSocketImpl: WsConstructor | undefined;

/** `ws` loads on first use: only a host with a remote extension pays for it. */
async function loadWebSocket(): Promise<void> {
  WebSocketImpl ??= (await import('ws')).default;
}

export interface WebSocketTransportOptions {
  /** The manifest name, in every message. */
  name: string;
  url: string;
  /** Header values of the form `env:NAME` are read from `env` at connect time. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
  log: ExtensionLog;
  /** The frame cap: the largest message accepted (`maxPayload`). */
  maxFrameBytes: number;
  /** Time allowed for the TCP connect and the upgrade together. @default 5000 */
  connectMs?: number | undefined;
  /** After the in-band goodbye: how long the peer has to acknowledge or close before the host closes. @default 2000 */
  shutdownMs?: number | undefined;
  /** Time the closing handshake may take before the socket is dropped. @default 1000 */
  killMs?: number | undefined;
  /** @default 15000 */
  pingIntervalMs?: number | undefined;
  /** @default 10000 */
  pingTimeoutMs?: number | undefined;
}

export class WebSocketTransport extends EventEmitter<TransportEvents> implements Transport {
  readonly pid = undefined;
  /** Where the peer lives, user name and password redacted. */
  readonly url: string;
  private socket: WsSocket | undefined;
  /** The start of a line whose LF has not been written yet. */
  private partial = '';
  /** Messages given to ws, and those it has handed to the socket; `dones` wait for the latter. */
  private sent = 0;
  private acked = 0;
  private readonly dones: { after: number; done: () => void; context: unknown }[] = [];
  private needDrain = false;
  private inputClosed = false;
  private closing = false;
  private ended = false;
  private onAck: (() => void) | undefined;
  /** The upgrade completed. */
  private opened = false;
  private earlyError: Error | undefined;
  /** A binary message arrived: the connection is closing, later messages are dropped. */
  private refusedBinary = false;
  private onEarlyEnd: ((err: Error | undefined) => void) | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private pongTimer: NodeJS.Timeout | undefined;
  private readonly closed: Promise<void>;
  private resolveClosed!: () => void;

  constructor(private readonly options: WebSocketTransportOptions) {
    super();
    this.url = redactUrl(options.url);
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  watch(watcher: TransportWatcher): void {
    this.on('error', watcher.transportFault, watcher);
    this.on('exit', watcher.transportExit, watcher);
    this.on('close', watcher.transportClose, watcher);
  }

  get writable(): boolean {
    return this.socket !== undefined && this.socket.readyState === 1 && !this.inputClosed && !this.closing;
  }

  get writing(): boolean {
    return this.acked < this.sent;
  }

  prepare(): Promise<void> {
    return loadWebSocket();
  }

  async start(receiver?: (line: string) => void, context?: unknown): Promise<void> {
    const { name, log } = this.options;
    await loadWebSocket();
    const resolved = resolveHeaders(this.options.headers, this.options.env ?? process.env);
    if (!resolved.ok) {
      throw this.fail(`cannot connect to ${name}: header ${resolved.header} is env:${resolved.variable}, and ${resolved.variable} ${resolved.problem} in the host environment`);
    }
    const connectMs = this.options.connectMs ?? 5000;
    try {
      // The same log as a local extension's: its directory made, rotated when full, a header per start.
      await (await log.openForChild(`connect ${name}: ${this.url}`)).close();
    } catch (err) {
      throw this.fail(`cannot connect to ${name}: cannot open log file ${log.path}: ${(err as Error).message}`, err);
    }
    const socket = new WebSocketImpl!(this.options.url, {
      headers: resolved.headers,
      maxPayload: this.options.maxFrameBytes,
      perMessageDeflate: false,
      followRedirects: false,
    });
    this.socket = socket;
    let refused: string | undefined;
    socket.on('unexpected-response', (request, response) => {
      refused = `the server answered HTTP ${response.statusCode} ${response.statusMessage ?? ''}`.trimEnd();
      response.resume();
      request.destroy();
      socket.terminate();
    });
    // Before 'open': the peer's hello may arrive in the same packet as the upgrade's answer.
    this.attach(socket, receiver === undefined ? (line) => this.emit('line', line) : context === undefined ? receiver : (line) => receiver.call(context, line));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        refused ??= `no WebSocket upgrade within ${connectMs} ms (the hello timeout)`;
        socket.terminate();
      }, connectMs); // not unref'd: start() awaits it (cleared at the upgrade or the end)
      socket.once('open', () => {
        clearTimeout(timer);
        this.opened = true;
        resolve();
      });
      this.onEarlyEnd = (err) => {
        clearTimeout(timer);
        reject(this.fail(`cannot connect to ${name} at ${this.url}: ${refused ?? err?.message ?? 'the connection closed during the upgrade'}`, err));
      };
    });
    void log.write(`connected to ${this.url}`);
    if (this.ended) return;
    const interval = this.options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
    this.pingTimer = setInterval(() => this.ping(), interval);
    this.pingTimer.unref();
  }

  private attach(socket: WsSocket, receiver: (line: string) => void): void {
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (this.refusedBinary) return;
      this.alive();
      if (isBinary) return this.refuseBinary(socket, data.length);
      const text = data.toString('utf8');
      if (!text.includes('\n')) {
        if (text !== '') receiver(text);
        return;
      }
      for (const line of text.split('\n')) if (line !== '') receiver(line);
    });
    socket.on('pong', () => this.alive());
    socket.on('error', (err: Error & { code?: string }) => {
      if (!this.opened) {
        this.earlyError ??= err;
        return;
      }
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
        const limit = this.options.maxFrameBytes;
        // ws knows the announced length of the frame it refused.
        const seen = (socket as unknown as { _receiver?: { _totalPayloadLength?: number } })._receiver?._totalPayloadLength;
        this.emit('error', { kind: 'frame_too_large', bytes: typeof seen === 'number' && seen > limit ? seen : limit + 1, limit });
        return;
      }
      void this.options.log.write(`connection error: ${err.message}`);
    });
    socket.on('close', (code: number, reason: Buffer) => {
      if (this.opened) this.onClose(code, reason.toString('utf8'));
      else {
        this.ended = true;
        this.resolveClosed();
        this.onEarlyEnd?.(this.earlyError);
      }
    });
  }

  /**
   * The protocol is one text message per frame (`zot-ext serve` refuses binary the same way): the
   * connection is closed with 1003, the peer's exit for the host, and the log says why.
   */
  private refuseBinary(socket: WsSocket, bytes: number): void {
    this.refusedBinary = true;
    void this.options.log.write(`${this.options.name} sent a binary message (${bytes} bytes); the protocol is one text message per frame: closing the connection with 1003`);
    socket.close(1003, 'binary messages are not accepted');
    this.emit('error', { kind: 'binary_message', bytes });
    // A peer that does not answer the close is dropped (not awaited: the close event ends it).
    setTimeout(() => socket.terminate(), this.options.killMs ?? 1000).unref();
  }

  private ping(): void {
    const socket = this.socket;
    if (socket === undefined || socket.readyState !== 1 || this.pongTimer !== undefined) return;
    const timeout = this.options.pingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS;
    this.pongTimer = setTimeout(() => {
      void this.options.log.write(`no pong within ${timeout} ms of a ping: the connection is dead, dropping it`);
      socket.terminate();
    }, timeout);
    this.pongTimer.unref();
    socket.ping();
  }

  /** Anything from the peer shows it is alive. */
  private alive(): void {
    if (this.pongTimer === undefined) return;
    clearTimeout(this.pongTimer);
    this.pongTimer = undefined;
  }

  private onClose(code: number, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
    void this.options.log.write(`connection closed: code ${code}${reason !== '' ? ` (${reason.slice(0, 200)})` : ''}`);
    // Every message arrived before the close: its lines are delivered.
    const exit: TransportExit = { code: null, signal: null, status: `connection closed (${code}${reason !== '' ? ` ${reason.slice(0, 200)}` : ''})` };
    this.emit('exit', exit);
    this.resolveClosed();
    this.emit('close', exit);
  }

  send(line: string): boolean {
    if (!this.writable) return false;
    this.sendLine(line);
    if (this.socket!.bufferedAmount < HIGH_WATER_BYTES) return true;
    this.needDrain = true;
    return false;
  }

  write(chunk: string, callback: () => void, context?: unknown): void {
    if (!this.writable) {
      setImmediate(callWith, callback, context);
      return;
    }
    let from = 0;
    for (let lf = chunk.indexOf('\n'); lf !== -1; lf = chunk.indexOf('\n', from)) {
      this.sendLine(this.partial === '' ? chunk.slice(from, lf) : this.partial + chunk.slice(from, lf));
      this.partial = '';
      from = lf + 1;
    }
    if (from < chunk.length) this.partial += chunk.slice(from);
    // In order: once every message sent so far is handed to the socket (a piece of a line at once).
    if (this.acked === this.sent) setImmediate(callWith, callback, context);
    else this.dones.push({ after: this.sent, done: callback, context });
  }

  /** One message; counted until ws handed it to the socket. */
  private sendLine(line: string): void {
    this.sent++;
    this.socket!.send(line, TEXT, () => {
      this.acked++;
      while (this.dones.length > 0 && this.dones[0]!.after <= this.acked) {
        const { done, context } = this.dones.shift()!;
        done.call(context);
      }
      if (this.needDrain && this.acked === this.sent) {
        this.needDrain = false;
        this.emit('drain');
      }
    });
  }

  closeInput(): void {
    // A WebSocket has no half-close: without input the connection is over.
    this.inputClosed = true;
    this.socket?.terminate();
  }

  async close(_reason?: string, options: TransportCloseOptions = {}): Promise<void> {
    const socket = this.socket;
    if (socket === undefined || this.ended) return;
    if (options.graceful === false || socket.readyState !== 1) {
      await this.terminate();
      return;
    }
    const { last } = options;
    if (last !== undefined && this.writable) this.write(last, () => undefined);
    this.closing = true;
    // The goodbye is answered (shutdown_ack) or the peer closes; else the grace runs out.
    const acked = new Promise<void>((resolve) => {
      this.onAck = resolve;
    });
    const graceMs = this.options.shutdownMs ?? 2000;
    if (!(await settlesWithin(Promise.race([acked, this.closed]), graceMs))) {
      void this.options.log.write(`no shutdown_ack or close within ${graceMs} ms of shutdown`);
    }
    if (this.ended) return;
    socket.close(1000, 'shutdown');
    if (!(await this.waitClosed(this.options.killMs ?? 1000))) await this.terminate();
  }

  /** The owner decoded the peer's `shutdown_ack`: a close() waiting for it goes on. */
  shutdownAcked(): void {
    if (this.closing) this.onAck?.();
  }

  async terminate(): Promise<void> {
    const socket = this.socket;
    if (socket === undefined || this.ended) return;
    socket.terminate();
    await this.waitClosed(5000);
  }

  private async waitClosed(ms: number): Promise<boolean> {
    return this.ended || settlesWithin(this.closed, ms);
  }

  private fail(message: string, cause?: unknown): ExtensionHostError {
    const { name, log } = this.options;
    const full = `${message}; see ${log.path}`;
    void log.write(full);
    return new ExtensionHostError(ErrorCode.SPAWN_FAILED, full, { extension: name, logPath: log.path, cause });
  }
}
