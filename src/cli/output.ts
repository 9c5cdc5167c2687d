import { stripVTControlCharacters, styleText } from 'node:util';
import { terminalSafe, terminalSafeStyled } from './terminal-safe.js';

/** The streams and environment the CLI works with (the process's own by default). */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean | undefined; columns?: number | undefined };
  stderr: NodeJS.WritableStream & { isTTY?: boolean | undefined };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean | undefined; setRawMode?: ((mode: boolean) => unknown) | undefined };
  env: NodeJS.ProcessEnv;
  /** Directory relative paths on the command line are resolved against. */
  cwd: string;
  /** Aborted on SIGINT/SIGTERM: long-running commands stop what they started and return. */
  signal?: AbortSignal | undefined;
}

type Style = Parameters<typeof styleText>[0];

/** Colours only on a TTY, never with NO_COLOR (https://no-color.org: set and not empty). */
export function useColour(stream: { isTTY?: boolean | undefined }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** Line output to one stream, with optional colour. */
export class Output {
  readonly colour: boolean;

  constructor(
    readonly stream: NodeJS.WritableStream,
    colour: boolean,
  ) {
    this.colour = colour;
  }

  /**
   * Writes one line. No control sequence gets through but colour and style (SGR), and those only
   * with colour on: the last line of defence for strings an extension supplied (callers also pass
   * those through terminalSafe, which drops SGR too).
   */
  line(text = ''): void {
    this.stream.write(`${this.colour ? terminalSafeStyled(text) : terminalSafe(text)}\n`);
  }

  style(format: Style, text: string): string {
    return this.colour ? styleText(format, text) : text;
  }

  /** Columns padded to the widest cell; the last column is not padded. */
  table(rows: readonly (readonly string[])[]): void {
    const widths: number[] = [];
    for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, width(cell))));
    for (const row of rows) {
      this.line(
        row
          .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - width(cell))))
          .join('  ')
          .trimEnd(),
      );
    }
  }
}

function width(text: string): number {
  return [...stripVTControlCharacters(text)].length;
}
