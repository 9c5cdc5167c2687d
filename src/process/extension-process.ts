// One extension connection: a Transport (bytes, the process) under a Connection (ids, deadlines,
// batching), composed with the handshake, the decoding of lines and the stop sequence.
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { Connection, type ConnectionOptions } from '../connection/connection.js';
import { DEFAULT_MAX_OUTBOUND_BYTES } from '../connection/writer.js';
import type { CallToolResultFrame, ExtensionFrame, HelloFrame, HostFrame } from '../protocol/frames.js';
import type { RequestFrame, RequestOptions, RequestType, ResponseFor } from '../connection/requests.js';
import { decodeLine, encodeFrame, isLineProblem, needsCodec, preview, type LineProblem } from '../protocol/frame-check.js';
import { DEFAULT_MAX_FRAME_BYTES } from '../protocol/limits.js';
import { createTransport } from '../transport/create.js';
import type { Transport, TransportExit, TransportFault, TransportWatcher } from '../transport/transport.js';
import { CodecGate } from './codec-gate.js';
import { faultEnding } from './faults.js';
import { HelloWait } from './hello-wait.js';
import type { ExitInfo, ExtensionProcessOptions } from './types.js';
import { ProcessBase } from './process-base.js';
import { helloAck, isSnapshotEra, negotiate, progressLine, type ProtocolCapability, upstreamDeclared } from './negotiation.js';
import type { UpstreamCapability } from '../protocol/names.js';
import { monotonicMs } from '../clock.js';

export type { AbortLike, RequestFrame, RequestOptions, RequestType, ResponseFor, ResponseMapper } from '../connection/requests.js';
export type { Launch } from '../transport/create.js';
export type { ExitInfo, ExtensionProcessOptions, HostInfo, ProcessDiagnostic, ProcessEvents, ProcessStats, ProcessTimeouts, ProcessWatcher } from './types.js';

type State = 'idle' | 'starting' | 'running' | 'stopping' | 'closed';

const NO_CAPABILITIES: readonly ProtocolCapability[] = Object.freeze([]);

/**
 * One extension connection: spawn, handshake, request correlation, deadlines, shutdown.
 * Every pending request settles exactly once; nothing from this process outlives `exit`.
 * It is its Connection's options and its transport's watcher itself: no objects or closures for them.
 */
export class ExtensionProcess extends ProcessBase implements ConnectionOptions, TransportWatcher {
  /** It said hello (start() resolved the frame; the frame itself is not kept). */
  saidHello = false;
  /** The protocol extensions negotiated in the handshake (empty for a plain zot extension). */
  capabilities: readonly ProtocolCapability[] = NO_CAPABILITIES;
  /** zot's capabilities (docs/protocol.md "zot versions") it declared that the host implements. */
  upstream: readonly UpstreamCapability[] = NO_CAPABILITIES as readonly never[];
  /** It declared zot's `call_tool` (read on every tool call: a flag, not a search of `upstream`). */
  callsTools = false;
  /** It declared no capability the host knows: it sees exactly the spec snapshot's frames (negotiation.ts). */
  snapshotEra = true;
  // For the connection (ConnectionOptions).
  readonly idPrefix: string;
  readonly maxFrameBytes: number;
  readonly maxOutboundBytes: number;
  readonly stuckMs: number;
  // What is used after construction, not the options object (and its launch) for the process's life.
  private readonly host: ExtensionProcessOptions['host'];
  /** hello_ack's data_dir when not `dir` (a sandboxed extension's). */
  private readonly dataDir: string | undefined;
  private readonly offered: ExtensionProcessOptions['capabilities'];
  private readonly helloTimeout: number;
  private readonly transport: Transport;
  private readonly connection: Connection;
  /** transport.start() resolved: there is a peer to stop. */
  private connected = false;
  private state: State = 'idle';
  private exitInfo: ExitInfo | undefined;
  /** Made when someone waits for the exit (`exited`). */
  private exitPromise: Promise<ExitInfo> | undefined;
  private resolveExit: ((info: ExitInfo) => void) | undefined;
  private disconnected: ExtensionHostError | undefined;
  private helloWait: HelloWait | undefined;
  private stopping: Promise<void> | undefined;
  /** The transport's start while it runs: a stop() meanwhile waits for it and closes what it opened. */
  private opening: Promise<void> | undefined;
  private endReason: ExitInfo['reason'] | undefined;
  /** Set when the peer exits: how the connection ends once its last lines are read. */
  private ending: { reason: ExitInfo['reason']; error: ExtensionHostError; status: string | undefined } | undefined;
  /** Holds lines while the frame schemas load; made for the first line that needs them. */
  private gate: CodecGate | undefined;

  /** The embedder's frame tap (ConnectionOptions.tap for `out`; lineIn for `in`). */
  tap: ((direction: 'in' | 'out', line: string) => void) | undefined;

  constructor(options: ExtensionProcessOptions) {
    super(options);
    ({ host: this.host, capabilities: this.offered, dataDir: this.dataDir } = options);
    this.helloTimeout = options.timeouts?.hello ?? 5000;
    const maxFrameBytes = (this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES);
    const { timeouts } = options;
    this.idPrefix = options.idPrefix ?? options.name;
    this.tap = options.frameTap;
    this.maxOutboundBytes = options.maxOutboundBytes ?? DEFAULT_MAX_OUTBOUND_BYTES;
    this.stuckMs = timeouts?.stuck ?? 60_000;
    this.transport = createTransport(options.launch, { name: this.name, dir: this.dir, log: this.logFile, maxFrameBytes, shutdownMs: timeouts?.shutdown, killMs: timeouts?.kill, connectMs: this.helloTimeout });
    this.connection = new Connection(this.transport, this);
    this.transport.watch(this);
  }

  // Internal (ConnectionOptions): disconnected or closed.
  isOver(): boolean { return this.disconnected !== undefined || this.state === 'closed'; }

  /** Internal (TransportWatcher). */
  transportClose(exit: TransportExit): void {
    const { gate } = this;
    if (gate === undefined) this.onPeerClosed(exit);
    else gate.after(() => this.onPeerClosed(exit));
  }

  get pid(): number | undefined {
    return this.transport.pid;
  }
  /** Where a remote extension lives (user name and password redacted). */
  get url(): string | undefined { return this.transport.url; }

  /** True between a successful handshake and the end of the connection. */
  get running(): boolean {
    return this.state === 'running';
  }

  /** Resolves when the connection is over. */
  get exited(): Promise<ExitInfo> {
    const info = this.exitInfo;
    return (this.exitPromise ??= info !== undefined ? Promise.resolve(info) : new Promise((resolve) => (this.resolveExit = resolve)));
  }

  /**
   * Spawns (or connects), waits for `hello`, sends `hello_ack` immediately, and resolves the hello
   * frame. Rejects with a typed error (SPAWN_FAILED, EXITED_BEFORE_HELLO, HELLO_TIMEOUT, BAD_HELLO)
   * only after the process tree is gone. Attach `frame` listeners before calling: frames sent right
   * after hello are emitted before this resolves.
   */
  async start(): Promise<HelloFrame> {
    if (this.state !== 'idle') throw new ExtensionHostError(ErrorCode.NOT_STARTED, `${this.name}: start() called twice`, this.errOpts());
    this.state = 'starting';
    // The transport's modules load on first use; the frame schemas only for a line that needs them (codec-gate.ts).
    try {
      await this.transport.prepare?.();
    } catch (err) {
      this.state = 'closed';
      this.finish({ code: null, signal: null, reason: 'exited' });
      throw this.error(ErrorCode.SPAWN_FAILED, `cannot start ${this.name}: cannot load the host's own modules: ${(err as Error).message}`, err);
    }
    if (this.stopping !== undefined) throw this.stoppedBeforeHello();
    const wait = (this.helloWait = new HelloWait());
    const began = monotonicMs();
    try {
      await (this.opening = this.transport.start(this.lineIn, this));
    } catch (err) {
      wait.end();
      this.state = 'closed';
      this.finish({ code: null, signal: null, reason: 'exited' });
      throw err;
    } finally {
      this.opening = undefined;
    }
    // Stopped while it spawned or connected: the stop closes the peer just opened (see doStop).
    if (this.stopping !== undefined) {
      wait.end();
      throw this.saidHello ? this.error(ErrorCode.NOT_STARTED, `${this.name} was stopped during its start`) : this.stoppedBeforeHello();
    }
    this.connected = true;
    // A remote peer's connect counts against the hello timeout: one deadline for the whole start.
    return this.handshake(wait.result, this.transport.url !== undefined ? monotonicMs() - began : 0);
  }

  private handshake(result: Promise<HelloFrame>, spent: number): Promise<HelloFrame> {
    const { helloTimeout } = this;
    const timer = setTimeout(() => {
      this.failEarly(this.error(ErrorCode.HELLO_TIMEOUT, `${this.name} did not send hello within ${helloTimeout} ms; see ${this.logPath}`));
    }, Math.max(1, helloTimeout - spent)); // not unref'd: start() awaits it (an in-memory peer holds no handle)
    return result.then(
      (hello) => {
        clearTimeout(timer);
        return hello;
      },
      async (error: ExtensionHostError) => {
        clearTimeout(timer);
        this.logLine(error.message);
        await this.transport.terminate();
        throw error;
      },
    );
  }

  private failEarly(error: ExtensionHostError): void {
    const reject = this.helloWait?.end();
    if (reject !== undefined) {
      this.state = 'stopping';
      reject(error);
    }
  }

  /** Internal (the transport's receiver, and the codec gate's for the lines it held): one line of the peer. */
  lineIn(line: string): void {
    this.tap?.('in', line);
    const { gate } = this;
    const decoded = gate !== undefined ? gate.decode(line) : decodeLine(line, undefined);
    if (decoded === undefined) return;
    // A frame's handling reaches listeners and callbacks: whatever they throw must not escape into
    // the stdout handler (a crash of the embedder, and the lines after this one in the chunk lost).
    try {
      if (!isLineProblem(decoded)) this.onFrame(decoded);
      // The first line that needs the schemas: the gate holds it while they load.
      else if (gate === undefined && needsCodec(decoded)) this.holdForCodec(line);
      else this.onDecoded(decoded, line);
    } catch (err) {
      this.diagnose('CALLBACK_THREW', `handling a ${isLineProblem(decoded) ? 'line' : `${decoded.type} frame`} threw: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Internal (negotiation.ts): holds `line` until the schemas are loaded, unless they were tried already. */
  holdForCodec(line: string): boolean {
    this.gate ??= new CodecGate(
      {
        line: (held) => this.lineIn(held),
        diagnose: (message) => this.diagnose('INVALID_FRAME', message),
        log: (message) => this.logLine(message),
        stats: this.stats,
      },
      this.maxFrameBytes,
    );
    return this.gate.holdIfUnloaded(line);
  }

  private onDecoded(decoded: LineProblem, line: string): void {
    const { problem } = decoded;
    // Not a frame of zot's: one only an extension that negotiated "progress" may send.
    if (problem.kind === 'unknown_type' && problem.type === 'progress' && this.state === 'running' && this.capabilities.includes('progress')) {
      progressLine(line, this.gate?.codec, this.connection, this, decoded.value);
      return;
    }
    if (problem.kind === 'unknown_type' && problem.type === 'unregister_tool' && this.state === 'running' && this.capabilities.includes('unregister')) {
      this.unregisterLine(line, decoded.value);
      return;
    }
    this.stats.badLines++;
    const message = this.problemMessage(problem, line);
    if (problem.kind === 'invalid' && problem.id !== undefined && this.connection.has(problem.id)) {
      this.connection.settle(problem.id, undefined, this.error(ErrorCode.BAD_RESPONSE, `${this.name} answered with an ${message}`));
    } else if (this.state === 'starting' && problem.kind !== 'not_json') {
      this.failEarly(this.error(ErrorCode.BAD_HELLO, `${this.name}: the first frame must be hello, got ${message}; see ${this.logPath}`));
      return;
    }
    const code = ({ not_json: 'NOT_JSON', not_object: 'NOT_OBJECT', unknown_type: 'UNKNOWN_TYPE', invalid: 'INVALID_FRAME' } as const)[problem.kind];
    this.diagnose(code, message);
  }

  /** An `unregister_tool` line of an extension that negotiated "unregister": its one field checked here. */
  private unregisterLine(line: string, value: Record<string, unknown> | undefined): void {
    const name = value?.name;
    this.stats.framesIn++;
    if (typeof name === 'string' && name !== '') {
      this.watcher?.processFrame({ type: 'unregister_tool', name });
      return;
    }
    this.stats.badLines++;
    this.diagnose('INVALID_FRAME', `invalid unregister_tool frame (name: a non-empty string): ${preview(line)}`);
  }

  /**
   * What the problem says, quoting the line. The quote is cut (a preview, a field's first
   * characters): a line holding a secret is redacted whole first and the problem worded again, so
   * that the cut never leaves a piece of a secret.
   */
  private problemMessage(problem: LineProblem['problem'], line: string): string {
    const { redactor } = this;
    if (!redactor.finds(line)) return problem.message;
    const redacted = redactor.redact(line);
    const again = decodeLine(redacted, this.gate?.codec);
    return isLineProblem(again) ? again.problem.message : `${problem.kind.replace('_', ' ')}: ${preview(redacted)}`;
  }

  private onFrame(frame: ExtensionFrame): void {
    this.stats.framesIn++;
    if (this.state === 'starting') {
      if (frame.type !== 'hello') {
        this.failEarly(this.error(ErrorCode.BAD_HELLO, `${this.name}: the first frame must be hello, got ${JSON.stringify(frame.type)}; see ${this.logPath}`));
        return;
      }
      this.acceptHello(frame);
      return;
    }
    if (this.state !== 'running') {
      // The goodbye answered: a transport waiting for it closes now.
      if (frame.type === 'shutdown_ack') this.transport.shutdownAcked?.();
      return;
    }
    switch (frame.type) {
      case 'tool_result':
      case 'command_response':
      case 'event_intercept_response':
        this.connection.settle(frame.id, frame);
        return;
      case 'hello':
        this.diagnose('INVALID_FRAME', 'duplicate hello ignored');
        return;
      default:
        this.watcher?.processFrame(frame);
        this.emit('frame', frame);
    }
  }

  private acceptHello(frame: HelloFrame): void {
    this.saidHello = true;
    if (frame.name !== this.name) {
      this.diagnose('HELLO_NAME_MISMATCH', `hello names the extension ${JSON.stringify(frame.name)} but its manifest says ${JSON.stringify(this.name)}; using the manifest name`);
    }
    this.state = 'running';
    const negotiated = negotiate(frame.capabilities, this.offered);
    if (negotiated.length > 0) this.capabilities = negotiated;
    this.connection.cancels = negotiated.includes('cancel');
    this.snapshotEra = isSnapshotEra(frame.capabilities);
    this.upstream = upstreamDeclared(frame.capabilities);
    this.callsTools = this.upstream.includes('call_tool');
    // zot's tool_cancel only where our cancel (which also carries the reason) was not negotiated.
    this.connection.toolCancels = this.upstream.includes('tool_cancel') && !this.connection.cancels;
    // hello_ack goes out immediately: newer SDKs wait for it before registering.
    this.send(helloAck(this.host, this.dir, negotiated, this.upstream, this.dataDir));
    this.helloWait?.accept(frame);
    // Settled: what it would still answer (end(), waiting) is what no wait answers.
    this.helloWait = undefined;
  }

  /** Internal (TransportWatcher). */
  transportFault(fault: TransportFault): void {
    const hello = this.state === 'starting' && this.helloWait?.waiting === true;
    const ending = faultEnding(fault, hello ? 'hello' : this.state === 'running' ? 'running' : 'other', this.errOpts());
    if (ending === undefined) return;
    if (ending.diagnostic !== undefined) this.diagnose(ending.diagnostic.code, ending.diagnostic.message);
    // A start that failed ends with the transport's close; during the handshake, the handshake fails.
    if (fault.kind === 'failed' || this.state === 'starting') this.failEarly(ending.error);
    else this.disconnect(ending.error, ending.reason, ending.closing !== true);
  }

  /** Internal (TransportWatcher). */
  transportExit({ code, signal, status: ended }: TransportExit): void {
    const status = signal !== null ? `signal ${signal}` : `code ${code}`;
    // A remote peer's end in words; a process's exit status.
    const how = ended ?? `exited with ${status}`;
    const reject = this.state === 'starting' ? this.helloWait?.end() : undefined;
    if (reject !== undefined) {
      this.state = 'stopping';
      void this.logFile.tail(5).then((lines) => {
        // One stderr line a line, indented: a stack reads as a stack.
        const tail = lines.length > 0 ? `\nLast stderr:\n${lines.map((l) => `  ${l}`).join('\n')}\n` : ' ';
        reject(this.error(ErrorCode.EXITED_BEFORE_HELLO, `${this.name} ${how} before sending hello.${tail}See ${this.logPath}`, undefined, code, signal));
      });
    }
    const reason = this.endReason ?? (this.state === 'stopping' ? 'stopped' : 'exited');
    const error = this.disconnected ?? this.error(ErrorCode.PROCESS_EXITED, `${this.name} ${how}; see ${this.logPath}`, undefined, code, signal);
    if (this.state === 'running') this.logLine(how);
    this.ending = { reason, error, status: ended };
  }

  private onPeerClosed({ code, signal }: TransportExit): void {
    const ending = this.ending;
    if (ending === undefined) {
      // It failed without an exit (a spawn error).
      this.connection.rejectAll(this.disconnected ?? this.error(ErrorCode.PROCESS_EXITED, `${this.name} failed; see ${this.logPath}`));
      this.finish({ code: null, signal: null, reason: 'exited' });
      return;
    }
    this.disconnected ??= ending.error;
    this.connection.rejectAll(ending.error);
    this.finish(ending.status === undefined ? { code, signal, reason: ending.reason } : { code, signal, reason: ending.reason, status: ending.status });
  }

  /** Ends the connection: pending requests settle with `error`; the process tree is stopped unless `force` is false (internal: ConnectionOptions). */
  disconnect(error: ExtensionHostError, reason: ExitInfo['reason'], force = true): void {
    if (this.disconnected !== undefined) return;
    this.disconnected = error;
    this.endReason = reason;
    this.state = 'stopping';
    this.logLine(error.message);
    this.connection.rejectAll(error);
    // Not forced when the transport is closing the connection itself.
    if (force) void this.transport.terminate();
  }

  private finish(info: ExitInfo): void {
    if (this.exitInfo !== undefined) return;
    this.exitInfo = info;
    this.state = 'closed';
    this.logFile.childEnded();
    this.flushDiagnostics();
    this.connection.close();
    this.resolveExit?.(info);
    this.watcher?.processExit(info);
    this.emit('exit', info);
  }

  /**
   * Sends a one-way frame. Returns false when the connection is not running, or when the frame was
   * dropped because the outbound buffer is full (counted in a diagnostic).
   */
  send(frame: HostFrame | CallToolResultFrame): boolean {
    if (frame.type === 'shutdown') {
      if (this.state !== 'running' && this.state !== 'stopping') return false;
      this.connection.sendAlways(encodeFrame(frame));
      return true;
    }
    if (this.state !== 'running') return false;
    return this.connection.sendLine(encodeFrame(frame), frame.type);
  }

  /** Sends an already encoded frame (one line with its LF), e.g. one event fanned out to many. Like send(). */
  sendLine(line: string): boolean {
    if (this.state !== 'running') return false;
    return this.connection.sendLine(line, 'event');
  }

  /** Sends a request and resolves its response frame. Rejects with a typed error, never hangs past `timeoutMs`. */
  request<F extends RequestFrame<RequestType>>(frame: F, options?: RequestOptions): Promise<ResponseFor[F['type']]> {
    if (this.state !== 'running') return this.connection.refuse(this.disconnected ?? this.error(ErrorCode.NOT_STARTED, `${this.name} is not running`), options?.map);
    return this.connection.request(frame, options) as Promise<ResponseFor[F['type']]>;
  }

  /**
   * Graceful stop: `shutdown`, close stdin, wait up to the shutdown grace, then SIGTERM, then SIGKILL
   * after the kill grace — always to the whole process group. Pending requests settle at once with
   * PROCESS_EXITED. Idempotent; resolves when the process is gone.
   */
  stop(): Promise<void> {
    // Never rejects: a stop that fails half-way is logged, and the group is killed anyway (by the transport).
    this.stopping ??= this.doStop().catch((err: unknown) => {
      this.logLine(`stop failed: ${err instanceof Error ? err.message : String(err)}`);
      if (this.exitInfo === undefined) this.finish({ code: null, signal: null, reason: 'stopped' });
    });
    return this.stopping;
  }

  private stoppedBeforeHello(): ExtensionHostError {
    return this.error(ErrorCode.NOT_STARTED, `${this.name} was stopped before it said hello`);
  }

  private async doStop(): Promise<void> {
    // Running without `connected`: its hello came with the connect's last bytes, before the
    // transport's start returned. It is a peer like any other: it gets the goodbye.
    if ((!this.connected && this.state !== 'running') || this.exitInfo !== undefined) {
      if (this.state !== 'closed') {
        this.state = 'closed';
        this.finish({ code: null, signal: null, reason: 'stopped' });
      }
      // Grandchildren may still be on their way out; a peer that never said hello is forced. That
      // cuts off a connect under way; a spawn under way ends first (start() then gives up), and
      // what it spawned is closed after it.
      await this.transport.close('stopped', { graceful: false });
      if (this.opening !== undefined) {
        await this.opening.catch(() => undefined);
        await this.transport.close('stopped', { graceful: false });
      }
      return;
    }
    const wasRunning = this.state === 'running';
    this.endReason ??= 'stopped';
    this.state = 'stopping';
    this.connection.rejectAll(this.error(ErrorCode.PROCESS_EXITED, `${this.name} was stopped`));
    this.failEarly(this.stoppedBeforeHello());
    if (wasRunning) {
      this.send({ type: 'shutdown' });
      await this.transport.close('stopped', { last: this.connection.takeQueued() });
    } else {
      await this.transport.close('stopped', { graceful: false });
    }
  }
}
