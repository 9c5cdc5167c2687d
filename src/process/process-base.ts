// What an extension process reports through: its name and log, its diagnostics (limited), its
// typed errors, its events and its watcher. ExtensionProcess (the connection itself) extends it.
import { EventEmitter } from 'eventemitter3';
import { type ErrorCode, ExtensionHostError } from '../errors.js';
import type { RequestFrame, RequestType } from '../connection/requests.js';
import type { ProgressFrame } from '../protocol/frames.js';
import { DiagnosticLimiter } from './diagnostic-limiter.js';
import { ExtensionLog, logPathFor } from '../transport/log.js';
import { NO_SECRETS, Redactor } from './redact.js';
import type { ExitInfo, ExtensionProcessOptions, ProcessDiagnostic, ProcessEvents, ProcessStats, ProcessWatcher } from './types.js';

export abstract class ProcessBase extends EventEmitter<ProcessEvents> {
  readonly name: string;
  readonly dir: string;
  readonly logPath: string;
  readonly stats: ProcessStats = { framesIn: 0, framesOut: 0, badLines: 0 };
  /** Told of frames, diagnostics, progress and the exit before the listeners (the host's record of it). */
  watcher: ProcessWatcher | undefined;
  protected readonly logFile: ExtensionLog;
  /** Its secrets, redacted from everything the host shows about it (log, diagnostics, errors). */
  readonly redactor: Redactor;
  /** Made at the first diagnostic (most extensions never send a bad line). */
  private limiter: DiagnosticLimiter<undefined> | undefined;

  constructor(options: ExtensionProcessOptions) {
    super();
    this.name = options.name;
    this.dir = options.dir;
    const redactor = (this.redactor = options.secrets === undefined || options.secrets.length === 0 ? NO_SECRETS : new Redactor(options.secrets));
    this.logPath = logPathFor(options.logDir, options.name);
    this.logFile = new ExtensionLog(this.logPath, { maxBytes: options.logMaxBytes, redact: (text) => redactor.redact(text) });
  }

  /** Resolves once every `[host]` line logged so far is in the log file. */
  logFlushed(): Promise<void> {
    return this.logFile.flushed();
  }

  /** Appends a `[host]` line to this extension's log. */
  logLine(message: string): void {
    void this.logFile.write(message);
  }

  /** Internal (ConnectionOptions): logLine(). */
  log(message: string): void {
    this.logLine(message);
  }

  /** Reported through the limiter: a flood costs a few lines and a summary per second. Redacted first (the limiter cuts what it quotes). */
  diagnose(code: ProcessDiagnostic['code'], message: string): void {
    (this.limiter ??= new DiagnosticLimiter<undefined>({ emit: (c, m) => this.emitDiagnostic(c as ProcessDiagnostic['code'], m) })).report(code, this.redactor.redact(message), undefined);
  }

  /** Summarises what the limiter counted (at the end); makes no limiter. */
  protected flushDiagnostics(): void {
    this.limiter?.flush();
  }

  private emitDiagnostic(code: ProcessDiagnostic['code'], message: string): void {
    this.logLine(message);
    const diagnostic: ProcessDiagnostic = { extension: this.name, code, message, logPath: this.logPath };
    this.watcher?.processDiagnostic(diagnostic);
    this.emit('diagnostic', diagnostic);
  }

  abstract get running(): boolean;
  abstract disconnect(error: ExtensionHostError, reason: ExitInfo['reason']): void;

  /**
   * Internal (ConnectionOptions): a write to its stdin threw. It can receive nothing any more: it is
   * stopped like one that closed its stdin (while stopping, the stop ends it anyway).
   */
  writeFailed(error: ExtensionHostError): void {
    if (!this.running) return;
    this.diagnose('STDIN_WRITE_FAILED', error.message);
    this.disconnect(error, 'stdin_blocked');
  }

  /** A progress frame for `request` (internal: negotiation.ts). */
  progressed(frame: ProgressFrame, request: RequestFrame<RequestType>): void {
    this.watcher?.processProgress(frame, request);
    this.emit('progress', frame, request);
  }

  protected errOpts() {
    return { extension: this.name, logPath: this.logPath };
  }

  protected error(code: ErrorCode, message: string, cause?: unknown, exitCode?: number | null, signal?: NodeJS.Signals | null): ExtensionHostError {
    return new ExtensionHostError(code, this.redactor.redact(message), { ...this.errOpts(), cause, exitCode, signal });
  }
}
