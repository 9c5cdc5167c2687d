import { appendFile, mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { stderrSummary } from './stderr-summary.js';

/** A file-name-safe form of an extension name: never contains a separator or `..`. */
export function safeLogName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return cleaned.length === 0 ? '_' : cleaned.slice(0, 128);
}

/** `<logDir>/ext-<name>.log`, guaranteed to stay inside logDir. */
export function logPathFor(logDir: string, name: string): string {
  const dir = path.resolve(logDir);
  const file = path.join(dir, `ext-${safeLogName(name)}.log`);
  if (path.dirname(file) !== dir) throw new Error(`log path escapes ${dir}: ${file}`);
  return file;
}

/**
 * One extension's stderr log. The child writes its stderr straight into the file (no copy through
 * the host); the host appends its own diagnostics as `[host] ...` lines.
 */
export class ExtensionLog {
  private chain: Promise<void> = Promise.resolve();
  /** File size when this run started: where this run's stderr begins. */
  private startOffset = 0;

  constructor(readonly path: string) {}

  /** Creates the directory, appends the start header, and returns the file for the child's stderr (close it after spawn). */
  async openForChild(header: string): Promise<FileHandle> {
    await mkdir(path.dirname(this.path), { recursive: true });
    const handle = await open(this.path, 'a');
    try {
      const { size } = await handle.stat();
      const line = `--- ${new Date().toISOString()} ${header} ---\n`;
      await handle.write(line);
      this.startOffset = size + Buffer.byteLength(line);
    } catch (err) {
      await handle.close();
      throw err;
    }
    return handle;
  }

  /** Resolves once every host line written so far is in the file. */
  flushed(): Promise<void> {
    return this.chain;
  }

  /** Appends one host line (`[host] message`); failures to log are ignored. */
  write(message: string): Promise<void> {
    const line = `[host] ${new Date().toISOString()} ${message}\n`;
    this.chain = this.chain.then(
      () => appendFile(this.path, line).catch(() => undefined),
    );
    return this.chain;
  }

  /**
   * The last `count` non-empty stderr lines of this run (host lines excluded), led by the line that
   * names the error when it is further up (see stderr-summary.ts).
   */
  async tail(count = 5): Promise<string[]> {
    await this.chain;
    try {
      const text = (await readFile(this.path)).subarray(this.startOffset).toString('utf8');
      return stderrSummary(text.split('\n').filter((line) => !line.startsWith('[host] ')), count);
    } catch {
      return [];
    }
  }
}
