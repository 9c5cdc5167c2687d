// Log files: one per manifest name, never outside the log dir, capped (rotated once), and a host-line
// queue that stays bounded under a flood.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ExtensionLog, MAX_QUEUED_HOST_LINES, logPathFor, safeLogName } from '../../src/transport/log.js';
import { fixture, tempDir } from '../helpers/fixtures.js';
import { hostKit, textOf } from '../helpers/host.js';
import { waitUntil } from '../helpers/wait.js';

const temp = tempDir('zot-log-test-');
afterAll(() => temp.cleanup());

describe('log file names', () => {
  it('keeps the file name of names that are already safe', () => {
    for (const name of ['kitchen', 'my-ext', 'a_b', 'v1.2', '_x', 'A9']) expect(path.basename(logPathFor('/logs', name))).toBe(`ext-${name}.log`);
  });

  it('gives names that differ only in unsafe characters different files', () => {
    const pairs = [['a b', 'a_b'], ['.x', '_x'], ['a b', 'a?b'], ['ü', 'ö'], ['x'.repeat(129), `${'x'.repeat(128)}y`]];
    for (const [a, b] of pairs) expect(logPathFor('/logs', a!)).not.toBe(logPathFor('/logs', b!));
    expect(path.basename(logPathFor('/logs', 'a b'))).toMatch(/^ext-a_b~[0-9a-f]{10}\.log$/);
  });

  it('keeps the exact file names of earlier versions (the first 10 hex digits of the name\'s SHA-256)', () => {
    expect(safeLogName('a b')).toBe('a_b~c8687a08aa');
    expect(safeLogName('.x')).toBe('_x~bb42e4c602');
    expect(safeLogName('ünïcødé 名前 😀')).toBe('_n_c_d_______~e9649f98cc');
  });

  it('never leaves the log dir, never starts with a dot, and is a function of the exact name', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), (a, b) => {
        const file = logPathFor('/var/logs', a);
        expect(path.dirname(file)).toBe('/var/logs');
        expect(safeLogName(a).startsWith('.')).toBe(false);
        expect(logPathFor('/var/logs', a)).toBe(file);
        if (a !== b) expect(logPathFor('/var/logs', b)).not.toBe(file);
      }),
      { seed: 12, numRuns: 2000 },
    );
  });
});

describe('ExtensionLog', () => {
  it('keeps its host-line queue bounded under a flood and says how many lines it dropped', async () => {
    const log = new ExtensionLog(path.join(temp.dir, 'flood.log'));
    for (let i = 0; i < 100_000; i++) void log.write(`line ${i}`);
    await log.flushed();
    const lines = readFileSync(log.path, 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(MAX_QUEUED_HOST_LINES + 2);
    const dropped = lines.find((line) => line.includes('host lines dropped'));
    expect(dropped).toBeDefined();
    const written = lines.filter((line) => /\bline \d+$/.test(line)).length;
    expect(written + Number(/ (\d+) host lines dropped/.exec(dropped!)![1])).toBe(100_000);
  });

  it('rotates a full log to <file>.1 at the next start', async () => {
    const file = path.join(temp.dir, 'full.log');
    writeFileSync(file, 'old\n'.repeat(300));
    const log = new ExtensionLog(file, { maxBytes: 1000 });
    const handle = await log.openForChild('start full');
    await handle.close();
    log.childEnded();
    // Only the last maxBytes are kept: a flood far past the cap costs no more to rotate.
    expect(readFileSync(`${file}.1`, 'utf8')).toBe('old\n'.repeat(250));
    const current = readFileSync(file, 'utf8');
    expect(current).toContain('log rotated at 1200 bytes (cap 1000; 200 bytes before its last 1000 were dropped)');
    expect(current).toContain('start full');
  });
});

describe('the log cap with a real extension flooding stderr', () => {
  const kit = hostKit();

  it('caps the live log (copy to .1, truncate) while the extension keeps answering; zot-ext logs finds both', async () => {
    const cap = 256 * 1024;
    const { host } = await kit.start({ explicit: [fixture('faults/flood-stderr'), fixture('extensions/kitchen')], logMaxBytes: cap });
    const logPath = host.extensions()[0]!.logPath;
    // 4 MiB of stderr, in four rounds: each round is checked within a second.
    for (let round = 0; round < 4; round++) {
      expect(textOf(await host.callTool('flood', { kib: 1024 }))).toBe('flooded 1024 KiB');
      await waitUntil('the log is back under its cap', () => statSync(logPath).size < cap, 3000);
    }
    expect(existsSync(`${logPath}.1`)).toBe(true);
    // Bounded: the current file and .1 each hold at most one round beyond the cap.
    expect(statSync(`${logPath}.1`).size).toBeLessThanOrEqual(cap + 1024 * 1024 + 4096);
    expect(readFileSync(logPath, 'utf8')).toContain('log rotated at');
    expect(textOf(await host.callTool('echo', { still: 'here' }))).toBe('{"still":"here"}');
  }, 30_000);
});
