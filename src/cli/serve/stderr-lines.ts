// A served extension's stderr, line by line into the server's stderr with a prefix naming the
// connection. Only a bounded piece of an unterminated line is held.
import type { Readable } from 'node:stream';
import { terminalSafe } from '../terminal-safe.js';

/** Longest stderr line printed; the rest of a longer one is dropped (the line ends in "…"). */
export const MAX_STDERR_LINE_CHARS = 8192;

/** Writes every line of `stderr` as `<prefix> <line>` to `out` (control sequences removed). */
export function prefixLines(stderr: Readable, prefix: string, out: (line: string) => void): void {
  let held = '';
  let cut = false;
  const append = (piece: string) => {
    if (cut) return;
    const room = MAX_STDERR_LINE_CHARS - held.length;
    if (piece.length > room) {
      held += piece.slice(0, room);
      cut = true;
    } else held += piece;
  };
  const emit = () => {
    out(`${prefix} ${terminalSafe(held.replace(/\r$/, ''))}${cut ? '…' : ''}`);
    held = '';
    cut = false;
  };
  stderr.setEncoding('utf8');
  stderr.on('data', (chunk: string) => {
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', start)) {
      append(chunk.slice(start, nl));
      emit();
      start = nl + 1;
    }
    append(chunk.slice(start));
  });
  stderr.on('end', () => {
    if (held !== '' || cut) emit();
  });
  stderr.on('error', () => undefined);
}
