// Cancel on the connection: a `cancel` line per aborted request once negotiated, and a bounded
// memory of cancelled ids (a flood of cancels never grows it past MAX_CANCELLED_IDS).
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_CANCELLED_IDS } from '../../src/connection/connection.js';
import { call, connectionHarness, type Harness, settleIo } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

describe('cancel', () => {
  it('remembers only the last MAX_CANCELLED_IDS cancelled ids: older late answers are UNKNOWN_ID again', { timeout: 10_000 }, async () => {
    const logged: string[] = [];
    h = await connectionHarness({ log: (m) => logged.push(m) });
    h.connection.cancels = true;
    const n = MAX_CANCELLED_IDS + 44;
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const controller = new AbortController();
      void h.connection.request(call(), { signal: controller.signal }).catch(() => undefined);
      ids.push(`mem:request-${i + 1}`);
      controller.abort();
    }
    await settleIo();
    const cancels = h.ext.received.filter((f) => f.type === 'cancel');
    expect(cancels).toHaveLength(n);
    expect(cancels[0]).toEqual({ type: 'cancel', id: 'mem:request-1', reason: 'aborted' });
    // Late answers for every id: the newest MAX_CANCELLED_IDS are logged as late, once; the rest are unknown.
    for (const id of ids) h.connection.settle(id, { type: 'tool_result', id, content: [] });
    h.connection.settle(ids.at(-1)!, { type: 'tool_result', id: ids.at(-1)!, content: [] });
    expect(logged).toHaveLength(MAX_CANCELLED_IDS);
    expect(h.diagnostics.filter((d) => d.code === 'UNKNOWN_ID')).toHaveLength(n - MAX_CANCELLED_IDS + 1);
  });

  it('sends nothing when cancel is not negotiated', { timeout: 10_000 }, async () => {
    h = await connectionHarness();
    const controller = new AbortController();
    const pending = h.connection.request(call(), { signal: controller.signal }).catch((err: { code: string }) => err.code);
    controller.abort();
    expect(await pending).toBe('ABORTED');
    await settleIo();
    expect(h.ext.received.filter((f) => f.type === 'cancel')).toEqual([]);
  });
});
