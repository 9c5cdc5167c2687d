/**
 * Keeps the real stdout for frames only: while an extension runs on process.stdout, anything else
 * that writes to it (console.log, console.info, a dependency's process.stdout.write) goes to stderr.
 */
type WriteFn = (chunk: string, callback: (err?: Error | null) => void) => boolean;

export interface StdoutGuard {
  /** Writes to the real stdout. */
  write: WriteFn;
  /** Puts process.stdout.write back. */
  restore(): void;
}

export function guardStdout(): StdoutGuard {
  const stdout = process.stdout;
  const original = stdout.write;
  const realWrite = original.bind(stdout) as WriteFn;
  const toStderr = ((...args: Parameters<typeof process.stderr.write>) =>
    process.stderr.write(...args)) as typeof process.stdout.write;
  stdout.write = toStderr;
  return {
    write: realWrite,
    restore() {
      if (stdout.write === toStderr) stdout.write = original;
    },
  };
}
