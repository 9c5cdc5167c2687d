// stop() resolves only once each extension's log holds its last lines: the child's stderr at
// shutdown and the host's own `[host]` lines about the stop (SIGTERM, SIGKILL); a log write that
// never completes holds stop() no longer than the kill grace.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyFixture, fixture } from '../helpers/fixtures.js';
import { hostKit } from '../helpers/host.js';

const kit = hostKit();
const LAST_WORDS = fixture('faults/last-words');

/** `count` copies of last-words, each its own extension (`<prefix>-<i>`, also its directory). */
function copies(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => copyFixture('faults/last-words', path.join(kit.dir, `${prefix}-${i}`), (m) => ({ ...m, name: `${prefix}-${i}` })));
}

describe('stop() and the extension logs', () => {
  it('resolves after the stderr an extension writes at shutdown is in its log', { timeout: 15_000 }, async () => {
    const { host, report } = await kit.start({ explicit: [LAST_WORDS] });
    expect(report.failed).toEqual([]);
    const logPath = host.extensions()[0]!.logPath;
    await host.stop();
    expect(readFileSync(logPath, 'utf8')).toContain('last-words: goodbye\n');
  });

  it('resolves after the host lines of a forced stop (SIGTERM, then SIGKILL) are in every log', { timeout: 15_000 }, async () => {
    // Several at once: the [host] lines of each are written while the others are being killed.
    const dirs = copies('forced', 6);
    const { host, report } = await kit.start({ explicit: dirs, env: { ...process.env, LAST_WORDS_STUBBORN: '1' }, timeouts: { shutdown: 100 } });
    expect(report.failed).toEqual([]);
    const logs = host.extensions().map((ext) => ext.logPath);
    await host.stop();
    for (const [i, logPath] of logs.entries()) {
      const text = readFileSync(logPath, 'utf8');
      // The child writes straight to the file, the host through its queue: only each one's own order holds.
      const at = (line: string): number => text.indexOf(line);
      expect([at(`forced-${i}: goodbye`), at(`forced-${i}: SIGTERM ignored`)].every((n, k, all) => n >= 0 && (k === 0 || n > all[k - 1]!)), `${logPath}:\n${text}`).toBe(true);
      expect([at('SIGTERM to its process group'), at('after SIGTERM: SIGKILL')].every((n, k, all) => n >= 0 && (k === 0 || n > all[k - 1]!)), `${logPath}:\n${text}`).toBe(true);
    }
  });

  it.skipIf(process.platform === 'win32')('does not wait past the kill grace for a log write that never completes', { timeout: 15_000 }, async () => {
    const { host, report } = await kit.start({ explicit: copies('fifo', 1), env: { ...process.env, LAST_WORDS_STUBBORN: '1' }, timeouts: { shutdown: 100 } });
    expect(report.failed).toEqual([]);
    // The log becomes a FIFO nobody reads: opening it to append blocks until a reader comes.
    const logPath = host.extensions()[0]!.logPath;
    rmSync(logPath);
    execFileSync('mkfifo', [logPath]);
    try {
      const started = performance.now();
      await host.stop();
      // shutdown grace + kill grace, + the kill grace for the log, + scheduling slack.
      expect(performance.now() - started).toBeLessThan(100 + 1000 + 1000 + 1500);
    } finally {
      // A reader lets the stuck write through (O_NONBLOCK: no wait for a writer).
      const reader = openSync(logPath, constants.O_RDONLY | constants.O_NONBLOCK);
      closeSync(reader);
    }
  });
});
