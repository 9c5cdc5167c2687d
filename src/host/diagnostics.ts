import type { ProcessDiagnostic } from '../process/extension-process.js';
import type { LoadedExtension } from './loaded-extension.js';
import { redact } from '../process/redact.js';
import { boundedMessage } from './registration-limits.js';
import type { HostDiagnostic } from './types.js';

/** How many diagnostics the host keeps; the oldest goes first. */
export const MAX_DIAGNOSTICS = 1000;

/**
 * The host's diagnostics: the last MAX_DIAGNOSTICS of them, each also written to its extension's log
 * and emitted as 'diagnostic'. An extension's go through its limiter first (a flood of bad frames
 * costs a summary per second).
 */
export class HostDiagnostics {
  private readonly list: HostDiagnostic[] = [];

  constructor(
    private readonly byName: ReadonlyMap<string, LoadedExtension>,
    private readonly emit: (d: HostDiagnostic) => void,
  ) {}

  /** A copy, oldest first. */
  snapshot(): HostDiagnostic[] {
    return [...this.list];
  }

  /** Through the extension's limiter when it names a loaded one. */
  diagnose(d: HostDiagnostic, log = true): void {
    d.message = boundedMessage(d.message);
    const ext = d.extension === undefined ? undefined : this.byName.get(d.extension);
    if (ext === undefined) this.record(d, log);
    else ext.diagnostics.report(d.code, d.message, { d, log });
  }

  /** Kept, logged (when `log`) and emitted, without a limiter. */
  record(d: HostDiagnostic, log: boolean): void {
    d.message = boundedMessage(d.message);
    const secrets = d.extension === undefined ? undefined : this.byName.get(d.extension)?.security.secrets;
    if (secrets !== undefined && secrets.length > 0) d.message = redact(d.message, secrets);
    if (d.extension !== undefined && d.logPath === undefined) {
      const logPath = this.byName.get(d.extension)?.logPath;
      if (logPath !== undefined) d.logPath = logPath;
    }
    this.keep(d);
    if (log && d.extension !== undefined) this.byName.get(d.extension)?.process.logLine(d.message);
    this.emit(d);
  }

  /**
   * Kept and emitted, tied to no loaded extension (no log, no limiter): a manifest that was never
   * loaded may share its name with one that was.
   */
  unattached(d: HostDiagnostic): void {
    d.message = boundedMessage(d.message);
    this.keep(d);
    this.emit(d);
  }

  /** Kept only: neither logged nor emitted (a throwing 'diagnostic' listener must not recurse). */
  keep(d: HostDiagnostic): void {
    if (this.list.length >= MAX_DIAGNOSTICS) this.list.shift();
    this.list.push(d);
  }

  /** A diagnostic of `ext`'s process, already limited (and logged) there. */
  fromProcess(ext: LoadedExtension, d: ProcessDiagnostic): void {
    if (this.byName.get(ext.name) !== ext) return;
    const severity = d.code === 'FRAME_TOO_LARGE' || d.code === 'STDOUT_CLOSED' || d.code === 'STDIN_STUCK' || d.code === 'STDIN_WRITE_FAILED' ? 'error' : 'warning';
    this.record({ code: d.code, message: `${d.message} (log: ${d.logPath})`, extension: ext.name, logPath: d.logPath, severity }, false);
  }
}
