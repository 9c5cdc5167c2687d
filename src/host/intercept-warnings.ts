// Interceptor failures reach the `warning` callback, bounded: the 1st, 10th, 100th, ... failure of
// each interceptor and kind, so a flood of timeouts is a handful of warnings (every one is still a
// diagnostic).
import type { InterceptDiagnostic } from '../intercept/types.js';
import type { HostWarning } from './types.js';

/** Counters kept at most; past it they start over (only interceptor names the embedder invents get there). */
const MAX_KEYS = 1024;

/** Kinds warned about here: a crash is already warned about as the extension's exit, a system-prompt failure by its pass. */
const WARNED: ReadonlySet<string> = new Set(['timeout', 'malformed', 'error']);

export class InterceptWarnings {
  readonly #counts = new Map<string, number>();

  /** The warning for this diagnostic, or undefined when it is not one to show (or is counted only). */
  warningFor(d: InterceptDiagnostic, logPath: string | undefined): HostWarning | undefined {
    if (!WARNED.has(d.kind) || d.event === 'before_agent_start') return undefined;
    const key = `${d.interceptor}\0${d.kind}`;
    let n = this.#counts.get(key);
    if (n === undefined && this.#counts.size >= MAX_KEYS) this.#counts.clear();
    n = (n ?? 0) + 1;
    this.#counts.set(key, n);
    if (!isPowerOfTen(n)) return undefined;
    const where = logPath === undefined ? '' : `; see ${logPath}`;
    const message =
      n === 1
        ? `interceptor ${d.interceptor} (${d.event}) failed (${d.kind}): ${d.message}${where}`
        : `interceptor ${d.interceptor}: ${n} ${d.kind} failures so far (latest, ${d.event}: ${d.message})${where}`;
    return { message, extension: logPath === undefined ? undefined : d.interceptor, logPath, code: `INTERCEPT_${d.kind.toUpperCase()}` };
  }

  /** A new run of the extensions: every count starts again. */
  reset(): void {
    this.#counts.clear();
  }
}

function isPowerOfTen(n: number): boolean {
  while (n >= 10 && n % 10 === 0) n /= 10;
  return n === 1;
}
