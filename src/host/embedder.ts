import { EventEmitter } from 'eventemitter3';
import { CALLBACK_EVENTS } from './callback-events.js';
import type { HostDiagnostics } from './diagnostics.js';
import type { HostCallbacks, HostEvents, HostWarning } from './types.js';

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

  /** A 'warning' event and the `warning` callback. */
  warn(warning: HostWarning): void {
    this.emitRaw('warning', [warning]);
    this.call('warning', warning);
  }
}
