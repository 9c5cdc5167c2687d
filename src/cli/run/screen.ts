import type { PanelView } from '../../host/types.js';
import type { Output } from '../output.js';
import { terminalSafe, terminalSafeStyled } from '../terminal-safe.js';
import { jsonLine, type RunRecord } from './records.js';

/** Box lines of a panel: title bar, the lines, footer. */
export function panelLines(panel: PanelView, out: Output): string[] {
  // The panel's lines keep their own colours (SGR) when the output has colour; nothing else does.
  const safeLine = out.colour ? terminalSafeStyled : terminalSafe;
  const lines = [`┌─ ${out.style('bold', terminalSafe(panel.title ?? panel.panelId))} ${out.style('gray', terminalSafe(`[${panel.extension}] ${panel.panelId}`))}`];
  for (const line of panel.lines) lines.push(`│ ${safeLine(line).replaceAll('\n', ' ')}`);
  lines.push(panel.footer === undefined ? '└─' : `└─ ${out.style('gray', terminalSafe(panel.footer))}`);
  return lines;
}

// Terminal cells of a grapheme: 2 for East Asian wide and fullwidth characters and emoji shown as
// emoji, 0 for combining marks and other zero-width characters, else 1. Not every terminal agrees on
// every character; lines are cut one column short of the width so that a misjudged one does not wrap.
const WIDE =
  /^[\u1100-\u115f\u231a\u231b\u2329\u232a\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{16fe0}-\u{16fe4}\u{17000}-\u{18aff}\u{1b000}-\u{1b2ff}\u{1f200}-\u{1f2ff}\u{20000}-\u{3fffd}]|\p{Emoji_Presentation}|\ufe0f/u;
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]/u;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
// eslint-disable-next-line no-control-regex
const SGR = /\x1b\[[0-9;:]*m/g;
/** Splits a line into its SGR sequences and the text between them (captured: kept in order). */
const SGR_PARTS = new RegExp(`(${SGR.source})`);

function cellsOf(grapheme: string): number {
  if (WIDE.test(grapheme)) return 2;
  return ZERO_WIDTH.test(grapheme) ? 0 : 1;
}

/** Terminal cells `text` takes (terminal-safe: no control but SGR, which takes none). */
export function cellWidth(text: string): number {
  let cells = 0;
  for (const { segment } of graphemes.segment(text.replace(SGR, ''))) cells += cellsOf(segment);
  return cells;
}

/**
 * `text` (terminal-safe) cut to `max` terminal cells, its last one `…` when anything was cut; SGR
 * sequences are kept (and reset after a cut).
 */
export function fitWidth(text: string, max: number): string {
  if (cellWidth(text) <= max) return text;
  let cells = 0;
  let out = '';
  let styled = false;
  for (const part of text.split(SGR_PARTS)) {
    if (part.startsWith('\x1b')) {
      out += part;
      styled = true;
      continue;
    }
    for (const { segment } of graphemes.segment(part)) {
      const width = cellsOf(segment);
      if (cells + width > max - 1) return `${out}${styled ? '\x1b[0m' : ''}…`;
      cells += width;
      out += segment;
    }
  }
  return out;
}

/** Terminal size as the stream reports it; undefined where it reports none. */
interface TerminalSize {
  columns: number | undefined;
  rows: number | undefined;
}

/**
 * Box lines of a panel cut to a terminal: each line to `columns - 1` cells (so none wraps), and at
 * most `rows - 1` lines (the cursor's row stays on the screen, so the frame can be redrawn in place):
 * the title, the first lines, `│ … N more lines`, the footer.
 */
function fitPanel(lines: readonly string[], size: TerminalSize): string[] {
  const { columns, rows } = size;
  let fitted = [...lines];
  if (rows !== undefined && rows > 1 && fitted.length > rows - 1) {
    const room = rows - 1;
    // Title, footer and the marker take three rows; a terminal smaller than that shows what fits.
    if (room < 4) fitted = fitted.slice(0, room);
    else {
      const body = room - 3;
      const hidden = fitted.length - 2 - body;
      fitted = [fitted[0]!, ...fitted.slice(1, 1 + body), `│ … ${hidden} more line${hidden === 1 ? '' : 's'}`, fitted.at(-1)!];
    }
  }
  return columns !== undefined && columns > 1 ? fitted.map((line) => fitWidth(line, columns - 1)) : fitted;
}

/**
 * Where `run` writes. Piped: every line and every panel frame is printed in order. On a TTY: the
 * prompt is redrawn around asynchronous output, and a panel is cut to the terminal's size and
 * re-rendered in place of its last frame (also when the terminal is resized).
 */
export class Screen {
  /** Terminal rows of the panel frame currently at the bottom of the terminal (0 = none). */
  private drawn = 0;
  /** That frame, to redraw it at a new terminal size. */
  private drawnPanel: PanelView | undefined;
  /** Cells of each of its rows. */
  private drawnCells: number[] = [];
  /** Called after output on a TTY, to redraw the prompt. */
  onAfterPrint: (() => void) | undefined;
  /** Called before output on a TTY, to clear the prompt line. */
  onBeforePrint: (() => void) | undefined;
  /** A progress line is on the terminal's last line, without its newline: the next output replaces it. */
  private status = false;
  // After the other listeners of 'resize' (readline redraws its prompt line): the frame is drawn last.
  private readonly onResize = () => queueMicrotask(() => this.resized());

  constructor(
    readonly out: Output,
    readonly err: Output,
    readonly tty: boolean,
  ) {
    if (tty) out.stream.on('resize', this.onResize);
  }

  /** Stops following the terminal's size. */
  close(): void {
    this.out.stream.off('resize', this.onResize);
  }

  private get size(): TerminalSize {
    const { columns, rows } = this.out.stream as { columns?: number | undefined; rows?: number | undefined };
    return { columns, rows };
  }

  print(text: string): void {
    this.write(() => this.out.line(text));
  }

  /**
   * A running call's progress: on a TTY one updating line (CR + clear line, cut to the width), which
   * the next output replaces; piped, a plain line.
   */
  progress(text: string): void {
    if (!this.tty) return this.print(text);
    this.drawn = 0;
    this.drawnPanel = undefined;
    this.onBeforePrint?.();
    const { columns } = this.size;
    const safe = this.out.colour ? terminalSafeStyled(text) : terminalSafe(text);
    this.out.stream.write(`\r\x1b[2K${columns !== undefined && columns > 1 ? fitWidth(safe, columns - 1) : safe}`);
    this.status = true;
  }

  /** One `run --json` record, one line on stdout (never a TTY's redraws: --json output is read as piped). */
  record(record: RunRecord): void {
    this.write(() => this.out.stream.write(jsonLine(record)));
  }

  error(text: string): void {
    this.write(() => this.err.line(text));
  }

  panel(view: PanelView): void {
    this.clearStatus();
    const lines = panelLines(view, this.out);
    if (!this.tty) return this.write(() => lines.forEach((line) => this.out.line(line)));
    const again = this.drawn > 0 && this.drawnPanel?.panelId === view.panelId && this.drawnPanel.extension === view.extension;
    this.draw(lines, again ? this.drawn : 0);
    this.drawnPanel = view;
  }

  /**
   * Draws a frame (cut to the terminal) below the output, or over the last `replace` rows: CR, cursor
   * up, clear to the end of the screen, then the frame, in one write.
   */
  private draw(lines: readonly string[], replace: number): void {
    const fitted = fitPanel(lines, this.size).map((line) => (this.out.colour ? terminalSafeStyled(line) : terminalSafe(line)));
    this.onBeforePrint?.();
    const up = replace > 0 ? `\r\x1b[${replace}A\x1b[J` : '';
    this.out.stream.write(`${up}${fitted.map((line) => `${line}\n`).join('')}`);
    this.drawn = fitted.length;
    this.drawnCells = fitted.map(cellWidth);
    this.onAfterPrint?.();
  }

  /**
   * The terminal changed size: the frame at the bottom is drawn again at the new size. A terminal
   * that rewraps lines made the old frame taller when it got narrower: its rows are counted as
   * rewrapped, at most the screen (over-counting clears a line of earlier output at worst; counting
   * short would leave part of the old frame behind).
   */
  private resized(): void {
    if (this.drawnPanel === undefined || this.drawn === 0) return;
    const { columns, rows } = this.size;
    let replace = this.drawn;
    if (columns !== undefined && columns > 1) replace = this.drawnCells.reduce((sum, cells) => sum + Math.max(1, Math.ceil(cells / columns)), 0);
    if (rows !== undefined && rows > 1) replace = Math.min(replace, rows - 1);
    this.draw(panelLines(this.drawnPanel, this.out), replace);
  }

  private clearStatus(): void {
    if (!this.status) return;
    this.status = false;
    this.out.stream.write('\r\x1b[2K');
  }

  private write(fn: () => void): void {
    this.clearStatus();
    this.drawn = 0;
    this.drawnPanel = undefined;
    if (!this.tty) return fn();
    this.onBeforePrint?.();
    fn();
    this.onAfterPrint?.();
  }
}
