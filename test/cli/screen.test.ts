// The panel renderer of `zot-ext run` on a fake terminal of a given size: a panel larger than the
// terminal is cut to it and redrawn in place, so repeated renders leave exactly one copy.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PanelView } from '../../src/host/types.js';
import { main } from '../../src/cli/main.js';
import { Output } from '../../src/cli/output.js';
import { cellWidth, fitWidth, Screen } from '../../src/cli/run/screen.js';
import { tempDir } from '../helpers/fixtures.js';
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

// An extension whose /big opens an 80-line panel (its first line 200 columns wide); each key moves
// the selection down and re-renders it.
const BIG_PANEL = `#!/usr/bin/env node
const send = (frame) => process.stdout.write(JSON.stringify(frame) + '\\n');
let selected = 0;
const lines = () => Array.from({ length: 80 }, (_, i) => (i === selected ? '› ' : '  ') + 'item ' + (i + 1) + (i === 0 ? ' 漢字'.repeat(70) : ''));
const panel = () => ({ title: 'Big', lines: lines(), footer: 'esc close' });
let buffered = '';
process.stdin.setEncoding('utf8').on('data', (chunk) => {
  buffered += chunk;
  for (let at; (at = buffered.indexOf('\\n')) !== -1; ) {
    const frame = JSON.parse(buffered.slice(0, at));
    buffered = buffered.slice(at + 1);
    if (frame.type === 'hello_ack') {
      send({ type: 'register_command', name: 'big', description: 'an 80-line panel' });
      send({ type: 'ready' });
    } else if (frame.type === 'command_invoked') send({ type: 'command_response', id: frame.id, action: 'open_panel', open_panel: { id: 'big', ...panel() } });
    else if (frame.type === 'panel_key') {
      selected++;
      send({ type: 'panel_render', panel_id: 'big', ...panel() });
    } else if (frame.type === 'shutdown') {
      send({ type: 'shutdown_ack' });
      process.stdout.end(() => process.exit(0));
    }
  }
});
send({ type: 'hello', name: 'big', version: '1.0.0', capabilities: ['commands', 'panels'] });
`;

describe('zot-ext run on a 60x50 terminal', () => {
  let tmp: { dir: string; cleanup: () => void };
  beforeEach(() => {
    tmp = tempDir('zot-cli-screen-');
    mkdirSync(path.join(tmp.dir, 'project'));
    const ext = path.join(tmp.dir, 'big');
    mkdirSync(ext);
    writeFileSync(path.join(ext, 'extension.json'), JSON.stringify({ name: 'big', version: '1.0.0', exec: './big.mjs' }));
    writeFileSync(path.join(ext, 'big.mjs'), BIG_PANEL);
    chmodSync(path.join(ext, 'big.mjs'), 0o755);
  });
  afterEach(() => tmp.cleanup());

  it('an 80-line panel stays one copy on the screen however many keys redraw it', async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
    const tty = new FakeTty(60, 50);
    const stop = new AbortController();
    const args = ['run', path.join(tmp.dir, 'big'), '--home', path.join(tmp.dir, 'home'), '--cwd', path.join(tmp.dir, 'project')];
    const exit = main(args, { stdin, stdout: tty, stderr: new PassThrough(), env: { ...process.env, NO_COLOR: '1' }, cwd: tmp.dir, signal: stop.signal });
    try {
      await tty.waitFor('zot-ext>');
      stdin.write('/big\r');
      await tty.waitFor('│ … 34 more lines');
      for (let key = 1; key <= 5; key++) {
        stdin.write('\x1b[B');
        await tty.waitFor(`│ › item ${key + 1}`);
      }
      const all = tty.all();
      expect(count(all, 'Big [big] big')).toBe(1);
      expect(count(all, 'esc close')).toBe(1);
      expect(all.filter((row) => /^│ [ ›] item 2$/.test(row))).toHaveLength(1);
      expect(tty.emulator.wraps).toBe(0);
      const rows = tty.screen();
      expect(rows.indexOf('└─ esc close') - rows.indexOf('┌─ Big [big] big')).toBe(48);
      const wide = rows.find((r) => r.startsWith('│   item 1 '))!;
      expect(wide).toMatch(/^│   item 1( 漢字)+ 漢?…$/);
      expect(cellWidth(wide)).toBeLessThanOrEqual(59);
      stdin.write('\x1b');
      await tty.waitFor('[big] panel big closed (by the user)');
      stdin.write(':quit\r');
      expect(await exit).toBe(0);
    } finally {
      stop.abort();
      await exit;
    }
  });
});
