import { clearScreenDown, moveCursor } from 'node:readline';
import type { PanelView } from '../../host/types.js';
import type { Output } from '../output.js';
import { terminalSafe, terminalSafeStyled } from '../terminal-safe.js';

/** Box lines of a panel: title bar, the lines, footer. */
export function panelLines(panel: PanelView, out: Output): string[] {
  // The panel's lines keep their own colours (SGR) when the output has colour; nothing else does.
  const safeLine = out.colour ? terminalSafeStyled : terminalSafe;
  const lines = [`┌─ ${out.style('bold', terminalSafe(panel.title ?? panel.panelId))} ${out.style('gray', terminalSafe(`[${panel.extension}] ${panel.panelId}`))}`];
  for (const line of panel.lines) lines.push(`│ ${safeLine(line).replaceAll('\n', ' ')}`);
  lines.push(panel.footer === undefined ? '└─' : `└─ ${out.style('gray', terminalSafe(panel.footer))}`);
  return lines;
}

/**
 * Where `run` writes. Piped: every line and every panel frame is printed in order. On a TTY: the
 * prompt is redrawn around asynchronous output and a re-rendered panel replaces its last frame.
 */
export class Screen {
  /** Lines of the panel frame currently at the bottom of the terminal (0 = none). */
  private drawn = 0;
  private drawnPanel: string | undefined;
  /** Called after output on a TTY, to redraw the prompt. */
  onAfterPrint: (() => void) | undefined;
  /** Called before output on a TTY, to clear the prompt line. */
  onBeforePrint: (() => void) | undefined;
  /** A progress line is on the terminal's last line, without its newline: the next output replaces it. */
  private status = false;

  constructor(
    readonly out: Output,
    readonly err: Output,
    readonly tty: boolean,
  ) {}

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
    const columns = (this.out.stream as { columns?: number | undefined }).columns;
    const safe = this.out.colour ? terminalSafeStyled(text) : terminalSafe(text);
    const line = columns !== undefined && columns > 1 && safe.length >= columns ? `${safe.slice(0, columns - 2)}…` : safe;
    this.out.stream.write(`\r\x1b[2K${line}`);
    this.status = true;
  }

  error(text: string): void {
    this.write(() => this.err.line(text));
  }

  panel(view: PanelView): void {
    this.clearStatus();
    const lines = panelLines(view, this.out);
    if (this.tty && this.drawn > 0 && this.drawnPanel === view.panelId) {
      this.onBeforePrint?.();
      moveCursor(this.out.stream, 0, -this.drawn);
      clearScreenDown(this.out.stream);
      for (const line of lines) this.out.line(line);
    } else this.write(() => lines.forEach((line) => this.out.line(line)));
    this.drawn = lines.length;
    this.drawnPanel = view.panelId;
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
