// The outbound writer over a scripted transport: one write per tick, whole lines per write up to
// the chunk size, a longer line split (never inside a surrogate pair), lines taken back only while
// none of them is written, the bound for one-way lines, and the stuck watch.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutboundWriter, WRITE_CHUNK_CHARS, type WriterOwner } from '../../src/connection/writer.js';
import type { Transport } from '../../src/transport/transport.js';

/** A transport that records its writes; with `hold`, each write stays in progress until `complete()`. */
function scripted(hold = false) {
  const writes: string[] = [];
  const pending: (() => void)[] = [];
  const transport = {
    writable: true,
    writing: false,
    write(chunk: string, done: () => void, context?: unknown): boolean {
      writes.push(chunk);
      if (!hold) return true;
      transport.writing = true;
      pending.push(() => {
        transport.writing = false;
        done.call(context);
      });
      return false;
    },
  };
  return { transport: transport as unknown as Transport, writes, complete: () => pending.shift()?.() };
}

function owner(overrides: Partial<WriterOwner> = {}): WriterOwner & { stuck: number } {
  const o = { stuckMs: 1000, stats: { framesOut: 0 }, maxQueuedChars: 1024, stuck: 0, onStuck: () => o.stuck++, onWriteFailed: () => undefined, ...overrides };
  return o;
}

const tick = () => Promise.resolve();

afterEach(() => {
  vi.useRealTimers();
});

describe('OutboundWriter', () => {
  it('writes what a tick queued in one write at its end', async () => {
    const { transport, writes } = scripted();
    const writer = new OutboundWriter(transport, owner());
    for (const line of ['aaa\n', 'bb\n', 'c\n']) writer.enqueue(line);
    expect(writer.queuedChars).toBe(9);
    expect(writes).toEqual([]);
    await tick();
    expect(writes).toEqual(['aaa\nbb\nc\n']);
    expect(writer.queuedChars).toBe(0);
  });

  it('writes whole lines up to the chunk size, splits a longer line, never inside a surrogate pair', async () => {
    const { transport, writes } = scripted();
    const writer = new OutboundWriter(transport, owner({ maxQueuedChars: Infinity }));
    const long = `${'a'.repeat(WRITE_CHUNK_CHARS - 1)}😀tail\n`; // the emoji's high surrogate is the chunk's last unit
    writer.enqueue(long);
    writer.enqueue('next\n');
    await tick();
    expect(writes.join('')).toBe(`${long}next\n`);
    expect(writes[0]).toHaveLength(WRITE_CHUNK_CHARS - 1);
    expect(writes[1]!.startsWith('😀')).toBe(true);
  });

  it('takes back a whole line not begun, never the rest of a begun one', async () => {
    const { transport, writes, complete } = scripted(true);
    const stats = { framesOut: 0 };
    const writer = new OutboundWriter(transport, owner({ stats }));
    writer.enqueue('first\n');
    await tick(); // in progress: the rest waits
    const second = '2\n';
    const third = '3\n';
    writer.enqueue(second);
    writer.enqueue(third);
    expect(writer.takeBack('first\n')).toBe(false);
    expect(writer.takeBack(third)).toBe(true);
    expect(writer.takeBack(third)).toBe(false);
    expect(stats.framesOut).toBe(2);
    expect(writer.unwritten(writer.pushed)).toBe(true);
    complete();
    await tick();
    expect(writes).toEqual(['first\n', '2\n']);
  });

  it('drops a one-way line over the bound, but an empty queue takes any line', () => {
    const { transport } = scripted();
    const writer = new OutboundWriter(transport, owner({ maxQueuedChars: 10 }));
    expect(writer.offer(`${'x'.repeat(50)}\n`)).toBe(true);
    expect(writer.offer('y\n')).toBe(false);
    expect(writer.takeAll()).toBe(`${'x'.repeat(50)}\n`);
    expect(writer.takeAll()).toBeUndefined();
  });

  it('stays linear under a flood of lines', async () => {
    const { transport, writes } = scripted();
    const writer = new OutboundWriter(transport, owner({ maxQueuedChars: Infinity }));
    const line = `${'x'.repeat(99)}\n`;
    for (let i = 0; i < 100_000; i++) writer.enqueue(line);
    expect(writer.queuedChars).toBe(10_000_000);
    await tick();
    expect(writes.every((w) => w.length <= WRITE_CHUNK_CHARS && w.endsWith('\n'))).toBe(true);
    expect(writes.reduce((n, w) => n + w.length, 0)).toBe(10_000_000);
  });

  it('a write() that throws drops the queue and tells the owner once, escaping nowhere', async () => {
    const failures: unknown[] = [];
    const { transport } = scripted();
    (transport as { write: unknown }).write = () => {
      throw new Error('gone');
    };
    const writer = new OutboundWriter(transport, owner({ onWriteFailed: (cause) => failures.push(cause) }));
    writer.enqueue('a\n');
    writer.enqueue('b\n');
    await tick();
    expect(failures).toHaveLength(1);
    expect(writer.queuedChars).toBe(0);
  });
});

describe('the stuck watch', () => {
  it('fires when a write stays in progress for the stuck deadline; a completed write restarts it', async () => {
    vi.useFakeTimers();
    const { transport, complete } = scripted(true);
    const o = owner();
    const writer = new OutboundWriter(transport, o);
    expect(vi.getTimerCount()).toBe(0); // no timer before a write is left in progress
    writer.enqueue('a\n');
    await tick();
    vi.advanceTimersByTime(900);
    writer.enqueue('b\n');
    complete(); // 'b' goes out at once, and is left in progress in turn
    await tick();
    vi.advanceTimersByTime(900);
    expect(o.stuck).toBe(0);
    complete();
    vi.advanceTimersByTime(5000);
    expect(o.stuck).toBe(0);
    writer.enqueue('c\n');
    await tick();
    vi.advanceTimersByTime(1000);
    expect(o.stuck).toBe(1);
    writer.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('has no deadline above 2^31-1 ms', async () => {
    vi.useFakeTimers();
    const { transport } = scripted(true);
    const writer = new OutboundWriter(transport, owner({ stuckMs: Infinity }));
    writer.enqueue('a\n');
    await tick();
    expect(vi.getTimerCount()).toBe(0);
  });
});
