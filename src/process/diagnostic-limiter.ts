// Bounds the diagnostics of one source (an extension): a flood of bad lines costs a few log lines
// and events per second, not one per line.

/** Diagnostics of one code reported one by one before they are only counted. @default 5 */
export const DIAGNOSTICS_IN_FULL = 5;
/** At most one summary per code per this many ms. */
export const DIAGNOSTIC_SUMMARY_MS = 1000;

/** What a summary calls the diagnostics of a code ("12,345 more non-JSON lines"). */
const PLURAL: Record<string, string> = {
  NOT_JSON: 'non-JSON lines',
  NOT_OBJECT: 'lines that are not JSON objects',
  UNKNOWN_TYPE: 'frames of unknown type',
  INVALID_FRAME: 'invalid frames',
  UNKNOWN_ID: 'responses with unknown or already settled ids',
  OUTBOUND_DROPPED: 'frames dropped unsent (outbound buffer full)',
  UNKNOWN_LEVEL: 'notify frames with an unknown level',
  PANEL_REFUSED: 'refused panel frames',
  DUPLICATE_REGISTRATION: 'duplicate registrations',
  INVALID_TOOL_NAME: 'tools refused for their names',
  INVALID_COMMAND_NAME: 'commands refused for their names',
  PROGRESS_REFUSED: 'progress frames for unknown or settled requests',
  RATE_LIMITED: 'windows with submit/notify frames dropped over the rate limit',
};

interface CodeState<T> {
  /** Reported in full so far. */
  seen: number;
  /** Counted since the last summary. */
  suppressed: number;
  /** The newest suppressed message, quoted in the summary. */
  last: string;
  /** What the newest suppressed diagnostic was reported with. */
  lastDetail: T | undefined;
}

export interface DiagnosticLimiterOptions<T> {
  /** Reports one diagnostic (a full one, or a summary with the newest suppressed one's detail). */
  emit: (code: string, message: string, detail: T) => void;
  /** @default DIAGNOSTICS_IN_FULL */
  inFull?: number | undefined;
  /** @default DIAGNOSTIC_SUMMARY_MS */
  intervalMs?: number | undefined;
}

const MAX_QUOTE = 200;

/**
 * The first `inFull` diagnostics of each code go out as they are; later ones are counted and
 * summarised at most once per code per interval, and once more at `flush()` (exit or stop).
 * Memory: one small record per code seen.
 */
export class DiagnosticLimiter<T = undefined> {
  private readonly codes = new Map<string, CodeState<T>>();
  private readonly emit: (code: string, message: string, detail: T) => void;
  private readonly inFull: number;
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: DiagnosticLimiterOptions<T>) {
    this.emit = options.emit;
    this.inFull = options.inFull ?? DIAGNOSTICS_IN_FULL;
    this.intervalMs = options.intervalMs ?? DIAGNOSTIC_SUMMARY_MS;
  }

  report(code: string, message: string, detail: T): void {
    let state = this.codes.get(code);
    if (state === undefined) {
      state = { seen: 0, suppressed: 0, last: '', lastDetail: undefined };
      this.codes.set(code, state);
    }
    if (state.seen < this.inFull) {
      state.seen++;
      this.emit(code, state.seen === this.inFull ? `${message} (further ${code} diagnostics are summarised)` : message, detail);
      return;
    }
    state.suppressed++;
    state.last = message;
    state.lastDetail = detail;
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.intervalMs);
      this.timer.unref?.();
    }
  }

  /** Emits the summary of every code counted since its last summary. */
  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    for (const [code, state] of this.codes) {
      if (state.suppressed === 0) continue;
      const count = state.suppressed;
      const last = state.last.length > MAX_QUOTE ? `${state.last.slice(0, MAX_QUOTE)}…` : state.last;
      const detail = state.lastDetail as T;
      state.suppressed = 0;
      state.last = '';
      state.lastDetail = undefined;
      this.emit(code, `${count.toLocaleString('en-US')} more ${PLURAL[code] ?? `${code} diagnostics`}; the last: ${last}`, detail);
    }
  }
}
