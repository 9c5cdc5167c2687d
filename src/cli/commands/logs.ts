import type { OptionValues } from '../args.js';
import { watch, type FSWatcher } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { nameProblem } from '../../manifest/index.js';
import { defaultLogDir, logPathFor } from '../../manifest/log-path.js';
import { expectArgs, type Command, type CommandContext } from '../context.js';
import { CliError, CliErrorCode } from '../errors.js';
import { terminalSafe } from '../terminal-safe.js';

const POLL_MS = 250;
const CHUNK = 64 * 1024;

export const logs: Command = {
  name: 'logs',
  usage: '<name> [-f]',
  summary: "print (or follow) an extension's stderr log",
  description: [
    "Prints the extension's log in <home>/logs (ext-<name>.log): its stderr and the host's [host]",
    'lines, across runs. A log that reached its cap was rotated once to <file>.1: that part is',
    'printed first. With -f, keeps printing what is appended until Ctrl+C; a truncated (rotated) or',
    're-created file is read again from its start.',
  ].join('\n'),
  options: {
    follow: { type: 'boolean', short: 'f', description: 'keep printing new lines as they are written' },
    lines: { type: 'string', short: 'n', value: 'count', description: 'start with only the last <count> lines' },
  },
  async run(ctx) {
    expectArgs(ctx, logs, 1, 1);
    const name = ctx.args[0]!;
    const problem = nameProblem(name);
    if (problem !== undefined) throw new CliError(CliErrorCode.USAGE, `${problem}; give the extension's manifest name`);
    const last = parseCount(ctx.values.lines);
    const file = logPathFor(defaultLogDir(ctx.home), name);
    const follow = ctx.values.follow === true;
    const size = await stat(file).then(
      (s) => s.size,
      () => undefined,
    );
    if (size === undefined && !follow) {
      throw new CliError(CliErrorCode.NOT_FOUND, `no log for "${name}" at ${file}; it is written when the extension starts (try zot-ext doctor)`);
    }
    let offset = 0;
    if (size !== undefined) {
      const start = last === undefined ? { offset: 0, lines: 0 } : await startOfLastLines(file, size, last);
      // The rotated part comes first: all of it, or the lines the current file does not hold.
      const rotated = `${file}.1`;
      const rotatedSize = await stat(rotated).then(
        (s) => s.size,
        () => undefined,
      );
      if (rotatedSize !== undefined && (last === undefined || start.lines < last)) {
        const from = last === undefined ? 0 : (await startOfLastLines(rotated, rotatedSize, last - start.lines)).offset;
        await copyRange(rotated, from, ctx);
      }
      offset = await copyRange(file, start.offset, ctx);
    } else ctx.err.line(`waiting for ${file} ...`);
    if (follow) await followFile(file, offset, ctx);
    return 0;
  },
};

function parseCount(value: OptionValues[string]): number | undefined {
  if (typeof value !== 'string') return undefined;
  if (!/^\d+$/.test(value)) throw new CliError(CliErrorCode.USAGE, `--lines needs a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

/**
 * Byte offset where the last `count` lines of the file begin (a final newline does not start a
 * line), and how many lines that is (fewer than `count` when the file has fewer).
 */
async function startOfLastLines(file: string, size: number, count: number): Promise<{ offset: number; lines: number }> {
  if (count === 0) return { offset: size, lines: 0 };
  const handle = await open(file, 'r');
  try {
    let end = size;
    let seen = 0;
    const buf = Buffer.alloc(CHUNK);
    while (end > 0) {
      const start = Math.max(0, end - CHUNK);
      const { bytesRead } = await handle.read(buf, 0, end - start, start);
      for (let i = bytesRead - 1; i >= 0; i--) {
        if (buf[i] !== 0x0a || start + i === size - 1) continue;
        if (++seen === count) return { offset: start + i + 1, lines: seen };
      }
      end = start;
    }
    return { offset: 0, lines: size === 0 ? 0 : seen + 1 };
  } finally {
    await handle.close();
  }
}

/**
 * Writes the file from `offset` to its current end; returns the new offset. The log holds the
 * extension's stderr: terminal control sequences are dropped (newline and tab stay).
 */
async function copyRange(file: string, offset: number, ctx: CommandContext): Promise<number> {
  const handle = await open(file, 'r');
  const utf8 = new StringDecoder('utf8');
  const write = async (text: string) => {
    if (text !== '' && !ctx.io.stdout.write(terminalSafe(text))) await new Promise((resolve) => ctx.io.stdout.once('drain', resolve));
  };
  try {
    const buf = Buffer.alloc(CHUNK);
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, CHUNK, offset);
      if (bytesRead === 0) {
        await write(utf8.end());
        return offset;
      }
      offset += bytesRead;
      await write(utf8.write(buf.subarray(0, bytesRead)));
    }
  } finally {
    await handle.close();
  }
}

/** Prints what is appended until the signal aborts: fs.watch for speed, polling as the safety net. */
async function followFile(file: string, start: number, ctx: CommandContext): Promise<void> {
  let offset = start;
  let identity: string | undefined;
  let busy = false;
  let again = false;
  const check = async () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        const s = await stat(file).catch(() => undefined);
        if (s === undefined) continue;
        const id = `${s.dev}:${s.ino}`;
        if (identity !== undefined && id !== identity) {
          // Re-created (log rotation): read the new file from its start, watch the new inode.
          offset = 0;
          watcher?.close();
          watcher = undefined;
        }
        identity = id;
        if (s.size < offset) offset = 0; // truncated
        if (s.size > offset) offset = await copyRange(file, offset, ctx);
        watchFile();
      } while (again && !ctx.signal.aborted);
    } catch {
      // The file went away between stat and read: the next tick sees it again.
    } finally {
      busy = false;
    }
  };
  let watcher: FSWatcher | undefined;
  const watchFile = () => {
    if (watcher !== undefined) return;
    try {
      watcher = watch(file, { persistent: false }, () => void check());
      watcher.on('error', () => {
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      watcher = undefined;
    }
  };
  await stat(file).then(
    (s) => (identity = `${s.dev}:${s.ino}`),
    () => undefined,
  );
  watchFile();
  const timer = setInterval(() => void check(), POLL_MS);
  try {
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) return resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    clearInterval(timer);
    watcher?.close();
  }
}
