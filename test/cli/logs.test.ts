import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CliProcess, runCli, useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-logs-');
let logFile: string;

beforeEach(() => {
  logFile = path.join(sandbox.home, 'logs', 'ext-weather.log');
  mkdirSync(path.dirname(logFile), { recursive: true });
});

describe('logs', { timeout: 30_000 }, () => {
  it("prints the extension's log, or only its last lines with -n", async () => {
    writeFileSync(logFile, '--- start ---\none\ntwo\nthree\n');
    const all = await runCli(['logs', 'weather', '--home', sandbox.home]);
    expect(all.code).toBe(0);
    expect(all.stdout).toBe('--- start ---\none\ntwo\nthree\n');
    const last = await runCli(['logs', 'weather', '-n', '2', '--home', sandbox.home]);
    expect(last.stdout).toBe('two\nthree\n');
  });

  it('prints the rotated part (.1) first; -n takes lines from both', async () => {
    writeFileSync(`${logFile}.1`, 'r1\nr2\nr3\n');
    writeFileSync(logFile, 'c1\nc2\n');
    expect((await runCli(['logs', 'weather', '--home', sandbox.home])).stdout).toBe('r1\nr2\nr3\nc1\nc2\n');
    expect((await runCli(['logs', 'weather', '-n', '3', '--home', sandbox.home])).stdout).toBe('r3\nc1\nc2\n');
    expect((await runCli(['logs', 'weather', '-n', '2', '--home', sandbox.home])).stdout).toBe('c1\nc2\n');
  });

  it('finds the log of a name with unsafe characters where the host writes it', async () => {
    const { logPathFor } = await import('../../src/transport/log.js');
    const file = logPathFor(path.join(sandbox.home, 'logs'), 'my ext');
    writeFileSync(file, 'spaced\n');
    writeFileSync(logPathFor(path.join(sandbox.home, 'logs'), 'my_ext'), 'underscored\n');
    expect((await runCli(['logs', 'my ext', '--home', sandbox.home])).stdout).toBe('spaced\n');
    expect((await runCli(['logs', 'my_ext', '--home', sandbox.home])).stdout).toBe('underscored\n');
  });

  it('fails with a hint when there is no log, and refuses unsafe names', async () => {
    const missing = await runCli(['logs', 'nothing', '--home', sandbox.home]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `zot-ext: error: no log for "nothing" at ${path.join(sandbox.home, 'logs', 'ext-nothing.log')}; it is written when the extension starts (try zot-ext doctor)\n`,
    );
    const unsafe = await runCli(['logs', '../etc/passwd', '--home', sandbox.home]);
    expect(unsafe.code).toBe(2);
    expect(unsafe.stderr).toContain('path separator');
  });

  it('-f follows appends, truncation and a file that appears later, until it is stopped', async () => {
    writeFileSync(logFile, 'old line\n');
    const follow = new CliProcess(['logs', 'weather', '-f', '--home', sandbox.home]);
    await follow.waitFor('old line\n');
    appendFileSync(logFile, 'new line\n');
    await follow.waitFor('old line\nnew line\n');
    writeFileSync(logFile, 'cut\n'); // shorter than before: a truncation
    await follow.waitFor('new line\ncut\n');
    follow.signal('SIGTERM');
    const result = await follow.exited;
    expect(result.code).toBe(0);

    const later = path.join(sandbox.home, 'logs', 'ext-later.log');
    const waiting = new CliProcess(['logs', 'later', '--follow', '--home', sandbox.home]);
    await waiting.waitFor(`waiting for ${later}`, 'stderr');
    writeFileSync(later, 'hello later\n');
    await waiting.waitFor('hello later\n');
    waiting.signal('SIGINT');
    expect((await waiting.exited).code).toBe(0);
  });
});
