// runStep's context: the step's AbortSignal exists only once read, and says the same whenever read.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runStep } from '../../src/intercept/step.js';
import type { InterceptContext } from '../../src/intercept/types.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('runStep context', () => {
  it('gives a signal read after the deadline already aborted, with the timeout as reason', async () => {
    vi.useFakeTimers();
    let ctx: InterceptContext | undefined;
    const outcome = runStep(
      (c) => {
        ctx = c;
        return new Promise(() => undefined);
      },
      { name: 'slow', timeoutMs: 100 },
    );
    await vi.advanceTimersByTimeAsync(100);
    expect(await outcome).toEqual({ ok: false, kind: 'timeout', message: 'slow did not answer within 100 ms' });
    const { signal } = ctx!;
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({ code: 'TIMEOUT', message: 'slow did not answer within 100 ms' });
    expect(ctx!.signal).toBe(signal);
  });

  it("aborts a signal read during the step when the caller aborts, with the caller's reason", async () => {
    const controller = new AbortController();
    let signal: AbortSignal | undefined;
    const onAbort = vi.fn();
    const outcome = runStep(
      (c) => {
        signal = c.signal;
        signal.addEventListener('abort', onAbort);
        return new Promise(() => undefined);
      },
      { name: 'slow', timeoutMs: 10_000, signal: controller.signal },
    );
    expect(signal?.aborted).toBe(false);
    controller.abort('user');
    await expect(outcome).rejects.toMatchObject({ code: 'ABORTED' });
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe('user');
    expect(onAbort).toHaveBeenCalledTimes(1);
  });
});
