// What an ExtensionProcess hands its CodecGate (made for the first line that needs the frame
// schemas): a small object that calls back into the process through prototype methods, instead of
// an options literal of closures. (The process is its Connection's options and its transport's
// watcher itself.)
import type { CodecGateSink } from './codec-gate.js';
import type { ProcessDiagnostic, ProcessStats } from './types.js';

/** The parts of ExtensionProcess the hooks call. */
export interface HookedProcess {
  readonly stats: ProcessStats;
  diagnose(code: ProcessDiagnostic['code'], message: string): void;
  logLine(message: string): void;
  /** Internal: one line from the transport, in order. */
  lineIn(line: string): void;
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
