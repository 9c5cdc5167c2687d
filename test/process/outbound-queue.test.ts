// The outbound queue: whole lines per write up to the chunk size, a longer line split (never inside
// a surrogate pair), lines taken back only while none of them is written; and the stuck watch.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutboundQueue, StuckWatch } from '../../src/connection/outbound-queue.js';

function drain(queue: OutboundQueue, max: number): string[] {
  const writes: string[] = [];
  for (let chunk = queue.take(max); chunk !== undefined; chunk = queue.take(max)) writes.push(chunk);
  return writes;
}

describe('OutboundQueue', () => {
  it('hands out everything in one write when it fits, else whole lines up to the limit', () => {
    const queue = new OutboundQueue();
    for (const line of ['aaa\n', 'bb\n', 'c\n']) queue.push(line);
    expect(queue.chars).toBe(9);
    expect(drain(queue, 100)).toEqual(['aaa\nbb\nc\n']);
    for (const line of ['aaa\n', 'bb\n', 'c\n', 'dddd\n']) queue.push(line);
    expect(drain(queue, 7)).toEqual(['aaa\nbb\n', 'c\ndddd\n']);
    expect(queue.empty).toBe(true);
    expect(queue.chars).toBe(0);
  });

  it('splits a line longer than the limit, and never between the halves of a surrogate pair', () => {
    const queue = new OutboundQueue();
    const line = `ab😀cd\n`; // the emoji is 2 UTF-16 units, at 2-3
    queue.push(line);
    queue.push('next\n');
    const writes = drain(queue, 3);
    expect(writes.join('')).toBe(`${line}next\n`);
    expect(writes[0]).toBe('ab');
    expect(writes[1]).toBe('😀c');
  });

  it('takes back a whole line not begun, never the rest of a begun one', () => {
    const queue = new OutboundQueue();
    const first = `${'1'.repeat(10)}\n`;
    const second = '2\n';
    const third = '3\n';
    queue.push(first);
    queue.push(second);
    queue.push(third);
    expect(queue.take(4)).toBe('1111');
    expect(queue.remove(first)).toBe(false);
    expect(queue.remove(third)).toBe(true);
    expect(queue.remove(third)).toBe(false);
    expect(queue.chars).toBe(7 + 2);
    expect(drain(queue, 100)).toEqual(['111111\n2\n']);
    queue.push(second);
    expect(queue.remove(second)).toBe(true);
    expect(queue.empty).toBe(true);
  });

  it('stays linear under a flood of lines', () => {
    const queue = new OutboundQueue();
    const line = `${'x'.repeat(99)}\n`;
    for (let i = 0; i < 100_000; i++) queue.push(line);
    expect(queue.chars).toBe(10_000_000);
    const writes = drain(queue, 64 * 1024);
    expect(writes.every((w) => w.length <= 64 * 1024 && w.endsWith('\n'))).toBe(true);
    expect(writes.reduce((n, w) => n + w.length, 0)).toBe(10_000_000);
  });
});

describe('StuckWatch', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires when a write stays in progress for its deadline; a completed write restarts it', () => {
    vi.useFakeTimers();
    const onStuck = vi.fn();
    const watch = new StuckWatch(1000, onStuck);
    watch.writing();
    vi.advanceTimersByTime(900);
    watch.progressed();
    watch.writing();
    vi.advanceTimersByTime(900);
    expect(onStuck).not.toHaveBeenCalled();
    watch.progressed();
    vi.advanceTimersByTime(5000);
    expect(onStuck).not.toHaveBeenCalled();
    watch.writing();
    vi.advanceTimersByTime(1000);
    expect(onStuck).toHaveBeenCalledTimes(1);
    watch.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('calls onStuck with its context as `this`; no timer before a write is left in progress', () => {
    vi.useFakeTimers();
    const owner = { stuck: 0, onStuck(this: { stuck: number }) { this.stuck++; } };
    const watch = new StuckWatch(100, owner.onStuck, owner);
    expect(vi.getTimerCount()).toBe(0);
    watch.writing();
    vi.advanceTimersByTime(100);
    expect(owner.stuck).toBe(1);
    watch.stop();
  });

  it('has no deadline above 2^31-1 ms', () => {
    vi.useFakeTimers();
    const watch = new StuckWatch(Infinity, () => undefined);
    watch.writing();
    expect(vi.getTimerCount()).toBe(0);
  });
});
