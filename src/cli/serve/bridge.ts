// One accepted WebSocket and the one extension process started for it: each stdout line becomes
// one text message, each message one stdin line. Either side ending ends the other.
import type { RawData, WebSocket } from 'ws';
import { LineDecoder } from '../../protocol/decoder.js';
import type { ChildHandle } from '../../transport/child.js';
import { afterOutput, STDOUT_EXIT_GRACE_MS } from '../../transport/streams.js';
import { prefixLines } from './stderr-lines.js';

/** The close codes `zot-ext serve` sends (RFC 6455 section 7.4.1). */
export const CloseCode = {
  /** The extension exited with code 0. */
  NORMAL: 1000,
  /** The server is shutting down (SIGINT/SIGTERM). */
  GOING_AWAY: 1001,
  /** A binary message: frames are text. */
  UNSUPPORTED_DATA: 1003,
  /** A message containing a line feed (or not UTF-8: ws closes with it itself). */
  INVALID_PAYLOAD: 1007,
  /** A message or an extension's stdout line over the frame cap. */
  MESSAGE_TOO_BIG: 1009,
  /** The extension exited with another code or a signal, or could not be started. */
  INTERNAL_ERROR: 1011,
} as const;

/** Above this many bytes queued on the socket, the extension's stdout is no longer read. */
export const SOCKET_HIGH_WATER_BYTES = 1024 * 1024;
/** How long a peer has to answer our close frame before the socket is dropped. */
const CLOSE_HANDSHAKE_MS = 1000;
/** How long the process tree may take to vanish after SIGKILL. */
const TREE_GONE_MS = 1000;

const LF = Buffer.from('\n');

export interface BridgeOptions {
  /** Connection number, in every log line. */
  id: number;
  /** The extension's manifest name (prefix of its stderr lines). */
  name: string;
  /** The served extension's directory: what its `hello_ack` says instead of the host's paths. */
  dir: string;
  /** Its `data_dir` when not `dir` (sandboxed: the directory is read-only). */
  dataDir?: string | undefined;
  socket: WebSocket;
  /** Starts the extension process (stderr piped). */
  spawn: () => Promise<ChildHandle>;
  maxFrameBytes: number;
  /** Grace after SIGTERM before SIGKILL. */
  killGraceMs: number;
  /** One event line on the server's stderr. */
  log: (line: string) => void;
  /** One line the extension wrote to its stderr, prefixed `[name #id]`. */
  stderr: (line: string) => void;
}

export class Bridge {
  /** Resolves once the socket is closed and the process tree is gone. Never rejects. */
  readonly done: Promise<void>;
  /** Answered the last keep-alive ping. */
  alive = true;
  private child: ChildHandle | undefined;
  private exited = false;
  private killing = false;
  private closing = false;
  private socketClosed = false;
  private stdoutPaused = false;
  private readonly early: Buffer[] = [];
  private acked = false;
  private resolveSocketClosed!: () => void;
  private resolveExited!: () => void;

  constructor(private readonly options: BridgeOptions) {
    const socketDone = new Promise<void>((resolve) => (this.resolveSocketClosed = resolve));
    const childDone = new Promise<void>((resolve) => (this.resolveExited = resolve));
    this.done = Promise.all([socketDone, childDone]).then(async () => {
      await this.child?.treeGone?.(TREE_GONE_MS);
    });
    const { socket } = options;
    socket.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    socket.on('pong', () => (this.alive = true));
    socket.on('error', (err) => options.log(`#${options.id} socket error: ${err.message}`));
    socket.once('close', (code, reason) => this.onSocketClose(code, reason.toString()));
    // Nothing is read from the socket until there is a process to write to.
    socket.pause();
  }

  /** Spawns the process and connects it to the socket. */
  async start(remote: string): Promise<void> {
    const { id, log } = this.options;
    let child: ChildHandle;
    try {
      child = await this.options.spawn();
    } catch (err) {
      log(`#${id} cannot start the extension: ${err instanceof Error ? err.message : String(err)}`);
      this.resolveExited();
      this.close(CloseCode.INTERNAL_ERROR, 'cannot start the extension');
      return;
    }
    this.child = child;
    log(`#${id} connect from ${remote}, pid ${child.pid ?? '?'}`);
    if (this.socketClosed) {
      // The peer left while the process started.
      this.kill();
    }
    this.wire(child);
    for (const data of this.early.splice(0)) this.toStdin(data);
    if (!this.socketClosed) this.options.socket.resume();
  }

  private wire(child: ChildHandle): void {
    const { socket, maxFrameBytes, id, name, log, stderr } = this.options;
    const decoder = new LineDecoder(
      (line) => this.toSocket(line),
      (bytes, limit) => {
        log(`#${id} the extension wrote a line of more than ${limit} bytes (${bytes} seen): closing`);
        this.close(CloseCode.MESSAGE_TOO_BIG, `extension line over ${limit} bytes`);
        this.kill();
      },
      { maxFrameBytes },
    );
    child.stdout.on('data', (chunk: Buffer) => decoder.push(chunk));
    child.stdout.on('error', () => undefined);
    child.stdin.on('error', () => undefined);
    child.stdin.on('drain', () => {
      if (!this.socketClosed) socket.resume();
    });
    if (child.stderr !== undefined) prefixLines(child.stderr, `[${name} #${id}]`, stderr);
    child.onError((err) => log(`#${id} process error: ${err.message}`));
    child.onExit((code, signal) => {
      const reason = signal !== null ? `exit signal ${signal}` : `exit code ${code}`;
      log(`#${id} ${reason}`);
      afterOutput(child.stdout, STDOUT_EXIT_GRACE_MS, () => {
        if (this.exited) return;
        this.exited = true;
        decoder.end();
        // Grandchildren may outlive the extension: the group goes too.
        child.kill('SIGKILL');
        this.resolveExited();
        this.close(code === 0 ? CloseCode.NORMAL : CloseCode.INTERNAL_ERROR, reason);
      });
    });
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    const { id, log } = this.options;
    if (this.closing) return;
    if (isBinary) {
      log(`#${id} refused a binary message: closing`);
      this.close(CloseCode.UNSUPPORTED_DATA, 'binary message: frames are text');
      return;
    }
    // The server's binaryType is nodebuffer: a message is one Buffer.
    const bytes = data as Buffer;
    if (bytes.includes(0x0a)) {
      log(`#${id} refused a message containing a line feed: closing`);
      this.close(CloseCode.INVALID_PAYLOAD, 'a message is one frame without a line feed');
      return;
    }
    const line = this.acked ? bytes : this.localAck(bytes);
    if (this.child === undefined) this.early.push(line);
    else this.toStdin(line);
  }

  /**
   * The host's `extension_dir` / `data_dir` are paths on the host's machine; the served extension
   * gets its own directory instead (once, in its `hello_ack`; every other frame passes unchanged).
   */
  private localAck(bytes: Buffer): Buffer {
    let frame: unknown;
    try {
      frame = JSON.parse(bytes.toString('utf8'));
    } catch {
      return bytes;
    }
    if (typeof frame !== 'object' || frame === null || (frame as { type?: unknown }).type !== 'hello_ack') return bytes;
    this.acked = true;
    const ack = frame as Record<string, unknown>;
    if ('extension_dir' in ack) ack.extension_dir = this.options.dir;
    if ('data_dir' in ack) ack.data_dir = this.options.dataDir ?? this.options.dir;
    return Buffer.from(JSON.stringify(ack));
  }

  private toStdin(bytes: Buffer): void {
    const { stdin } = this.child!;
    if (stdin.destroyed || stdin.writableEnded) return;
    // Stop reading the socket until the extension has taken what it was given.
    stdin.write(bytes);
    if (!stdin.write(LF)) this.options.socket.pause();
  }

  private toSocket(line: string): void {
    const { socket } = this.options;
    if (this.closing) return;
    socket.send(line, () => {
      if (this.stdoutPaused && socket.bufferedAmount <= SOCKET_HIGH_WATER_BYTES / 4) {
        this.stdoutPaused = false;
        this.child?.stdout.resume();
      }
    });
    if (socket.bufferedAmount > SOCKET_HIGH_WATER_BYTES && !this.stdoutPaused) {
      this.stdoutPaused = true;
      this.child?.stdout.pause();
    }
  }

  /** Closes the socket (once); dropped when the peer does not answer the close frame in time. */
  close(code: number, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    const { socket } = this.options;
    if (this.socketClosed) return;
    socket.close(code, reason);
    setTimeout(() => socket.terminate(), CLOSE_HANDSHAKE_MS).unref();
  }

  /** Ends the process tree: stdin EOF and SIGTERM now, SIGKILL after the grace. */
  kill(): void {
    const child = this.child;
    if (child === undefined || this.exited || this.killing) return;
    this.killing = true;
    child.stdin.destroy();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), this.options.killGraceMs);
    child.onExit(() => clearTimeout(timer));
  }

  /** One keep-alive round: the peer is dropped when it did not answer the previous ping. */
  keepAlive(intervalMs: number): void {
    const { socket, id, log } = this.options;
    if (this.closing) return;
    if (!this.alive) {
      log(`#${id} no pong within ${intervalMs} ms: dropping the connection`);
      socket.terminate();
      return;
    }
    this.alive = false;
    socket.ping();
  }

  /** Server shutdown: close the socket with 1001 and end the process. */
  stop(): void {
    this.close(CloseCode.GOING_AWAY, 'server shutting down');
    this.kill();
  }

  private onSocketClose(code: number, reason: string): void {
    this.socketClosed = true;
    this.closing = true;
    this.options.log(`#${this.options.id} closed ${code}${reason === '' ? '' : ` ${JSON.stringify(reason)}`}`);
    this.resolveSocketClosed();
    this.kill();
  }
}
