// A flood of submit and notify frames from one extension reaches the callbacks only up to its
// rateLimits; the excess is dropped and counted in one RATE_LIMITED diagnostic per window, naming it
// and its log; another extension's frames arrive all the same.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/host/host.js';
import type { HostDiagnostic } from '../../src/host/types.js';
import { fixture, tempDir } from '../helpers/fixtures.js';
import { heapAfterGc } from '../helpers/heap.js';
import { Recorder, textOf } from '../helpers/host.js';
import { nextEvent } from '../helpers/wait.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const FRAMES = 100_000;
const MB = 1024 * 1024;

describe('a flood of submit and notify frames', () => {
  it('forwards the first of each window, drops and counts the rest, and the other extension is not limited', { timeout: 60_000 }, async () => {
    const rec = new Recorder();
    const logDir = path.join(tmp.dir, 'logs');
    // One window for the whole test: the counts are exact however long the flood takes.
    const host = new ExtensionHost({ discover: false, explicit: [fixture('faults/note-flood'), fixture('extensions/kitchen')], logDir, callbacks: rec.callbacks, rateLimits: { windowMs: 600_000 } });
    const diagnostics: HostDiagnostic[] = [];
    host.on('diagnostic', (d) => diagnostics.push(d));
    const before = heapAfterGc();
    try {
      expect((await host.start()).failed).toEqual([]);
      const flooding = host.callTool('flood', { count: FRAMES }, { timeoutMs: 50_000 });
      for (const i of [0, 1, 2]) expect((await host.runCommand(`/bg during ${i}`)).handled).toBe(true);
      expect(textOf(await flooding)).toBe(`flooded ${FRAMES}`);
      // The answer came after the flood: every flood frame has been routed.
      const submits = (extension: string) => rec.of('submit').filter((c) => c.extension === extension).map((c) => c.text);
      const notes = (extension: string) => rec.of('notify').filter((c) => c.extension === extension).map((c) => c.message);
      expect(submits('note-flood')).toEqual(Array.from({ length: 10 }, (_, i) => `flood ${i}`));
      expect(notes('note-flood')).toEqual(Array.from({ length: 100 }, (_, i) => `flood ${i}`));
      expect(submits('kitchen')).toEqual(['during 0', 'during 1', 'during 2']);
      expect(notes('kitchen')).toEqual(['working: during 0', 'working: during 1', 'working: during 2']);
      expect(diagnostics.filter((d) => d.code === 'RATE_LIMITED')).toEqual([]); // the window has not ended
      const growth = heapAfterGc() - before;
      expect(growth, `heap grew by ${(growth / MB).toFixed(1)} MB`).toBeLessThan(64 * MB);

      await host.stop(); // ends the window: its count is reported
      const logPath = path.join(logDir, 'ext-note-flood.log');
      const limited = diagnostics.filter((d) => d.code === 'RATE_LIMITED');
      expect(limited).toEqual([
        { code: 'RATE_LIMITED', severity: 'warning', extension: 'note-flood', logPath, message: `note-flood: 99,990 submit frames dropped: more than 10 within 600000 ms (rateLimits.submit); see ${logPath}` },
        { code: 'RATE_LIMITED', severity: 'warning', extension: 'note-flood', logPath, message: `note-flood: 99,900 notify frames dropped: more than 100 within 600000 ms (rateLimits.notify); see ${logPath}` },
      ]);
    } finally {
      await host.stop();
    }
  });

  it('reports each window that dropped frames when it ends, while the extension runs', { timeout: 60_000 }, async () => {
    const rec = new Recorder();
    const host = new ExtensionHost({ discover: false, explicit: [fixture('faults/note-flood')], logDir: path.join(tmp.dir, 'logs-window'), callbacks: rec.callbacks, rateLimits: { submit: 0, notify: Infinity, windowMs: 50 } });
    try {
      expect((await host.start()).failed).toEqual([]);
      const reported = nextEvent(host, 'diagnostic', (d) => d.code === 'RATE_LIMITED');
      await host.callTool('flood', { count: 3 });
      // Without a stop: the window's timer reports it.
      expect((await reported).message).toMatch(/^note-flood: 3 submit frames dropped: more than 0 within 50 ms/);
      expect(rec.of('submit')).toEqual([]);
      expect(rec.of('notify')).toHaveLength(3);
    } finally {
      await host.stop();
    }
  });
});

describe('a flood of panel_render and clear_notes frames', () => {
  const RENDERS = 20_000;

  it('passes the first renders and clears of a window; renders beyond are coalesced to the latest, delivered at the window end', { timeout: 60_000 }, async () => {
    const rec = new Recorder();
    const logDir = path.join(tmp.dir, 'logs-render');
    const windowMs = 300;
    const host = new ExtensionHost({ discover: false, explicit: [fixture('faults/note-flood')], logDir, callbacks: rec.callbacks, rateLimits: { windowMs } });
    const diagnostics: HostDiagnostic[] = [];
    host.on('diagnostic', (d) => diagnostics.push(d));
    try {
      expect((await host.start()).failed).toEqual([]);
      expect((await host.runCommand('/flood-panel')).handled).toBe(true);
      expect(textOf(await host.callTool('renders', { count: RENDERS }, { timeoutMs: 50_000 }))).toBe(`rendered ${RENDERS}`);
      // The last render reaches the panel when its window ends: the UI ends up right.
      await rec.waitFor('renderPanel', (r) => r.lines[0] === `render ${RENDERS - 1}`, 5000);
      const renders = rec.of('renderPanel');
      const clears = rec.of('clearNotes');
      // Per window at most 60 renders pass as they come, plus the one held back; at most 100 clears.
      const windows = Math.ceil(renders.length / 61);
      expect(renders.length).toBeLessThan(RENDERS / 10);
      expect(clears.length).toBeLessThanOrEqual(windows * 100 + 100);
      expect(clears.length).toBeLessThan(RENDERS / 10);
      // In order: no render older than one already shown.
      const shown = renders.map((r) => Number(r.lines[0]!.split(' ')[1]));
      expect(shown).toEqual([...shown].sort((a, b) => a - b));
      await host.stop();
      const logPath = path.join(logDir, 'ext-note-flood.log');
      const limited = diagnostics.filter((d) => d.code === 'RATE_LIMITED');
      expect(limited.some((d) => /panel_render frames coalesced \(only the latest of each panel was shown\): more than 60 within 300 ms \(rateLimits\.panelRender\)/.test(d.message))).toBe(true);
      expect(limited.some((d) => /clear_notes frames dropped: more than 100 within 300 ms \(rateLimits\.clearNotes\)/.test(d.message))).toBe(true);
      expect(limited.every((d) => d.extension === 'note-flood' && d.logPath === logPath)).toBe(true);
    } finally {
      await host.stop();
    }
  });
});
