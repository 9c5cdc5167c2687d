// A flood of bad lines from one extension (non-JSON, unknown response ids, valid frames the host
// cannot route) costs a few diagnostics and a summary per second, not memory per line.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/host/host.js';
import type { HostDiagnostic } from '../../src/host/types.js';
import { fixture, tempDir } from '../helpers/fixtures.js';
import { heapAfterGc } from '../helpers/heap.js';
import { isAlive } from '../helpers/processes.js';
import { Recorder } from '../helpers/host.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const LINES = 200_000;
const MB = 1024 * 1024;

const FLOODS = [
  { kind: 'not-json', code: 'NOT_JSON', summary: 'more non-JSON lines' },
  { kind: 'unknown-id', code: 'UNKNOWN_ID', summary: 'more responses with unknown or already settled ids' },
  { kind: 'unroutable', code: 'PANEL_REFUSED', summary: 'more refused panel frames' },
] as const;

describe.each(FLOODS)('a flood of $kind lines', ({ kind, code, summary }) => {
  it(`keeps the host's heap flat, logs a few lines and a summary, and the extensions keep answering`, { timeout: 30_000 }, async () => {
    const recorder = new Recorder();
    const logDir = path.join(tmp.dir, `logs-${kind}`);
    const host = new ExtensionHost({ discover: false, explicit: [fixture('faults/flood-stdout'), fixture('extensions/kitchen')], logDir, env: { ...process.env, FLOOD_KIND: kind, FLOOD_LINES: String(LINES) }, callbacks: recorder.callbacks });
    const diagnostics: HostDiagnostic[] = [];
    host.on('diagnostic', (d) => diagnostics.push(d));
    const before = heapAfterGc();
    try {
      const report = await host.start();
      expect(report.failed).toEqual([]);
      const pid = host.extensions().find((e) => e.name === 'flood-stdout')!.pid!;
      await recorder.waitFor('notify', (n) => n.message.startsWith('flood done'), 20_000);
      // The stream survived: both extensions still answer.
      expect((await host.callTool('ping', {})).content).toEqual([{ type: 'text', text: 'pong' }]);
      expect((await host.callTool('echo', { a: 1 })).content).toEqual([{ type: 'text', text: '{"a":1}' }]);
      const growth = heapAfterGc() - before;
      expect(growth, `heap grew by ${(growth / MB).toFixed(1)} MB`).toBeLessThan(64 * MB);

      await host.stop();
      expect(await isAlive(pid)).toBe(false);
      const mine = diagnostics.filter((d) => d.code === code);
      // 5 in full, then at most one summary per second (and one at stop) for LINES lines.
      expect(mine.length).toBeGreaterThan(5);
      expect(mine.length).toBeLessThan(5 + 30);
      const logPath = path.join(logDir, 'ext-flood-stdout.log');
      for (const d of mine) expect(d).toMatchObject({ extension: 'flood-stdout', logPath });
      const summaries = mine.slice(5);
      const counted = summaries.reduce((sum, d) => sum + Number(/^([\d,]+) more/.exec(d.message)![1]!.replaceAll(',', '')), 0);
      expect(counted).toBe(LINES - 5);
      expect(summaries[0]!.message).toContain(summary);
      expect(host.diagnostics().filter((d) => d.code === code)).toHaveLength(mine.length);
      const hostLines = (await readFile(logPath, 'utf8')).split('\n').filter((l) => l.startsWith('[host]'));
      expect(hostLines.length).toBeLessThan(60);
    } finally {
      await host.stop();
    }
  });
});
