// The inspector's server side without a browser or processes: frames go out in batches, a page that
// does not keep up gets the newest frames and a count of the dropped ones, and one that falls too far
// behind is dropped, so memory stays bounded whatever the extensions send.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventEmitter } from 'eventemitter3';
import type { ExtensionHost } from '../../src/host/host.js';
import type { FrameRow, Push } from '../../src/cli/inspect/messages.js';
import { FRAME_HISTORY, InspectorSession, MAX_LINE_CHARS, MAX_PANEL_CHARS, MAX_PANELS, type Client } from '../../src/cli/inspect/session.js';

/** Just what the session reads of a host. */
function fakeHost(): ExtensionHost {
  const host = new EventEmitter() as unknown as ExtensionHost & Record<string, unknown>;
  host.extensions = () => [];
  host.tools = () => [];
  host.commands = () => [];
  return host;
}

function page(buffered: () => number) {
  const batches: Push[][] = [];
  const dropped: string[] = [];
  const client: Client = { send: (b) => batches.push(JSON.parse(b) as Push[]), buffered, drop: (r) => dropped.push(r) };
  const frames = () => batches.flat().flatMap((p) => (p.t === 'frames' ? p.frames : []));
  const droppedCount = () => batches.flat().reduce((n, p) => n + (p.t === 'frames' ? p.dropped : 0), 0);
  return { client, batches, dropped, frames, droppedCount };
}

function tap(session: InspectorSession, n: number, from = 0): void {
  for (let i = from; i < from + n; i++) session.frameTap({ extension: 'x', direction: 'in', line: `{"type":"notify","i":${i}}`, at: 1 });
}

describe('inspect session', () => {
  let session: InspectorSession;
  beforeEach(() => {
    vi.useFakeTimers();
    session = new InspectorSession();
    session.attach(fakeHost());
  });
  afterEach(() => {
    session.close();
    vi.useRealTimers();
  });

  it('sends the state at connect, then frames in one batch per tick', () => {
    const p = page(() => 0);
    session.connect(p.client);
    expect(p.batches).toHaveLength(1);
    expect(p.batches[0]![0]!.t).toBe('hello');
    tap(session, 1000);
    expect(p.batches).toHaveLength(1);
    vi.advanceTimersByTime(60);
    expect(p.batches).toHaveLength(2);
    expect(p.frames().map((f: FrameRow) => f[0])).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
  });

  it('keeps the newest frames for a page whose socket is full, and counts the others', () => {
    let full = 5 * 1024 * 1024;
    const p = page(() => full);
    session.connect(p.client);
    tap(session, FRAME_HISTORY + 1500);
    vi.advanceTimersByTime(200);
    expect(p.frames()).toHaveLength(0);
    full = 0;
    vi.advanceTimersByTime(60);
    const rows = p.frames();
    expect(rows).toHaveLength(FRAME_HISTORY);
    expect(rows[0]![0]).toBe(1501);
    expect(p.droppedCount()).toBe(1500);
  });

  it('a page that connects late gets the last frames and how many came before them', () => {
    tap(session, FRAME_HISTORY + 10);
    const p = page(() => 0);
    session.connect(p.client);
    vi.advanceTimersByTime(60);
    expect(p.frames()).toHaveLength(FRAME_HISTORY);
    expect(p.droppedCount()).toBe(10);
  });

  it('drops a page that stopped reading, and sends it nothing more', () => {
    const p = page(() => 65 * 1024 * 1024);
    session.connect(p.client);
    tap(session, 10);
    vi.advanceTimersByTime(60);
    expect(p.dropped).toEqual(['the page could not keep up with the extensions; reload it']);
    const sent = p.batches.length;
    tap(session, 10);
    vi.advanceTimersByTime(60);
    expect(p.batches).toHaveLength(sent);
  });

  it('cuts a huge line for the page and says how long it was', () => {
    const p = page(() => 0);
    session.connect(p.client);
    session.frameTap({ extension: 'x', direction: 'in', line: `{"type":"tool_result","data":"${'a'.repeat(100_000)}"}`, at: 1 });
    vi.advanceTimersByTime(60);
    const [row] = p.frames();
    expect(row![4].length).toBeLessThan(17_000);
    expect(row![4]).toMatch(/… \(100\d+ characters, cut\)$/);
    expect(row![5]).toBeGreaterThan(100_000);
  });

  it('cuts huge notes, problems and panels like frames, and keeps a bounded number of panels and notes (counting the others)', () => {
    const huge = 'n'.repeat(4 * 1024 * 1024);
    const cb = session.callbacks;
    for (let i = 0; i < 600; i++) cb.notify!({ extension: 'x', message: huge, level: 'info' } as never);
    cb.warning!({ message: huge, extension: 'x' } as never);
    for (let i = 0; i < MAX_PANELS + 10; i++) cb.openPanel!({ extension: 'x', panelId: `p${i}`, title: huge, lines: Array.from({ length: 100 }, () => huge), footer: huge, by: 'extension' } as never);
    const p = page(() => 0);
    session.connect(p.client);
    const hello = p.batches[0]![0]!;
    if (hello.t !== 'hello') throw new Error('no hello');
    expect(hello.activity).toHaveLength(500);
    expect(hello.activity.every((a) => a.text.length < MAX_LINE_CHARS + 100)).toBe(true);
    expect(hello.activity[0]!.text).toMatch(/… \(4194304 characters, cut\)$/);
    expect(hello.problems[0]!.message.length).toBeLessThan(MAX_LINE_CHARS + 100);
    expect(hello.panels).toHaveLength(MAX_PANELS);
    expect(hello.panels[0]!.panelId).toBe('p10');
    const panel = hello.panels[0]!;
    expect(panel.lines.join('').length).toBeLessThanOrEqual(MAX_PANEL_CHARS + 200);
    expect(panel.lines.at(-1)).toMatch(/more lines, cut\)$/);
    expect(panel.title!.length + panel.footer!.length).toBeLessThan(2 * MAX_LINE_CHARS + 200);
    expect(hello.dropped).toEqual({ activity: 100, problems: 0, panels: 10 });
    // All of it, as the page gets it: a few MB, not the GBs that came in.
    expect(JSON.stringify(p.batches).length).toBeLessThan(16 * 1024 * 1024);
  });
});
