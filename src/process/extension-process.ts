import { EventEmitter } from 'eventemitter3';
import pTimeout from 'p-timeout';
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { type CodecModule, type DecodedFrame, decodeLine, isLineProblem, loadCodec } from '../protocol/decode-line.js';
import { LineDecoder } from '../protocol/decoder.js';
import { encodeFrame, encodeRequest } from '../protocol/encode.js';
import type { CommandResponseFrame, EventInterceptResponseFrame, ExtensionFrame, HelloFrame, HostFrame, ToolResultFrame } from '../protocol/frames.js';
import { DEFAULT_MAX_FRAME_BYTES, MAX_TIMER_MS, PROTOCOL_VERSION } from '../protocol/limits.js';
import { jsonProblem } from '../protocol/json-check.js';
import { type ChildHandle, loadSpawn, spawnChild, spawnProblem } from './child.js';
import { checkExecutable, resolveExec } from '../manifest/exec.js';
import { ExtensionLog, logPathFor } from './log.js';
import { DiagnosticLimiter } from './diagnostic-limiter.js';
import { DEFAULT_MAX_OUTBOUND_BYTES, OutboundQueue, StuckWatch, WRITE_CHUNK_CHARS } from './outbound-queue.js';

/** Responses the host correlates by id, keyed by the request frame type that asks for them. */
export interface ResponseFor {
  command_invoked: CommandResponseFrame;
  tool_call: ToolResultFrame;
  event_intercept: EventInterceptResponseFrame;
}
export type RequestType = keyof ResponseFor;
/** A request frame without its id (the process assigns one). */
export type RequestFrame<T extends RequestType> = DistributiveOmit<Extract<HostFrame, { type: T }>, 'id'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const RESPONSE_TYPE: Record<RequestType, ExtensionFrame['type']> = {
  command_invoked: 'command_response',
  tool_call: 'tool_result',
  event_intercept: 'event_intercept_response',
};

/** What request() uses of an AbortSignal; the intercept chain passes a lighter object with these. */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean | undefined }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface RequestOptions {
  /**
   * Deadline for the answer, including the write of the request. No timer when omitted, or above
   * 2^31-1 ms (the longest delay a timer can express), Infinity included.
   */
  timeoutMs?: number | undefined;
  /** Aborts the request (rejects with ABORTED). */
  signal?: AbortSignal | AbortLike | undefined;
  /**
   * `true`: a request not completely written at its deadline fails with WRITE_TIMEOUT, and the
   * extension's stdin is closed and the extension stopped (the spec's rule for before_agent_start).
   * Otherwise it fails with TIMEOUT: taken back unsent when none of it was written, else completed
   * (the late answer is ignored); only the stuck deadline stops an extension. @default false
   */
  closeStdinOnWriteTimeout?: boolean | undefined;
}

/**
 * Turns a request's response, or its failure, into the value the request resolves with, when it
 * settles: a caller that maps every outcome anyway saves a promise and a microtask per request.
 * The request then never rejects (unless a mapper throws).
 */
export interface ResponseMapper<T, R> {
  frame(frame: T): R;
  error(error: ExtensionHostError): R;
}

export interface ProcessTimeouts {
  /** Time allowed for the first frame (`hello`). @default 5000 */
  hello?: number | undefined;
  /** Grace after `shutdown` before SIGTERM. @default 2000 */
  shutdown?: number | undefined;
  /** Grace after SIGTERM before SIGKILL. @default 1000 */
  kill?: number | undefined;
  /**
   * A write to stdin that makes no progress for this long means the extension is stuck: it is
   * stopped (reason `stdin_blocked`, pending requests fail with WRITE_TIMEOUT). No deadline above
   * 2^31-1 ms. @default 60000
   */
  stuck?: number | undefined;
}

export interface HostInfo {
  hostVersion: string;
  provider: string;
  model: string;
  cwd: string;
}

/** Where a connection comes from: a real subprocess, or streams supplied by the caller (in-memory). */
export type Launch =
  | { kind: 'spawn'; exec: string; args?: readonly string[] | undefined; env?: NodeJS.ProcessEnv | undefined }
  | { kind: 'connect'; connect: () => ChildHandle };

export interface ExtensionProcessOptions {
  /** The manifest name; used for the log file and in every message. */
  name: string;
  /** The extension directory: the child's cwd, and extension_dir/data_dir in hello_ack. */
  dir: string;
  launch: Launch;
  /** Directory of `ext-<name>.log`. */
  logDir: string;
  host: HostInfo;
  timeouts?: ProcessTimeouts | undefined;
  /** @default 4 MiB */
  maxFrameBytes?: number | undefined;
  /** Log rotation size (see ExtensionLog). @default 5 MiB */
  logMaxBytes?: number | undefined;
  /** Bound of the outbound buffer: over it, one-way frames are dropped. @default 8 MiB */
  maxOutboundBytes?: number | undefined;
  /** Prefix of correlation ids. @default the name */
  idPrefix?: string | undefined;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why the connection ended. */
  reason: 'exited' | 'stdout_closed' | 'frame_too_large' | 'stdin_blocked' | 'stopped';
}

export interface ProcessDiagnostic {
  extension: string;
  code:
    | 'NOT_JSON'
    | 'NOT_OBJECT'
    | 'UNKNOWN_TYPE'
    | 'INVALID_FRAME'
    | 'UNKNOWN_ID'
    | 'FRAME_TOO_LARGE'
    | 'HELLO_NAME_MISMATCH'
    | 'STDOUT_CLOSED'
    | 'OUTBOUND_DROPPED'
    | 'STDIN_STUCK';
  message: string;
  logPath: string;
}

export interface ProcessEvents {
  /** Every frame after `hello` that is not a response to a request. */
  frame: [frame: ExtensionFrame];
  diagnostic: [diagnostic: ProcessDiagnostic];
  /** Emitted once, when the connection is over (pending requests are settled before). */
  exit: [info: ExitInfo];
}

export interface ProcessStats {
  framesIn: number;
  framesOut: number;
  badLines: number;
}

interface Pending {
  readonly id: string;
  readonly request: RequestType;
  /** The response type expected. */
  readonly type: ExtensionFrame['type'];
  readonly mapper: ResponseMapper<ExtensionFrame, unknown> | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  deadline: DeadlineGroup | undefined;
  /** Characters enqueued up to the end of this request: it is written once `charsDone` reaches it. */
  readonly end: number;
  /** The encoded request, to take it back from the queue while none of it is written. */
  readonly line: string;
  readonly closesStdin: boolean;
  settled: boolean;
  cleanup: (() => void) | undefined;
}

/**
 * The requests of one tick with the same timeout share one timer: Node starts every timer created
 * in one tick at the same loop time, so they would all fire together anyway. The timer is cleared
 * once the last of them settles, except for the newest group of each timeout, which is kept and
 * `refresh()`ed for the next tick's requests once all of its own have settled: one call at a time
 * then costs no timer setup at all. A kept timer that fires finds nothing left to time out.
 */
interface DeadlineGroup {
  readonly timeoutMs: number;
  /** The group's requests: the first one, and the others (one call at a time needs no array). */
  first: Pending | undefined;
  more: Pending[] | undefined;
  live: number;
  timer: NodeJS.Timeout | undefined;
}

const RESOLVED = Promise.resolve();

/** How many deadline groups (distinct timeouts) keep their timer for reuse. */
const MAX_KEPT_DEADLINES = 8;

/** Requests of one tick go out in writes of at most this many lines (see enqueue). */
const MAX_BATCH_LINES = 8;

function succeed(entry: Pending, frame: ExtensionFrame): void {
  const { mapper } = entry;
  if (mapper === undefined) {
    entry.resolve(frame);
    return;
  }
  let value: unknown;
  try {
    value = mapper.frame(frame);
  } catch (err) {
    entry.reject(err);
    return;
  }
  entry.resolve(value);
}

function fail(entry: Pending, error: ExtensionHostError): void {
  const { mapper } = entry;
  if (mapper === undefined) {
    entry.reject(error);
    return;
  }
  let value: unknown;
  try {
    value = mapper.error(error);
  } catch (err) {
    entry.reject(err);
    return;
  }
  entry.resolve(value);
}

/** How long exit and the end of stdout may be apart and still count as one event. */
const STDOUT_EXIT_GRACE_MS = 50;

type State = 'idle' | 'starting' | 'running' | 'stopping' | 'closed';

/**
 * One extension connection: spawn, handshake, request correlation, deadlines, shutdown.
 * Every pending request settles exactly once; nothing from this process outlives `exit`.
 */
export class ExtensionProcess extends EventEmitter<ProcessEvents> {
  readonly name: string;
  readonly dir: string;
  readonly logPath: string;
  readonly stats: ProcessStats = { framesIn: 0, framesOut: 0, badLines: 0 };
  hello: HelloFrame | undefined;
  private readonly log: ExtensionLog;
  private readonly options: ExtensionProcessOptions;
  private child: ChildHandle | undefined;
  private state: State = 'idle';
  private readonly pending = new Map<string, Pending>();
  private seq = 0;
  private readonly idPrefix: string;
  /** `"<idPrefix>` as JSON, without the closing quote: request ids are appended to encoded frames. */
  private readonly idJsonPrefix: string;
  /** Lines waiting for this tick's write, or for the write in progress to complete. */
  private readonly queue = new OutboundQueue();
  private readonly maxOutbound: number;
  /** Largest frame, in bytes, in either direction. */
  private readonly maxFrame: number;
  private readonly stuckMs: number;
  private readonly stuck: StuckWatch;
  private readonly limiter = new DiagnosticLimiter<undefined>({ emit: (code, message) => this.emitDiagnostic(code as ProcessDiagnostic['code'], message) });
  /** write() calls issued, and completed (callbacks run in order). */
  private writesIssued = 0;
  private writesDone = 0;
  /** Characters enqueued, written (by completed writes) and taken back, since the start. */
  private charsPushed = 0;
  private charsIssued = 0;
  private charsDone = 0;
  private charsRemoved = 0;
  /** This tick's deadline groups by timeout; closed at the flush. */
  private readonly openDeadlines = new Map<number, DeadlineGroup>();
  /** The newest group of each timeout, whose timer is kept for reuse. */
  private readonly keptDeadlines = new Map<number, DeadlineGroup>();
  private flushScheduled = false;
  /** A request was written (not just queued) in this tick: the next ones may wait for a batch. */
  private requestWritten = false;
  private exitInfo: ExitInfo | undefined;
  private exitPromise: Promise<ExitInfo>;
  private resolveExit!: (info: ExitInfo) => void;
  private disconnected: ExtensionHostError | undefined;
  private onHello: ((frame: HelloFrame) => void) | undefined;
  private onEarlyFailure: ((error: ExtensionHostError) => void) | undefined;
  private stopping: Promise<void> | undefined;
  private endReason: ExitInfo['reason'] | undefined;
  /** The frame decoder, once its module (zod) is loaded: start() awaits it. */
  private codec: CodecModule | undefined;

  constructor(options: ExtensionProcessOptions) {
    super();
    this.options = options;
    this.name = options.name;
    this.dir = options.dir;
    this.logPath = logPathFor(options.logDir, options.name);
    this.log = new ExtensionLog(this.logPath, { maxBytes: options.logMaxBytes });
    this.idPrefix = `${options.idPrefix ?? options.name}:`;
    this.idJsonPrefix = JSON.stringify(this.idPrefix).slice(0, -1);
    this.maxOutbound = options.maxOutboundBytes ?? DEFAULT_MAX_OUTBOUND_BYTES;
    this.maxFrame = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.stuckMs = options.timeouts?.stuck ?? 60_000;
    this.stuck = new StuckWatch(this.stuckMs, () => this.onStuck());
    this.exitPromise = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** True between a successful handshake and the end of the connection. */
  get running(): boolean {
    return this.state === 'running';
  }

  /** Resolves when the connection is over. */
  get exited(): Promise<ExitInfo> {
    return this.exitPromise;
  }

  /** Resolves once every `[host]` line logged so far is in the log file. */
  logFlushed(): Promise<void> {
    return this.log.flushed();
  }

  /** Appends a `[host]` line to this extension's log. */
  logLine(message: string): void {
    void this.log.write(message);
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
    const { launch } = this.options;
    // zod (for the frame decoder) and cross-spawn load on first use: see load-codec.ts and child.ts.
    try {
      const [codec] = await Promise.all([loadCodec(), launch.kind === 'spawn' ? loadSpawn() : undefined]);
      this.codec = codec;
    } catch (err) {
      this.state = 'closed';
      this.finish({ code: null, signal: null, reason: 'exited' });
      throw this.error(ErrorCode.SPAWN_FAILED, `cannot start ${this.name}: cannot load the host's own modules: ${(err as Error).message}`, err);
    }
    let child: ChildHandle;
    if (launch.kind === 'spawn') {
      const { command, onPath } = resolveExec(launch.exec, this.dir);
      if (!onPath) {
        const problem = await checkExecutable(command);
        if (problem !== undefined) {
          this.state = 'closed';
          const error = this.error(ErrorCode.SPAWN_FAILED, `cannot start ${this.name}: ${problem} (exec ${JSON.stringify(launch.exec)} in ${this.dir}/extension.json)`);
          this.logLine(error.message);
          this.finish({ code: null, signal: null, reason: 'exited' });
          throw error;
        }
      }
      let stderr;
      try {
        stderr = await this.log.openForChild(`start ${this.name}: ${command} ${(launch.args ?? []).join(' ')}`.trimEnd());
      } catch (err) {
        this.state = 'closed';
        this.finish({ code: null, signal: null, reason: 'exited' });
        throw this.error(ErrorCode.SPAWN_FAILED, `cannot start ${this.name}: cannot open log file ${this.logPath}: ${(err as Error).message}`, err);
      }
      try {
        child = await spawnChild({ command, args: launch.args ?? [], cwd: this.dir, env: launch.env ?? process.env, stderrFd: stderr.fd });
      } catch (err) {
        // spawn() throws for some arguments (a NUL byte, an invalid cwd type), and fails without
        // pipes when the host is out of file descriptors.
        this.state = 'closed';
        this.finish({ code: null, signal: null, reason: 'exited' });
        const error = this.error(ErrorCode.SPAWN_FAILED, `cannot start ${this.name}: ${spawnProblem(err)}`, err);
        this.logLine(error.message);
        throw error;
      } finally {
        await stderr.close();
      }
    } else {
      child = launch.connect();
    }
    this.child = child;
    return this.handshake(child);
  }

  private handshake(child: ChildHandle): Promise<HelloFrame> {
    const helloTimeout = this.options.timeouts?.hello ?? 5000;
    const result = new Promise<HelloFrame>((resolve, reject) => {
      this.onHello = resolve;
      this.onEarlyFailure = reject;
    });
    // Consumed below; should anything in between throw, stop()'s failEarly() must not go unhandled.
    result.catch(() => undefined);

    const decoder = new LineDecoder(
      (line) => this.onLine(line),
      (bytes, limit) => this.onOverflow(bytes, limit),
      { maxFrameBytes: this.maxFrame },
    );
    child.stdout.on('data', (chunk: Buffer) => decoder.push(chunk));
    child.stdout.once('end', () => {
      decoder.end();
      this.onStdoutClosed();
    });
    child.stdout.on('error', () => undefined);
    child.stdin.on('error', () => undefined);
    // A closed stdin never drains: drop what is queued instead of letting it pile up.
    child.stdin.once('close', () => {
      this.queue.clear();
      this.stuck.stop();
      // Node closes stdin at the child's exit too; only a process that stays alive has really
      // lost its input, and can then answer nothing more: it is stopped, like one that closed stdout.
      if (this.state !== 'running') return;
      setTimeout(() => {
        if (this.state !== 'running' || this.exitInfo !== undefined) return;
        this.disconnect(this.error(ErrorCode.PROCESS_EXITED, `${this.name}'s stdin closed while it kept running; it is being stopped; see ${this.logPath}`), 'stdin_blocked');
      }, STDOUT_EXIT_GRACE_MS).unref();
    });
    child.onError((err) => {
      const code = (err as NodeJS.ErrnoException).code;
      const what = code === 'ENOENT' ? `executable not found on PATH: ${this.describeExec()}` : spawnProblem(err);
      this.failEarly(this.error(ErrorCode.SPAWN_FAILED, `cannot start ${this.name}: ${what}`, err));
      this.finish({ code: null, signal: null, reason: 'exited' });
    });
    child.onExit((code, signal) => this.onChildExit(code, signal));

    const timer = setTimeout(() => {
      this.failEarly(this.error(ErrorCode.HELLO_TIMEOUT, `${this.name} did not send hello within ${helloTimeout} ms; see ${this.logPath}`));
    }, helloTimeout);
    timer.unref();

    return result.then(
      (hello) => {
        clearTimeout(timer);
        return hello;
      },
      async (error: ExtensionHostError) => {
        clearTimeout(timer);
        this.logLine(error.message);
        await this.kill();
        throw error;
      },
    );
  }

  private describeExec(): string {
    const { launch } = this.options;
    return launch.kind === 'spawn' ? launch.exec : '(in-memory)';
  }

  private failEarly(error: ExtensionHostError): void {
    const reject = this.onEarlyFailure;
    this.onHello = undefined;
    this.onEarlyFailure = undefined;
    if (reject !== undefined) {
      this.state = 'stopping';
      reject(error);
    }
  }

  private onLine(line: string): void {
    const decoded = decodeLine(line, this.codec);
    if (isLineProblem(decoded)) this.onDecoded(decoded);
    else this.onFrame(decoded);
  }

  private onDecoded(decoded: DecodedFrame): void {
    if (decoded.ok) {
      this.onFrame(decoded.frame);
      return;
    }
    const { problem } = decoded;
    this.stats.badLines++;
    if (problem.kind === 'invalid' && problem.id !== undefined && this.pending.has(problem.id)) {
      this.settle(problem.id, undefined, this.error(ErrorCode.BAD_RESPONSE, `${this.name} answered with an ${problem.message}`));
    } else if (this.state === 'starting' && problem.kind !== 'not_json') {
      this.failEarly(this.error(ErrorCode.BAD_HELLO, `${this.name}: the first frame must be hello, got ${problem.message}; see ${this.logPath}`));
      return;
    }
    const code = ({ not_json: 'NOT_JSON', not_object: 'NOT_OBJECT', unknown_type: 'UNKNOWN_TYPE', invalid: 'INVALID_FRAME' } as const)[problem.kind];
    this.diagnose(code, problem.message);
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
    if (this.state !== 'running') return;
    switch (frame.type) {
      case 'tool_result':
      case 'command_response':
      case 'event_intercept_response':
        this.settle(frame.id, frame);
        return;
      case 'hello':
        this.diagnose('INVALID_FRAME', 'duplicate hello ignored');
        return;
      default:
        this.emit('frame', frame);
    }
  }

  private acceptHello(frame: HelloFrame): void {
    this.hello = frame;
    if (frame.name !== this.name) {
      this.diagnose('HELLO_NAME_MISMATCH', `hello names the extension ${JSON.stringify(frame.name)} but its manifest says ${JSON.stringify(this.name)}; using the manifest name`);
    }
    const { host } = this.options;
    this.state = 'running';
    // hello_ack goes out immediately: newer SDKs wait for it before registering.
    this.send({
      type: 'hello_ack',
      protocol_version: PROTOCOL_VERSION,
      zot_version: host.hostVersion,
      provider: host.provider,
      model: host.model,
      cwd: host.cwd,
      extension_dir: this.dir,
      data_dir: this.dir,
    });
    const resolve = this.onHello;
    this.onHello = undefined;
    this.onEarlyFailure = undefined;
    resolve?.(frame);
  }

  private onOverflow(bytes: number, limit: number): void {
    const message = `${this.name} sent a frame of more than ${limit} bytes (${bytes} seen); its read loop was closed and it is being stopped; see ${this.logPath}`;
    this.diagnose('FRAME_TOO_LARGE', message);
    const error = this.error(ErrorCode.FRAME_TOO_LARGE, message);
    if (this.state === 'starting') {
      this.failEarly(error);
      return;
    }
    this.disconnect(error, 'frame_too_large');
  }

  private onStdoutClosed(): void {
    if (this.state === 'starting') {
      // Exit is reported by onChildExit, with the exit status; stdout closing alone is a failure too.
      setTimeout(() => this.failIfStillStarting(), STDOUT_EXIT_GRACE_MS).unref();
      return;
    }
    if (this.state === 'running') {
      // stdout usually ends just before the exit event; only a process that stays alive has
      // really closed its stdout.
      const timer = setTimeout(() => {
        if (this.state !== 'running' || this.exitInfo !== undefined) return;
        this.diagnose('STDOUT_CLOSED', `${this.name} closed its stdout but kept running; it is being stopped; see ${this.logPath}`);
        this.disconnect(this.error(ErrorCode.PROCESS_EXITED, `${this.name} closed its stdout`), 'stdout_closed');
      }, STDOUT_EXIT_GRACE_MS);
      timer.unref();
    }
  }

  private failIfStillStarting(): void {
    if (this.state === 'starting' && this.exitInfo === undefined && this.onEarlyFailure !== undefined) {
      this.failEarly(this.error(ErrorCode.EXITED_BEFORE_HELLO, `${this.name} closed its stdout before sending hello; see ${this.logPath}`));
    }
  }

  private onChildExit(code: number | null, signal: NodeJS.Signals | null): void {
    const status = signal !== null ? `signal ${signal}` : `code ${code}`;
    if (this.state === 'starting' && this.onEarlyFailure !== undefined) {
      const reject = this.onEarlyFailure;
      this.onEarlyFailure = undefined;
      this.onHello = undefined;
      this.state = 'stopping';
      void this.log.tail(5).then((lines) => {
        const tail = lines.length > 0 ? ` Last stderr: ${lines.join(' | ')}.` : '';
        reject(this.error(ErrorCode.EXITED_BEFORE_HELLO, `${this.name} exited with ${status} before sending hello.${tail} See ${this.logPath}`, undefined, code, signal));
      });
    }
    const reason = this.endReason ?? (this.state === 'stopping' ? 'stopped' : 'exited');
    const error = this.disconnected ?? this.error(ErrorCode.PROCESS_EXITED, `${this.name} exited with ${status}; see ${this.logPath}`, undefined, code, signal);
    if (this.state === 'running') this.logLine(`exited with ${status}`);
    // Frames written just before exit may still be in the pipe: settle after stdout ends (or shortly after).
    const finalize = () => {
      this.disconnected ??= error;
      this.rejectAll(error);
      this.finish({ code, signal, reason });
    };
    const stdout = this.child?.stdout;
    if (stdout === undefined || stdout.readableEnded || stdout.destroyed) {
      finalize();
    } else {
      const timer = setTimeout(() => {
        stdout.destroy();
        finalize();
      }, STDOUT_EXIT_GRACE_MS);
      timer.unref();
      stdout.once('close', () => {
        clearTimeout(timer);
        finalize();
      });
    }
  }

  /** Ends the connection: pending requests settle with `error`; the process tree is stopped. */
  private disconnect(error: ExtensionHostError, reason: ExitInfo['reason']): void {
    if (this.disconnected !== undefined) return;
    this.disconnected = error;
    this.endReason = reason;
    this.state = 'stopping';
    this.logLine(error.message);
    this.rejectAll(error);
    void this.kill();
  }

  private finish(info: ExitInfo): void {
    if (this.exitInfo !== undefined) return;
    this.exitInfo = info;
    this.state = 'closed';
    this.log.childEnded();
    this.limiter.flush();
    this.stuck.stop();
    this.queue.clear();
    for (const group of this.keptDeadlines.values()) this.clearDeadline(group);
    this.keptDeadlines.clear();
    // Grandchildren may outlive the leader: the group goes too.
    this.child?.kill('SIGKILL');
    this.resolveExit(info);
    this.emit('exit', info);
  }

  /** Reported through the limiter: a flood costs a few lines and a summary per second. */
  private diagnose(code: ProcessDiagnostic['code'], message: string): void {
    this.limiter.report(code, message, undefined);
  }

  private emitDiagnostic(code: ProcessDiagnostic['code'], message: string): void {
    this.logLine(message);
    this.emit('diagnostic', { extension: this.name, code, message, logPath: this.logPath });
  }

  private errOpts() {
    return { extension: this.name, logPath: this.logPath };
  }

  private error(code: ErrorCode, message: string, cause?: unknown, exitCode?: number | null, signal?: NodeJS.Signals | null): ExtensionHostError {
    return new ExtensionHostError(code, message, { ...this.errOpts(), cause, exitCode, signal });
  }

  // ------------------------------------------------------------------------------------------
  // Writing
  // ------------------------------------------------------------------------------------------

  /**
   * Sends a one-way frame. Returns false when the connection is not running, or when the frame was
   * dropped because the outbound buffer is full (counted in a diagnostic).
   */
  send(frame: HostFrame): boolean {
    if (frame.type === 'shutdown') {
      if (this.state !== 'running' && this.state !== 'stopping') return false;
      this.enqueue(encodeFrame(frame));
      return true;
    }
    if (this.state !== 'running') return false;
    const line = encodeFrame(frame);
    // An empty queue takes any frame (hello_ack included): the bound is on what waits, not on one frame.
    if (this.queue.chars > 0 && this.queue.chars + line.length > this.maxOutbound) return this.dropOneWay(frame.type, line);
    this.enqueue(line);
    return true;
  }

  /** Sends an already encoded frame (one line with its LF), e.g. one event fanned out to many. Like send(). */
  sendLine(line: string): boolean {
    if (this.state !== 'running') return false;
    if (this.queue.chars > 0 && this.queue.chars + line.length > this.maxOutbound) return this.dropOneWay('event', line);
    this.enqueue(line);
    return true;
  }

  private dropOneWay(type: string, line: string): false {
    this.diagnose(
      'OUTBOUND_DROPPED',
      `${type} of ${line.length} bytes dropped unsent: ${this.queue.chars} bytes wait for ${this.name}'s stdin (limit ${this.maxOutbound}); it is not reading; see ${this.logPath}`,
    );
    return false;
  }

  /** Sends a request and resolves its response frame. Rejects with a typed error, never hangs past `timeoutMs`. */
  request<F extends RequestFrame<RequestType>>(frame: F, options?: RequestOptions): Promise<ResponseFor[F['type']]>;
  /** Sends a request and resolves with what `mapper` makes of its response or its failure. */
  request<F extends RequestFrame<RequestType>, R>(frame: F, options: RequestOptions | undefined, mapper: ResponseMapper<ResponseFor[F['type']], R>): Promise<R>;
  request<F extends RequestFrame<RequestType>>(frame: F, options?: RequestOptions, mapper?: ResponseMapper<ExtensionFrame, unknown>): Promise<unknown> {
    if (this.state !== 'running') {
      const reason = this.disconnected ?? this.error(ErrorCode.NOT_STARTED, `${this.name} is not running`);
      return mapper === undefined ? Promise.reject(reason) : Promise.resolve(reason).then(mapper.error);
    }
    const signal = options?.signal;
    const timeoutMs = options?.timeoutMs;
    const request = frame.type as RequestType;
    if (signal?.aborted) {
      const reason = this.error(ErrorCode.ABORTED, `${this.name}: ${request} aborted`, signal.reason);
      return mapper === undefined ? Promise.reject(reason) : Promise.resolve(reason).then(mapper.error);
    }
    const seq = ++this.seq;
    const id = `${this.idPrefix}${seq}`;
    // Encoded first: a frame that cannot be encoded (a cycle, a BigInt, nesting that overflows the
    // stack) fails with INVALID_ARGUMENT and leaves no entry behind. The value is walked for the
    // reason only then, so a good call pays nothing for the check.
    let line: string;
    try {
      line = encodeRequest(frame, `${this.idJsonPrefix}${seq}"`);
    } catch (err) {
      const reason = this.error(ErrorCode.INVALID_ARGUMENT, `${this.name}: ${request} cannot be sent as JSON: it ${jsonProblem(frame) ?? (err as Error).message}`, err);
      return mapper === undefined ? Promise.reject(reason) : Promise.resolve(reason).then(mapper.error);
    }
    // The spec caps every frame: a conforming extension would disconnect on a larger one. A line
    // of at most a third of the cap in UTF-16 units fits in any case (3 bytes a unit at most).
    if (line.length * 3 > this.maxFrame && Buffer.byteLength(line) - 1 > this.maxFrame) {
      const reason = this.error(ErrorCode.INVALID_ARGUMENT, `${this.name}: ${request} of ${Buffer.byteLength(line) - 1} bytes not sent: frames are limited to ${this.maxFrame} bytes`);
      return mapper === undefined ? Promise.reject(reason) : Promise.resolve(reason).then(mapper.error);
    }
    return new Promise<unknown>((resolve, reject) => {
      const entry: Pending = {
        id,
        request,
        type: RESPONSE_TYPE[request],
        mapper,
        resolve,
        reject,
        deadline: undefined,
        end: this.charsPushed + line.length,
        line,
        closesStdin: options?.closeStdinOnWriteTimeout === true,
        settled: false,
        cleanup: undefined,
      };
      // setTimeout fires at once for delays above 2^31-1 ms (about 24.8 days): such a deadline means none.
      if (timeoutMs !== undefined && Number.isFinite(timeoutMs) && timeoutMs <= MAX_TIMER_MS) entry.deadline = this.joinDeadline(entry, timeoutMs);
      if (signal !== undefined) {
        const onAbort = () => this.settle(id, undefined, this.error(ErrorCode.ABORTED, `${this.name}: ${request} aborted`, signal.reason));
        signal.addEventListener('abort', onAbort, { once: true });
        entry.cleanup = () => signal.removeEventListener('abort', onAbort);
      }
      this.pending.set(id, entry);
      // Eager only with other requests in flight (pipelining): for one call at a time, writing at
      // the end of the tick was faster on one CPU (the woken child preempted the rest of the tick).
      this.enqueue(line, this.pending.size > 1);
    });
  }

  private joinDeadline(entry: Pending, timeoutMs: number): DeadlineGroup {
    let group = this.openDeadlines.get(timeoutMs);
    if (group === undefined) {
      const kept = this.keptDeadlines.get(timeoutMs);
      if (kept !== undefined && kept.live === 0 && kept.timer !== undefined) {
        kept.first = undefined;
        kept.more = undefined;
        kept.timer.refresh();
        group = kept;
      } else {
        const created: DeadlineGroup = { timeoutMs, first: undefined, more: undefined, live: 0, timer: undefined };
        created.timer = setTimeout(() => this.onDeadline(created), Math.max(0, timeoutMs));
        created.timer.unref?.();
        if (kept?.live === 0) this.clearDeadline(kept);
        // Callers passing a remaining budget make a new timeout each time: keep a few, not one per value.
        if (kept === undefined && this.keptDeadlines.size >= MAX_KEPT_DEADLINES) {
          const [oldestMs, oldest] = this.keptDeadlines.entries().next().value!;
          this.keptDeadlines.delete(oldestMs);
          if (oldest.live === 0) this.clearDeadline(oldest); // else cleared at its last release
        }
        this.keptDeadlines.set(timeoutMs, created);
        group = created;
      }
      this.openDeadlines.set(timeoutMs, group);
    }
    if (group.first === undefined) group.first = entry;
    else (group.more ??= []).push(entry);
    group.live++;
    return group;
  }

  private onDeadline(group: DeadlineGroup): void {
    group.timer = undefined;
    const { first, more } = group;
    group.first = undefined;
    group.more = undefined;
    if (first !== undefined && !first.settled) this.onRequestTimeout(first, group.timeoutMs);
    if (more !== undefined) for (const entry of more) if (!entry.settled) this.onRequestTimeout(entry, group.timeoutMs);
  }

  private clearDeadline(group: DeadlineGroup): void {
    if (group.timer !== undefined) clearTimeout(group.timer);
    group.timer = undefined;
    group.first = undefined;
    group.more = undefined;
  }

  private onRequestTimeout(entry: Pending, timeoutMs: number): void {
    const type = entry.request;
    // Still whole in the queue: never begun, whatever the counters say (lines taken back after it
    // shift the counters too). Otherwise, lines taken back before it count as done: errs towards "written".
    const queued = this.queue.remove(entry.line);
    if (queued) {
      this.stats.framesOut--;
      this.charsRemoved += entry.line.length;
    }
    const unwritten = queued || entry.end > this.charsDone + this.charsRemoved;
    if (unwritten && entry.closesStdin) {
      // The spec's rule for before_agent_start: a blocked request write closes the input pipe.
      const error = this.error(ErrorCode.WRITE_TIMEOUT, `${this.name}: could not write ${type} within ${timeoutMs} ms (the extension is not reading its stdin); its stdin was closed; see ${this.logPath}`);
      this.settle(entry.id, undefined, error);
      this.closeStdin(error);
      return;
    }
    // Not begun: taken back, so the extension never sees it. Begun: completed, so the framing holds.
    if (queued) {
      this.settle(entry.id, undefined, this.error(ErrorCode.TIMEOUT, `${this.name} did not read ${type} within ${timeoutMs} ms (its stdin is full: busy or not reading); the request was dropped unsent; see ${this.logPath}`));
      return;
    }
    this.settle(entry.id, undefined, this.error(ErrorCode.TIMEOUT, `${this.name} did not answer ${type} within ${timeoutMs} ms; see ${this.logPath}`));
  }

  /** Its stdin made no progress for the stuck deadline: the extension is stopped, like a blocked request. */
  private onStuck(): void {
    if (this.disconnected !== undefined || this.state === 'closed') return;
    const message = `${this.name} read nothing from its stdin for ${this.stuckMs} ms (${this.queue.chars} bytes waiting); it is stuck and is being stopped; see ${this.logPath}`;
    this.diagnose('STDIN_STUCK', message);
    this.closeStdin(this.error(ErrorCode.WRITE_TIMEOUT, message));
  }

  private closeStdin(error: ExtensionHostError): void {
    this.queue.clear();
    this.stuck.stop();
    this.child?.stdin.destroy();
    // It can receive nothing any more: the extension is gone, like one that closed its stdout.
    this.disconnect(error, 'stdin_blocked');
  }

  /** Marks an entry settled: its deadline timer is cleared with the last entry of its group. */
  private release(entry: Pending): void {
    entry.settled = true;
    const group = entry.deadline;
    if (group !== undefined && --group.live === 0 && this.keptDeadlines.get(group.timeoutMs) !== group) this.clearDeadline(group);
    entry.cleanup?.();
  }

  private settle(id: string, frame: ExtensionFrame | undefined, error?: ExtensionHostError): void {
    const entry = this.pending.get(id);
    if (entry === undefined) {
      if (frame !== undefined) this.diagnose('UNKNOWN_ID', `${frame.type} for unknown or already settled id ${JSON.stringify(id)} dropped`);
      return;
    }
    this.pending.delete(id);
    this.release(entry);
    if (error !== undefined) {
      fail(entry, error);
    } else if (frame !== undefined && frame.type !== entry.type) {
      fail(entry, this.error(ErrorCode.BAD_RESPONSE, `${this.name} answered a request expecting ${entry.type} with ${frame.type}`));
    } else {
      succeed(entry, frame!);
    }
  }

  private rejectAll(error: ExtensionHostError): void {
    if (this.pending.size === 0) return;
    const entries = [...this.pending.values()];
    this.pending.clear();
    for (const entry of entries) {
      this.release(entry);
      fail(entry, error);
    }
  }

  /**
   * Lines written in one tick go out together, in one write() at the end of the tick: fewer
   * syscalls, and one wake-up of the extension. With `eager` (a request while others are in
   * flight), the first request of a tick is written at once (with whatever the tick queued before
   * it), and later ones whenever MAX_BATCH_LINES are queued: the extension starts working while
   * this tick goes on. With the whole tick in one write, pipelined calls on two CPUs left the
   * child idle until the parent's tick was over (0.74-0.76x the raw baseline's throughput, against
   * 0.89-1.04x with batches of 8; on one CPU, 1.2-1.5x against ~1.2x).
   */
  private enqueue(line: string, eager = false): void {
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // A resolved promise's reaction is the same microtask as queueMicrotask(), without the
      // AsyncResource Node wraps around each queueMicrotask() callback.
      void RESOLVED.then(this.flushSoon);
    }
    this.stats.framesOut++;
    this.charsPushed += line.length;
    const queued = this.queue.push(line);
    if (!eager) return;
    if (!this.requestWritten || queued >= MAX_BATCH_LINES) {
      this.requestWritten = true;
      this.flush();
    }
  }

  private readonly flushSoon = (): void => {
    this.flushScheduled = false;
    this.requestWritten = false;
    // Map#clear() allocates a new table even when empty.
    if (this.openDeadlines.size > 0) this.openDeadlines.clear();
    this.flush();
  };

  private readonly onWritten = (): void => {
    // Callbacks run in order (a sync write's a tick later, maybe after the next write was issued).
    if (++this.writesDone === this.writesIssued) {
      this.charsDone = this.charsIssued;
      this.stuck.progressed();
    }
    // Lines queued behind the write that just completed (the flush at the end of a tick does the rest).
    if (!this.flushScheduled && !this.queue.empty) this.flush();
  };

  /**
   * Writes what is queued, at most WRITE_CHUNK_CHARS, unless a write is still in progress: one at a
   * time, so that a queued request can still be taken back (see onRequestTimeout) and the queue,
   * not the stream, holds the backlog (bounded by maxOutboundBytes for one-way frames).
   */
  private flush(): void {
    const stdin = this.child?.stdin;
    if (stdin === undefined || this.queue.empty || stdin.writableLength > 0) return;
    // Nothing more can be written: the requests stay unwritten (TIMEOUT at their deadline).
    if (stdin.destroyed || stdin.writableEnded) {
      this.queue.clear();
      return;
    }
    this.writesIssued++;
    const chunk = this.queue.take(WRITE_CHUNK_CHARS)!;
    this.charsIssued += chunk.length;
    stdin.write(chunk, this.onWritten);
    if (stdin.writableLength > 0) this.stuck.writing();
  }

  // ------------------------------------------------------------------------------------------
  // Stopping
  // ------------------------------------------------------------------------------------------

  /**
   * Graceful stop: `shutdown`, close stdin, wait up to the shutdown grace, then SIGTERM, then SIGKILL
   * after the kill grace — always to the whole process group. Pending requests settle at once with
   * PROCESS_EXITED. Idempotent; resolves when the process is gone.
   */
  stop(): Promise<void> {
    if (this.stopping !== undefined) return this.stopping;
    // Resolve only once the whole tree is gone (grandchildren are killed with the group after exit).
    // Never rejects: a stop that fails half-way is logged, and the group is killed anyway.
    this.stopping = this.doStop()
      .then(() => this.child?.treeGone?.(1000))
      .catch((err: unknown) => {
        this.logLine(`stop failed: ${err instanceof Error ? err.message : String(err)}`);
        this.child?.kill('SIGKILL');
        if (this.exitInfo === undefined) this.finish({ code: null, signal: null, reason: 'stopped' });
      });
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    if (this.child === undefined || this.exitInfo !== undefined) {
      if (this.state !== 'closed') {
        this.state = 'closed';
        this.finish({ code: null, signal: null, reason: 'stopped' });
      }
      return;
    }
    const wasRunning = this.state === 'running';
    this.endReason ??= 'stopped';
    this.state = 'stopping';
    this.rejectAll(this.error(ErrorCode.PROCESS_EXITED, `${this.name} was stopped`));
    this.failEarly(this.error(ErrorCode.NOT_STARTED, `${this.name} was stopped before it said hello`));
    const grace = this.options.timeouts?.shutdown ?? 2000;
    // Before shutdown: once the extension exits, descendants that left its group are untraceable.
    this.child.findDescendants?.();
    if (wasRunning) {
      this.send({ type: 'shutdown' });
      // Behind a write in progress too: the stream buffers it until the pipe takes it.
      const rest = this.queue.take(Infinity);
      const stdin = this.child.stdin;
      if (rest !== undefined && !stdin.destroyed && !stdin.writableEnded) stdin.write(rest);
      stdin.end();
      if (await this.waitExit(grace)) return;
    } else {
      this.child.stdin.destroy();
    }
    await this.kill();
  }

  /** SIGTERM, then SIGKILL after the kill grace, to the process group; resolves at exit. */
  private async kill(): Promise<void> {
    if (this.exitInfo !== undefined || this.child === undefined) return;
    this.child.kill('SIGTERM');
    if (await this.waitExit(this.options.timeouts?.kill ?? 1000)) return;
    this.child.kill('SIGKILL');
    await this.waitExit(5000);
  }

  private async waitExit(ms: number): Promise<boolean> {
    if (this.exitInfo !== undefined) return true;
    try {
      await pTimeout(this.exitPromise, { milliseconds: ms });
      return true;
    } catch {
      return false;
    }
  }
}
