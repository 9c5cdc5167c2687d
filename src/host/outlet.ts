// The way out to the embedding agent: its callbacks and the host's events (guarded, so that one that
// throws never breaks the host), and the host's diagnostics (kept, logged, emitted, limited).
import { EventEmitter } from 'eventemitter3';
import { ErrorCode } from '../errors.js';
import { DiagnosticCode, type DiscoveryDiagnostic } from '../manifest/diagnostics.js';
import { redactUrlsIn } from '../manifest/remote.js';
import type { ProcessDiagnostic } from '../process/extension-process.js';
import { NO_SECRETS } from '../process/redact.js';
import type { LoadedExtension } from './context.js';
import type { HostCallbacks, HostDiagnostic, HostEvents, HostWarning } from './types.js';

/**
 * The host event each callback is also emitted as (same argument), so that a second observer needs
 * no wrapper around the callbacks. `toolsChanged` and `warning` are emitted by their own code paths
 * as 'tools:changed' and 'warning'.
 */
export const CALLBACK_EVENTS = {
  prompt: 'prompt',
  submit: 'submit',
  submitSlash: 'submit:slash',
  insert: 'insert',
  display: 'display',
  notify: 'notify',
  clearNotes: 'notes:clear',
  openPanel: 'panel:open',
  renderPanel: 'panel:render',
  closePanel: 'panel:close',
  toolPrompt: 'tool:prompt',
} as const satisfies { [K in keyof HostCallbacks]?: keyof HostEvents };

// Each event carries exactly its callback's argument.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const argsMatch: { [K in keyof typeof CALLBACK_EVENTS]: Same<HostEvents[(typeof CALLBACK_EVENTS)[K]], [CallbackArg<K>]> } = {
  prompt: true,
  submit: true,
  submitSlash: true,
  insert: true,
  display: true,
  notify: true,
  clearNotes: true,
  openPanel: true,
  renderPanel: true,
  closePanel: true,
  toolPrompt: true,
};
void argsMatch;

type CallbackArg<K extends keyof HostCallbacks> = Parameters<NonNullable<HostCallbacks[K]>>[0];

/**
 * The way out to the embedding agent: its callbacks and the host's events. Both are called from
 * stdout/exit handlers and microtasks: a callback or listener that throws must neither become an
 * uncaught exception nor stop the host half-way. It is recorded instead.
 */
export class Embedder {
  /** Callbacks that threw at least once (their warning event was emitted). */
  private readonly callbacksThrown = new Set<string>();
  /** Sees every host event first (the tracer's exit and restart events); set with tracing on. */
  tap: ((name: string, args: unknown[]) => void) | undefined;

  constructor(
    private readonly host: EventEmitter<HostEvents>,
    private readonly callbacks: HostCallbacks,
    private readonly diagnostics: HostDiagnostics,
  ) {}

  /** True when the host has a listener for `name` (the `frame` event costs nothing without one). */
  listens(name: keyof HostEvents): boolean {
    return this.host.listenerCount(name) > 0;
  }

  /** Emits a host event on the host; a throwing listener is a LISTENER_THREW diagnostic. */
  emit<K extends keyof HostEvents>(name: K, ...args: HostEvents[K]): boolean {
    return this.emitRaw(name, args);
  }

  emitRaw(name: string, args: unknown[]): boolean {
    this.tap?.(name, args);
    try {
      return (EventEmitter.prototype.emit as (name: string, ...args: unknown[]) => boolean).call(this.host, name, ...args);
    } catch (err) {
      const message = `a listener of '${name}' threw: ${err instanceof Error ? err.message : String(err)}`;
      this.diagnostics.keep({ code: 'LISTENER_THREW', message, severity: 'error' });
      return true;
    }
  }

  /** Calls a callback, then emits its event (CALLBACK_EVENTS). */
  call<K extends keyof HostCallbacks>(name: K, arg: CallbackArg<K>): void {
    const fn = this.callbacks[name] as ((arg: unknown) => void) | undefined;
    if (fn !== undefined) {
      try {
        fn(arg);
      } catch (err) {
        const message = `callback ${name} threw: ${err instanceof Error ? err.message : String(err)}`;
        // Named after the extension whose frame it served, so a flood goes through that extension's
        // diagnostic limit; the warning event comes once per callback, not once per frame.
        const extension = (arg as { extension?: unknown } | undefined)?.extension;
        this.diagnostics.diagnose({ code: 'CALLBACK_THREW', message, extension: typeof extension === 'string' ? extension : undefined, severity: 'error' });
        if (name !== 'warning' && !this.callbacksThrown.has(name)) this.emitRaw('warning', [{ message, code: 'CALLBACK_THREW' }]);
        this.callbacksThrown.add(name);
      }
    }
    const event = (CALLBACK_EVENTS as Partial<Record<keyof HostCallbacks, string>>)[name];
    if (event !== undefined) this.emitRaw(event, [arg]);
  }

  /** A 'warning' event and the `warning` callback (redacted like the extension's diagnostics). */
  warn(warning: HostWarning): void {
    if (warning.extension !== undefined) warning.message = this.diagnostics.redact(warning.extension, warning.message);
    this.emitRaw('warning', [warning]);
    this.call('warning', warning);
  }
}

// ---------------------------------------------------------------------------------------------
// Diagnostics
// ---------------------------------------------------------------------------------------------

/** Longest diagnostic message kept; a longer one (it quotes what an extension sent) is cut. */
export const MAX_DIAGNOSTIC_CHARS = 2000;

/** `message`, cut to MAX_DIAGNOSTIC_CHARS. */
export function boundedMessage(message: string): string {
  return message.length <= MAX_DIAGNOSTIC_CHARS ? message : `${message.slice(0, MAX_DIAGNOSTIC_CHARS)}… (${message.length - MAX_DIAGNOSTIC_CHARS} more characters cut)`;
}

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

  /** `text` without the secrets of the extension `name` (a loaded one) and URL credentials; redact before any cut. */
  redact(name: string | undefined, text: string): string {
    return ((name === undefined ? undefined : this.byName.get(name)?.process.redactor) ?? NO_SECRETS).redact(text);
  }

  /** Through the extension's limiter when it names a loaded one. */
  diagnose(d: HostDiagnostic, log = true): void {
    d.message = boundedMessage(this.redact(d.extension, d.message));
    const ext = d.extension === undefined ? undefined : this.byName.get(d.extension);
    if (ext === undefined) this.record(d, log);
    else ext.diagnostics.report(d.code, d.message, { d, log });
  }

  /** Kept, logged (when `log`) and emitted, without a limiter. */
  record(d: HostDiagnostic, log: boolean): void {
    d.message = boundedMessage(this.redact(d.extension, d.message));
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
    d.message = boundedMessage(redactUrlsIn(d.message));
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
    const severity = d.code === 'FRAME_TOO_LARGE' || d.code === 'BINARY_MESSAGE' || d.code === 'STDOUT_CLOSED' || d.code === 'STDIN_STUCK' || d.code === 'STDIN_WRITE_FAILED' ? 'error' : 'warning';
    // The log is named once: the process's own messages for faults already end in `see <log>`.
    const message = d.message.includes(d.logPath) ? d.message : `${d.message} (log: ${d.logPath})`;
    this.record({ code: d.code, message, extension: ext.name, logPath: d.logPath, severity }, false);
  }
}

// What discovery found wrong reaches the embedder where it looks: host.diagnostics(), the
// 'diagnostic' event and the `warning` callback, not only start()'s report. A manifest that could
// not be loaded is MANIFEST_INVALID there; every other discovery diagnostic (a missing explicit path,
// a shadowed or duplicate name, a bad skills entry, ...) keeps its own code.

/** Per start at most this many of each kind (refused manifests, the rest) are listed, then one summary counts the rest: a root of 10,000 bad manifests costs 101 entries. */
export const MAX_MANIFEST_DIAGNOSTICS = 100;

/** The discovery codes of a manifest that cannot be loaded (as errors: a stray directory in a root without one is only a warning). */
const REFUSED: ReadonlySet<string> = new Set([
  DiagnosticCode.MANIFEST_MISSING,
  DiagnosticCode.MANIFEST_UNREADABLE,
  DiagnosticCode.MANIFEST_TOO_LARGE,
  DiagnosticCode.MANIFEST_INVALID_JSON,
  DiagnosticCode.MANIFEST_INVALID,
  DiagnosticCode.NAME_UNSAFE,
  DiagnosticCode.EXEC_MISSING,
]);

/** Made here: start()'s report lists discovery's own diagnostics instead. */
const made = new WeakSet<HostDiagnostic>();

/** Whether `d` is one of discovery's diagnostics as a host diagnostic (the report has discovery's original). */
export function fromDiscovery(d: HostDiagnostic): boolean {
  return made.has(d);
}

/**
 * Records every diagnostic of one discovery as a host diagnostic (kept, emitted) and a warning, up
 * to the bound per kind: a refused manifest as MANIFEST_INVALID naming its path, the rest with
 * discovery's code.
 */
export function reportDiscovery(diagnostics: HostDiagnostics, out: Embedder, found: readonly DiscoveryDiagnostic[]): void {
  const refused = { listed: 0, more: 0 };
  const other = { listed: 0, more: 0 };
  for (const d of found) {
    const isRefused = d.severity === 'error' && REFUSED.has(d.code);
    const count = isRefused ? refused : other;
    if (count.listed === MAX_MANIFEST_DIAGNOSTICS) {
      count.more++;
      continue;
    }
    count.listed++;
    const host: HostDiagnostic = { code: isRefused ? ErrorCode.MANIFEST_INVALID : d.code, message: d.message, path: d.path, severity: d.severity };
    if (d.extension !== undefined) host.extension = d.extension;
    report(diagnostics, out, host, d.code);
  }
  if (refused.more > 0) {
    const message = `${refused.more} more manifests could not be loaded (not listed here); start()'s report.diagnostics lists every one, and zot-ext doctor checks them`;
    report(diagnostics, out, { code: ErrorCode.MANIFEST_INVALID, message, severity: 'error' }, ErrorCode.MANIFEST_INVALID);
  }
  if (other.more > 0) {
    const message = `${other.more} more discovery diagnostics (not listed here); start()'s report.diagnostics lists every one, and zot-ext doctor checks them`;
    report(diagnostics, out, { code: 'DISCOVERY_MORE', message, severity: 'warning' }, 'DISCOVERY_MORE');
  }
}

function report(diagnostics: HostDiagnostics, out: Embedder, d: HostDiagnostic, code: string): void {
  made.add(d);
  diagnostics.unattached(d);
  const warning: HostWarning = { message: d.message, code };
  if (d.extension !== undefined) warning.extension = d.extension;
  if (d.path !== undefined) warning.path = d.path;
  out.warn(warning);
}
