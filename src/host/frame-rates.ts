// The per-extension bound of `submit` and `notify` frames (rateLimits): a flood costs a count and one
// diagnostic per window, not a callback per frame; other extensions' frames are untouched.
import type { HostContext } from './context.js';
import type { LoadedExtension } from './loaded-extension.js';
import type { RateLimits } from './rate-limit-options.js';
import { monotonicMs } from '../clock.js';

export const DEFAULT_RATE_LIMITS: Readonly<Required<{ [K in keyof RateLimits]: number }>> = { submit: 10, notify: 100, windowMs: 1000 };

export type RatedFrame = 'submit' | 'notify';

/**
 * One fixed window of one frame kind: the first `max` frames of a window pass, the rest are counted;
 * a window that dropped any is reported once, when it ends (or at flush(): exit, stop).
 */
export class FrameWindow {
  private start = -Infinity;
  private passed = 0;
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly report: (dropped: number) => void,
    private readonly now: () => number = monotonicMs,
  ) {}

  /** Whether this frame goes on to the callback. */
  admit(): boolean {
    const now = this.now();
    if (now - this.start >= this.windowMs) {
      this.flush();
      this.start = now;
      this.passed = 0;
    }
    if (this.passed < this.max) {
      this.passed++;
      return true;
    }
    if (this.dropped++ === 0) {
      this.timer = setTimeout(() => this.flush(), this.start + this.windowMs - now);
      this.timer.unref();
    }
    return false;
  }

  /** Reports what this window dropped so far, if anything. */
  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.dropped === 0) return;
    const dropped = this.dropped;
    this.dropped = 0;
    this.report(dropped);
  }
}

/** An extension's windows, made at its first `submit` / `notify`. */
export type FrameRates = Partial<Record<RatedFrame, FrameWindow>>;

/** Whether `ext`'s `kind` frame may reach the callback now (within rateLimits). */
export function withinRate(ctx: HostContext, ext: LoadedExtension, kind: RatedFrame): boolean {
  const rates = (ext.rates ??= {});
  return (rates[kind] ??= frameWindow(ctx, ext, kind)).admit();
}

function frameWindow(ctx: HostContext, ext: LoadedExtension, kind: RatedFrame): FrameWindow {
  const limits = ctx.options.rateLimits;
  const max = limits?.[kind] ?? DEFAULT_RATE_LIMITS[kind];
  const windowMs = limits?.windowMs ?? DEFAULT_RATE_LIMITS.windowMs;
  return new FrameWindow(max, windowMs, (dropped) =>
    ctx.diagnostics.diagnose({
      code: 'RATE_LIMITED',
      message: `${ext.name}: ${dropped.toLocaleString('en-US')} ${kind} frames dropped: more than ${max} within ${windowMs} ms (rateLimits.${kind}); see ${ext.logPath}`,
      extension: ext.name,
      severity: 'warning',
    }),
  );
}
