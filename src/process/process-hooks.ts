// What an ExtensionProcess hands its Connection and its CodecGate: small objects that call back
// into the process through prototype methods, instead of an options literal of closures each (one
// closure and a context per callback per extension, for something an idle extension never calls).
import type { ConnectionDiagnostic, ConnectionOptions } from '../connection/connection.js';
import type { ExtensionHostError } from '../errors.js';
import type { CodecGateSink } from './codec-gate.js';
import type { ProcessDiagnostic, ProcessStats } from './types.js';

/** The parts of ExtensionProcess the hooks call. */
export interface HookedProcess {
  readonly name: string;
  readonly logPath: string;
  readonly stats: ProcessStats;
  diagnose(code: ProcessDiagnostic['code'], message: string): void;
  logLine(message: string): void;
  /** Internal: ends the connection (see ExtensionProcess). */
  disconnectFor(error: ExtensionHostError, reason: 'stdin_blocked'): void;
  /** Internal: disconnected or closed. */
  readonly over: boolean;
  /** Internal: one line from the transport, in order. */
  lineIn(line: string): void;
}

export class ConnectionHooks implements ConnectionOptions {
  // Plain fields: the connection reads some of them on every call.
  readonly name: string;
  readonly logPath: string;
  readonly stats: ProcessStats;

  constructor(
    private readonly proc: HookedProcess,
    readonly idPrefix: string,
    readonly maxFrameBytes: number,
    readonly maxOutboundBytes: number,
    readonly stuckMs: number,
  ) {
    this.name = proc.name;
    this.logPath = proc.logPath;
    this.stats = proc.stats;
  }

  diagnose(code: ConnectionDiagnostic, message: string): void {
    this.proc.diagnose(code, message);
  }

  disconnect(error: ExtensionHostError, reason: 'stdin_blocked'): void {
    this.proc.disconnectFor(error, reason);
  }

  isOver(): boolean {
    return this.proc.over;
  }

  log(message: string): void {
    this.proc.logLine(message);
  }
}

export class GateHooks implements CodecGateSink {
  constructor(private readonly proc: HookedProcess) {}

  get stats(): ProcessStats {
    return this.proc.stats;
  }

  line(line: string): void {
    this.proc.lineIn(line);
  }

  diagnose(message: string): void {
    this.proc.diagnose('INVALID_FRAME', message);
  }

  log(message: string): void {
    this.proc.logLine(message);
  }
}
