// `progress` lines in the plain valid shape go to their request without the frame schemas: a tool
// that reports progress never makes the host load zod; a line off that shape waits for them, so
// its problem is worded by the schema, in order with the lines after it.
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Connection } from '../../src/connection/connection.js';
import { CodecGate } from '../../src/process/codec-gate.js';
import { ExtensionProcess } from '../../src/process/extension-process.js';
import { progressLine as progressLineOf } from '../../src/process/negotiation.js';
import type { ProgressFrame } from '../../src/protocol/frames.js';
import { tempDir } from '../helpers/fixtures.js';
import { memoryExtension } from '../helpers/memory-extension.js';
import { WAIT_MS, waitUntil, withDeadline } from '../helpers/wait.js';

const logs = tempDir();
afterAll(() => logs.cleanup());

type Sink = Parameters<typeof progressLineOf>[3];
/** As the process calls it: the gate's codec, and the gate to hold a line in. */
const progressLine = (line: string, gate: CodecGate, connection: Connection, sink: Omit<Sink, 'holdForCodec'>): void =>
  progressLineOf(line, gate.codec, connection, { ...sink, stats: sink.stats, holdForCodec: (held) => gate.holdIfUnloaded(held) } as Sink);

function setup() {
  const emitted: unknown[] = [];
  const diagnostics: string[] = [];
  const stats = { badLines: 0, framesIn: 0 };
  const request = { type: 'tool_call', name: 't', args: {} };
  const connection = { progress: () => ({ frame: request }) } as unknown as Connection;
  const sink = {
    stats,
    diagnose: (code: string, message: string) => void diagnostics.push(`${code}: ${message}`),
    progressed: (frame: unknown) => void emitted.push(frame),
  };
  const gate: CodecGate = new CodecGate(
    { line: (line) => progressLine(line, gate, connection, sink), diagnose: () => undefined, log: () => undefined, stats },
    1024,
  );
  return { gate, connection, sink, emitted, diagnostics, stats };
}

describe('progress lines', () => {
  it('reach their request at once without the schemas, with only the frame’s own keys', () => {
    const { gate, connection, sink, emitted, stats } = setup();
    for (const line of [
      '{"type":"progress","id":"1","progress":1,"total":4,"message":"one of four"}',
      '{"type":"progress","id":"1"}',
      `{"type":"progress","id":"1","message":"${'m'.repeat(1000)}"}`,
    ]) {
      progressLine(line, gate, connection, sink);
    }
    expect(gate.codec).toBeUndefined();
    expect(emitted).toEqual([
      { type: 'progress', id: '1', progress: 1, total: 4, message: 'one of four' },
      { type: 'progress', id: '1' },
      { type: 'progress', id: '1', message: 'm'.repeat(1000) },
    ]);
    expect(stats).toEqual({ badLines: 0, framesIn: 3 });
  });

  it('hold a line off the plain shape until the schemas word its problem, and the lines after it', async () => {
    const { gate, connection, sink, emitted, diagnostics, stats } = setup();
    progressLine('{"type":"progress","id":"1","progress":"half"}', gate, connection, sink);
    // Held behind it: decoded only after it, in order.
    expect(gate.decode('{"type":"progress","id":"1","progress":2}')).toBeUndefined();
    expect(diagnostics).toEqual([]);
    await withDeadline<void>('the held lines', WAIT_MS, (resolve) => {
      gate.after(resolve);
      return () => undefined;
    });
    expect(gate.codec).toBeDefined();
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatch(/^INVALID_FRAME: invalid progress frame \(progress: /);
    expect(stats.badLines).toBe(1);
    // The held second line went through the gate's sink (decodeLine calls it an unknown type).
    expect(emitted).toEqual([{ type: 'progress', id: '1', progress: 2 }]);
  });

  it('leave anything the schema would reject, or reshape, to the schema', () => {
    for (const line of [
      '{"type":"progress","id":1}',
      '{"type":"progress","id":"1","progress":null}',
      '{"type":"progress","id":"1","extra":true}',
      `{"type":"progress","id":"1","message":"${'m'.repeat(1001)}"}`,
      '{"type":"progress","id":"1","total":1e999}',
    ]) {
      const fresh = setup();
      progressLine(line, fresh.gate, fresh.connection, fresh.sink);
      expect(fresh.emitted).toEqual([]);
      expect(fresh.stats.framesIn).toBe(0);
    }
  });
});

describe('a progress line at the process', () => {
  it('is parsed once: the frame decoder keeps the parsed object for the progress path', { timeout: 10_000 }, async () => {
    const ext = memoryExtension();
    const proc = new ExtensionProcess({
      name: 'mem',
      dir: logs.dir,
      launch: { kind: 'connect', connect: () => ext.child },
      logDir: logs.dir,
      host: { hostVersion: '1.0.0', provider: '', model: '', cwd: logs.dir },
      timeouts: { shutdown: 100, kill: 100 },
    });
    try {
      const started = proc.start();
      ext.send({ type: 'hello', name: 'mem', capabilities: ['progress'] });
      await started;
      const seen: ProgressFrame[] = [];
      const call = proc.request({ type: 'tool_call', name: 't', args: {} }, { onProgress: (frame) => seen.push(frame) });
      await waitUntil('the tool call at the extension', () => ext.requests('tool_call').length === 1);
      const id = ext.requests('tool_call')[0]!.id as string;
      const parse = vi.spyOn(JSON, 'parse');
      try {
        proc.lineIn(`{"type":"progress","id":${JSON.stringify(id)},"progress":1,"total":2}`);
        expect(parse).toHaveBeenCalledTimes(1);
      } finally {
        parse.mockRestore();
      }
      expect(seen).toEqual([{ type: 'progress', id, progress: 1, total: 2 }]);
      ext.send({ type: 'tool_result', id, content: [] });
      await call;
    } finally {
      await proc.stop();
    }
  });
});
