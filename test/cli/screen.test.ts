// The panel renderer of `zot-ext run` on a fake terminal of a given size: a panel larger than the
// terminal is cut to it and redrawn in place, so repeated renders leave exactly one copy.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { PanelView } from '../../src/host/types.js';
import { Output } from '../../src/cli/output.js';
import { cellWidth, fitWidth, Screen } from '../../src/cli/run/screen.js';
import { FakeTty } from '../helpers/terminal.js';

const panel = (lines: string[], footer = 'esc close'): PanelView => ({ extension: 'big', panelId: 'main', title: 'Big', lines, footer });
const numbered = (n: number, selected: number) => Array.from({ length: n }, (_, i) => `${i === selected ? '›' : ' '} item ${i + 1}`);

function ttyScreen(columns: number, rows: number, colour = false) {
  const tty = new FakeTty(columns, rows);
  const screen = new Screen(new Output(tty, colour), new Output(new PassThrough(), false), true);
  return { tty, screen };
}

const count = (rows: string[], text: string) => rows.filter((r) => r.includes(text)).length;

describe('panels on a terminal', () => {
  it('an 80-line panel in a 50-row terminal: the rows that fit and a marker, redrawn in place on every render', () => {
    const { tty, screen } = ttyScreen(60, 50);
    screen.print('before the panel');
    for (let key = 0; key < 6; key++) screen.panel(panel(numbered(80, key)));
    const all = tty.all();
    expect(count(all, 'Big [big] main')).toBe(1);
    expect(count(all, 'esc close')).toBe(1);
    expect(count(all, 'before the panel')).toBe(1);
    // 49 rows of frame and the cursor's row: title, 46 lines, the marker, the footer.
    const frame = tty.screen().slice(0, 49);
    expect(frame[0]).toBe('┌─ Big [big] main');
    expect(frame[1]).toBe('│   item 1');
    expect(frame[6]).toBe('│ › item 6');
    expect(frame[46]).toBe('│   item 46');
    expect(frame[47]).toBe('│ … 34 more lines');
    expect(frame[48]).toBe('└─ esc close');
    expect(tty.emulator.wraps).toBe(0);
  });

  it('cuts lines wider than the terminal (wide characters count two columns, colours none); nothing wraps', () => {
    const { tty, screen } = ttyScreen(40, 24, true);
    const lines = ['x'.repeat(200), '漢字'.repeat(50), `\x1b[31m${'red '.repeat(30)}\x1b[0m`, 'e\u0301'.repeat(39), 'short'];
    for (let i = 0; i < 4; i++) screen.panel(panel(lines, `footer ${'-'.repeat(100)}`));
    const all = tty.all();
    expect(count(all, 'Big [big] main')).toBe(1);
    expect(tty.emulator.wraps).toBe(0);
    const frame = tty.screen().slice(0, 7);
    for (const row of frame) expect(cellWidth(row)).toBeLessThanOrEqual(39);
    expect(frame[1]).toBe(`│ ${'x'.repeat(36)}…`);
    expect(frame[2]).toMatch(/^│ (漢字)+漢?…$/);
    expect(frame[3]).toMatch(/^│ (red )+r?e?d?…$/);
    expect(frame[4]).toBe(`│ ${'e\u0301'.repeat(36)}…`);
    expect(frame[5]).toBe('│ short');
    expect(frame[6]).toMatch(/^└─ footer -+…$/);
  });

  it('redraws at the new size when the terminal is resized', async () => {
    const { tty, screen } = ttyScreen(80, 50);
    screen.print('before the panel');
    screen.panel(panel(numbered(80, 0)));
    tty.resize(40, 20);
    await Promise.resolve(); // the redraw runs after the other 'resize' listeners
    screen.panel(panel(numbered(80, 1)));
    const rows = tty.screen();
    expect(count(rows, 'Big [big] main')).toBe(1);
    expect(rows.slice(0, 19)).toEqual(['┌─ Big [big] main', '│   item 1', '│ › item 2', ...numbered(80, 1).slice(2, 16).map((l) => `│ ${l}`), '│ … 64 more lines', '└─ esc close']);
    expect(rows[19]).toBe('');
  });

  it('a terminal too small for the marker shows the rows that fit', () => {
    const { tty, screen } = ttyScreen(30, 3);
    for (let i = 0; i < 3; i++) screen.panel(panel(numbered(10, i)));
    expect(tty.screen()).toEqual(['┌─ Big [big] main', '│   item 1', '']);
  });

  it('piped, every frame is printed whole, as before', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    const screen = new Screen(new Output(out, false), new Output(new PassThrough(), false), false);
    const lines = numbered(80, 0).concat('x'.repeat(300));
    screen.panel(panel(lines));
    screen.panel(panel(lines));
    const frame = ['┌─ Big [big] main', ...lines.map((l) => `│ ${l}`), '└─ esc close'].join('\n');
    expect(text).toBe(`${frame}\n${frame}\n`);
  });
});

describe('fitWidth', () => {
  it('cuts at a cell count, never in the middle of a wide character, and keeps short text as it is', () => {
    expect(fitWidth('hello', 5)).toBe('hello');
    expect(fitWidth('hello!', 5)).toBe('hell…');
    expect(fitWidth('漢字漢字', 6)).toBe('漢字…');
    expect(fitWidth('漢字漢字', 5)).toBe('漢字…');
    expect(fitWidth('a👍🏽b👍🏽', 4)).toBe('a👍🏽…');
    expect(cellWidth('\x1b[1mab\x1b[0m')).toBe(2);
  });
});
