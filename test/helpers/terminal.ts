// A fake terminal of a given size for renderers: a Writable with `isTTY`, `columns` and `rows`
// whose bytes drive a tiny screen emulator. The emulator knows only what zot-ext's renderers and
// readline's prompt write (CR, LF, cursor up / left / right / to a column, erase to the end of the
// screen or line, SGR) and throws on anything else, so a renderer that starts writing something
// new gets a test failure, not a silently wrong screen.
import { Writable } from 'node:stream';
import { WAIT_MS, withDeadline } from './wait.js';

// Its own idea of wide characters (CJK, Hangul, fullwidth forms, emoji blocks) and combining marks:
// deliberately not the renderer's code.
const wide = (cp: number) =>
  (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1faff);
const combining = (cp: number) => cp >= 0x300 && cp <= 0x36f;

/**
 * A screen of `rows` x `columns` cells with its scrollback. LF is a new line at column 0 (the tty
 * driver's ONLCR); a character past the last column wraps (counted in `wraps`); LF on the last row
 * scrolls the top row into the scrollback, where cursor movement no longer reaches.
 */
export class ScreenEmulator {
  /** Every row, the scrollback first; each row a list of cells ('' = the right half of a wide character). */
  private readonly buffer: string[][] = [[]];
  /** Index in `buffer` of the screen's top row. */
  private top = 0;
  private row = 0;
  private col = 0;
  /** Characters that did not fit on their row and wrapped to the next. */
  wraps = 0;

  constructor(
    public columns: number,
    public rows: number,
  ) {}

  feed(text: string): void {
    for (let i = 0; i < text.length; ) {
      const ch = text[i]!;
      if (ch === '\x1b') {
        const csi = /^\x1b\[([0-9;:]*)([A-Za-z])/.exec(text.slice(i));
        if (csi === null) throw new Error(`ScreenEmulator: unsupported escape ${JSON.stringify(text.slice(i, i + 8))}`);
        this.csi(csi[1]!, csi[2]!);
        i += csi[0].length;
        continue;
      }
      const cp = text.codePointAt(i)!;
      const char = String.fromCodePoint(cp);
      i += char.length;
      if (ch === '\r') this.col = 0;
      else if (ch === '\n') this.lineFeed();
      else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) throw new Error(`ScreenEmulator: unsupported control U+${cp.toString(16)}`);
      else this.put(char, wide(cp) ? 2 : combining(cp) ? 0 : 1);
    }
  }

  /** The terminal was resized (no reflow, as xterm): rows are cut to the new width; the cursor stays on the screen. */
  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    for (const cells of this.buffer) cells.length = Math.min(cells.length, columns);
    this.col = Math.min(this.col, columns - 1);
    this.top = Math.max(this.top, this.row - rows + 1);
  }

  /** The rows on the screen now, right-trimmed. */
  screen(): string[] {
    return this.text(this.buffer.slice(this.top, this.top + this.rows));
  }

  /** Every row ever shown (scrollback and screen), right-trimmed. */
  all(): string[] {
    return this.text(this.buffer);
  }

  private text(rows: string[][]): string[] {
    return rows.map((cells) => cells.join('').trimEnd());
  }

  private csi(params: string, final: string): void {
    const n = params === '' ? undefined : Number(params);
    if (final === 'm') return; // colours take no cells
    if (final === 'A') {
      this.row = Math.max(this.top, this.row - (n ?? 1));
      return;
    }
    if (final === 'G' || final === 'C' || final === 'D') {
      const col = final === 'G' ? (n ?? 1) - 1 : final === 'C' ? this.col + (n ?? 1) : this.col - (n ?? 1);
      this.col = Math.max(0, Math.min(this.columns - 1, col));
      return;
    }
    if (final === 'J' && (n ?? 0) === 0) {
      this.cells().length = Math.min(this.cells().length, this.col);
      this.buffer.length = this.row + 1;
      return;
    }
    if (final === 'K' && (n === 2 || (n ?? 0) === 0)) {
      if (n === 2) this.cells().length = 0;
      else this.cells().length = Math.min(this.cells().length, this.col);
      return;
    }
    throw new Error(`ScreenEmulator: unsupported sequence ESC [ ${params} ${final}`);
  }

  private cells(): string[] {
    return (this.buffer[this.row] ??= []);
  }

  private lineFeed(): void {
    this.col = 0;
    this.row++;
    this.buffer[this.row] ??= [];
    if (this.row >= this.top + this.rows) this.top = this.row - this.rows + 1;
  }

  private put(char: string, width: number): void {
    if (width === 0) {
      const cells = this.cells();
      if (this.col > 0) cells[this.col - 1] = `${cells[this.col - 1] ?? ' '}${char}`;
      return;
    }
    if (this.col + width > this.columns) {
      this.wraps++;
      this.lineFeed();
    }
    const cells = this.cells();
    while (cells.length < this.col) cells.push(' ');
    cells[this.col] = char;
    if (width === 2) cells[this.col + 1] = '';
    this.col += width;
  }
}

/** A Writable that looks like a terminal of `columns` x `rows` and shows what it got on a ScreenEmulator. */
export class FakeTty extends Writable {
  readonly isTTY = true;
  readonly emulator: ScreenEmulator;

  constructor(
    public columns: number,
    public rows: number,
  ) {
    super({ decodeStrings: false });
    this.emulator = new ScreenEmulator(columns, rows);
  }

  /** What the emulator refused (an unsupported sequence): screen() and all() throw it. */
  private failure: Error | undefined;
  private readonly waiters = new Set<() => void>();

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    try {
      this.emulator.feed(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    } catch (err) {
      this.failure ??= err as Error;
    }
    callback();
    for (const check of this.waiters) check();
  }

  /** Resolves once a row on the screen contains `text`; rejects with the screen after WAIT_MS. */
  waitFor(text: string): Promise<void> {
    return withDeadline<void>(() => `${JSON.stringify(text)} on the screen:\n${this.emulator.screen().join('\n')}`, WAIT_MS, (resolve) => {
      const check = () => {
        if (this.failure !== undefined || this.emulator.screen().some((row) => row.includes(text))) resolve();
      };
      this.waiters.add(check);
      check();
      return () => this.waiters.delete(check);
    });
  }

  /** The rows on the screen now (see ScreenEmulator.screen). */
  screen(): string[] {
    if (this.failure !== undefined) throw this.failure;
    return this.emulator.screen();
  }

  /** Every row, scrollback included (see ScreenEmulator.all). */
  all(): string[] {
    if (this.failure !== undefined) throw this.failure;
    return this.emulator.all();
  }

  /** Changes the size and emits 'resize', as a terminal's stream does on SIGWINCH. */
  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.emulator.resize(columns, rows);
    this.emit('resize');
  }
}
