// Lines that need the frame schemas wait for them, in order, with every line after them; the wait
// is bounded (a flood while the schemas load is dropped and counted, never buffered without end).
import { describe, expect, it } from 'vitest';
import { CodecGate, MAX_HELD_CHARS } from '../../src/process/codec-gate.js';
import { isLineProblem, type DecodedLine } from '../../src/protocol/frame-check.js';
import { WAIT_MS, withDeadline } from '../helpers/wait.js';

function gate() {
  const decoded: DecodedLine[] = [];
  const diagnostics: string[] = [];
  const events: string[] = [];
  const stats = { badLines: 0 };
  const g: CodecGate = new CodecGate(
    {
      line: (line) => {
        const d = g.decode(line);
        if (d !== undefined) decoded.push(d);
      },
      diagnose: (message) => diagnostics.push(message),
      log: (message) => events.push(`log ${message}`),
      stats,
    },
    1024,
  );
  const feed = (line: string) => {
    const d = g.decode(line);
    if (d !== undefined) decoded.push(d);
  };
  return { g, feed, decoded, diagnostics, events, stats };
}

/** Resolves once the held lines are handed back (after() runs its callback then). */
function released(g: CodecGate): Promise<void> {
  return withDeadline<void>('the held lines', WAIT_MS, (resolve) => {
    g.after(resolve);
    return () => undefined;
  });
}

describe('CodecGate', () => {
  it('decodes plain frames without the schemas, holds the first one that needs them and everything after, in order', async () => {
    const { g, feed, decoded, events } = gate();
    feed('{"type":"ready"}');
    expect(decoded).toHaveLength(1);
    expect(g.codec).toBeUndefined();
    feed('{"type":"notify","message":"a","level":null}');
    feed('{"type":"clear_notes"}');
    feed('{"type":"notify","message":"b","extra":1}');
    g.after(() => events.push('closed'));
    expect(decoded).toHaveLength(1);
    expect(events).toEqual([]);
    await released(g);
    expect(g.codec).toBeDefined();
    expect(decoded.map((d) => (isLineProblem(d) ? d.problem.kind : d.type))).toEqual(['ready', 'notify', 'clear_notes', 'notify']);
    expect(decoded[1]).toEqual({ type: 'notify', message: 'a' });
    // After the lines held before it.
    expect(events).toEqual(['closed']);
    g.after(() => events.push('now'));
    expect(events).toEqual(['closed', 'now']);
  });

  it('drops what comes past the bound while the schemas load, and says how many', async () => {
    const { g, feed, decoded, diagnostics, stats } = gate();
    feed('{"type":"notify","message":"first","level":null}');
    const big = `{"type":"notify","message":"${'x'.repeat(100 * 1024)}"}`;
    const count = Math.ceil((MAX_HELD_CHARS * 1.5) / big.length);
    for (let i = 0; i < count; i++) feed(big);
    feed('{"type":"ready"}');
    await released(g);
    const kept = decoded.length;
    expect(kept).toBeGreaterThan(1);
    expect(kept * big.length).toBeLessThanOrEqual(MAX_HELD_CHARS + big.length);
    // A gapless prefix: the last line (after the drops) is gone too.
    expect(decoded.every((d) => !isLineProblem(d) && d.type === 'notify')).toBe(true);
    const dropped = count + 2 - kept;
    expect(stats.badLines).toBe(dropped);
    expect(diagnostics).toEqual([`${dropped} lines dropped: more than ${MAX_HELD_CHARS} characters arrived while the frame schemas loaded`]);
  });
});
