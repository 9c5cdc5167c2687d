// The host side of the protocol extensions "cancel" and "progress" (docs/protocol.md), over the
// long-tool fixture (raw NDJSON, declares both) and long-tool-plain (the same, declaring neither).
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExtensionHost } from '../../src/host/host.js';
import type { CallProgress, HostDiagnostic, ToolProgress } from '../../src/host/types.js';
import { fixture } from '../helpers/fixtures.js';
import { hostKit, type Recorder } from '../helpers/host.js';
import { nextEvent, pollUntil, WAIT_MS } from '../helpers/wait.js';

const TEST_MS = 20_000;
const kit = hostKit();
let host: ExtensionHost;
let rec: Recorder;
let plain: ExtensionHost;
let plainRec: Recorder;
const diagnostics: HostDiagnostic[] = [];

/** The fixture's `started <id>` note for the next call, and its `cancel <id> <reason>` note. */
async function startedId(r: Recorder, extension: string, mark: number): Promise<string> {
  const note = await r.waitFor('notify', (n) => n.extension === extension && n.message.startsWith('started ') && r.since(mark, 'notify').includes(n));
  return note.message.slice('started '.length);
}
const cancelNote = (id: string, reason: string) => rec.waitFor('notify', (n) => n.extension === 'long-tool' && n.message === `cancel ${id} ${reason}`);
const logOf = (h: ExtensionHost, name: string) => h.extensions().find((e) => e.name === name)!.logPath!;

beforeAll(async () => {
  // Small configured deadlines: the tool timeout is 300 ms, the fixture reports every 100 ms.
  const timeouts = { tool: 300, command: 300 };
  ({ host, rec } = await kit.start({ explicit: [fixture('faults/long-tool'), fixture('extensions/kitchen')], timeouts }));
  host.on('diagnostic', (d) => diagnostics.push(d));
  ({ host: plain, rec: plainRec } = await kit.start({ explicit: [fixture('faults/long-tool-plain')], timeouts }));
}, TEST_MS);

describe('negotiation', () => {
  it('grants cancel and progress in hello_ack to an extension that declared them', { timeout: TEST_MS }, async () => {
    const outcome = await host.runCommand('/long-ack');
    expect(outcome.handled && JSON.parse(outcome.text!)).toMatchObject({ type: 'hello_ack', capabilities: ['cancel', 'progress'] });
  });

  it("sends a plain zot extension zot's hello_ack, field for field (the kitchen's /ack)", { timeout: TEST_MS }, async () => {
    const outcome = await host.runCommand('/ack');
    const ack = JSON.parse(outcome.handled ? outcome.text! : '') as Record<string, unknown>;
    expect(Object.keys(ack)).toEqual(['type', 'protocol_version', 'zot_version', 'provider', 'model', 'cwd', 'extension_dir', 'data_dir']);
  });
});

describe('cancel', () => {
  it('reaches the extension when the caller aborts; the result settles at once', { timeout: TEST_MS }, async () => {
    const controller = new AbortController();
    const mark = rec.mark();
    const call = host.callTool('long', { steps: 50, ms: 100 }, { signal: controller.signal, timeoutMs: WAIT_MS });
    const id = await startedId(rec, 'long-tool', mark);
    controller.abort();
    expect((await call).failure?.code).toBe('ABORTED');
    await cancelNote(id, 'aborted');
  });

  it('reaches the extension when the call reaches timeouts.tool', { timeout: TEST_MS }, async () => {
    const mark = rec.mark();
    const call = host.callTool('long', { steps: 50, ms: 1000 });
    const id = await startedId(rec, 'long-tool', mark);
    expect((await call).failure?.code).toBe('TIMEOUT');
    await cancelNote(id, 'timeout');
  });

  it('reaches the extension for a command that times out', { timeout: TEST_MS }, async () => {
    const mark = rec.mark();
    const outcome = host.runCommand('/long 50 1000', { timeoutMs: 200 });
    const id = await startedId(rec, 'long-tool', mark);
    const done = await outcome;
    expect(done.handled && done.failure?.code).toBe('TIMEOUT');
    await cancelNote(id, 'timeout');
  });

  it('logs a late answer after a cancel once, as late, not as UNKNOWN_ID', { timeout: TEST_MS }, async () => {
    const before = diagnostics.length;
    const controller = new AbortController();
    const mark = rec.mark();
    const call = host.callTool('long', { steps: 3, ms: 100, ignoreCancel: true }, { signal: controller.signal, timeoutMs: WAIT_MS });
    const id = await startedId(rec, 'long-tool', mark);
    controller.abort();
    await call;
    await cancelNote(id, 'aborted');
    const late = `late tool_result for cancelled request ${JSON.stringify(id)} dropped`;
    expect(await pollUntil(() => readFileSync(logOf(host, 'long-tool'), 'utf8').includes(late), WAIT_MS)).toBe(true);
    expect(readFileSync(logOf(host, 'long-tool'), 'utf8').split(late).length - 1).toBe(1);
    expect(diagnostics.slice(before).filter((d) => d.code === 'UNKNOWN_ID' || d.code === 'PROGRESS_REFUSED')).toEqual([]);
  });

  it('sends no cancel to an extension that did not negotiate it; its late answer is UNKNOWN_ID as before', { timeout: TEST_MS }, async () => {
    const controller = new AbortController();
    const mark = plainRec.mark();
    const call = plain.callTool('long', { steps: 2, ms: 100 }, { signal: controller.signal, timeoutMs: WAIT_MS });
    await startedId(plainRec, 'long-tool-plain', mark);
    const unknown = nextEvent(plain, 'diagnostic', (d) => d.extension === 'long-tool-plain' && d.code === 'UNKNOWN_ID');
    controller.abort();
    expect((await call).failure?.code).toBe('ABORTED');
    // The late answer comes after anything the host sent at the abort: a cancel would be noted by now.
    await unknown;
    expect(plainRec.since(mark, 'notify').filter((n) => n.message.startsWith('cancel '))).toEqual([]);
  });
});

describe('progress', () => {
  it('reaches onProgress and the tool:progress event', { timeout: TEST_MS }, async () => {
    const got: CallProgress[] = [];
    const events: ToolProgress[] = [];
    const listener = (p: ToolProgress) => events.push(p);
    host.on('tool:progress', listener);
    const result = await host.callTool('long', { steps: 2, ms: 20 }, { onProgress: (p) => got.push(p), timeoutMs: WAIT_MS });
    host.off('tool:progress', listener);
    expect(result.content).toEqual([{ type: 'text', text: 'done 2' }]);
    const requestId = got[0]!.requestId;
    expect(got).toEqual([1, 2].map((n) => ({ extension: 'long-tool', requestId, tool: 'long', message: `step ${n}`, progress: n, total: 2 })));
    expect(events).toEqual(got);
  });

  it('reaches runCommand onProgress', { timeout: TEST_MS }, async () => {
    const got: CallProgress[] = [];
    const outcome = await host.runCommand('/long 2 20', { onProgress: (p) => got.push(p), timeoutMs: WAIT_MS });
    expect(outcome).toMatchObject({ handled: true, text: 'done 2' });
    expect(got.map((p) => [p.extension, p.message, p.progress, p.total])).toEqual([
      ['long-tool', 'step 1', 1, 2],
      ['long-tool', 'step 2', 2, 2],
    ]);
  });

  it('with resetTimeoutOnProgress keeps a call alive past timeouts.tool while it reports', { timeout: TEST_MS }, async () => {
    // 6 reports 100 ms apart: 600 ms, twice the 300 ms deadline that each report restarts.
    const result = await host.callTool('long', { steps: 6, ms: 100 }, { resetTimeoutOnProgress: true });
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'done 6' }] });
  });

  it('never past maxTotalTimeoutMs', { timeout: TEST_MS }, async () => {
    const mark = rec.mark();
    const result = await host.callTool('long', { steps: 50, ms: 100 }, { resetTimeoutOnProgress: true, maxTotalTimeoutMs: 500 });
    expect(result.failure?.code).toBe('TIMEOUT');
    expect(result.failure?.message).toContain('total limit of 500 ms');
    await cancelNote(await startedId(rec, 'long-tool', mark), 'timeout');
  });

  it('an onProgress that throws is CALLBACK_THREW; the answer in the same chunk is still delivered', { timeout: TEST_MS }, async () => {
    // The fixture writes the progress frame and the answer in one write: both are read from one chunk.
    const threw = nextEvent(host, 'diagnostic', (d) => d.code === 'CALLBACK_THREW' && d.extension === 'long-tool');
    const result = await host.callTool('burst', {}, {
      onProgress: () => {
        throw new Error('embedder bug');
      },
      timeoutMs: WAIT_MS,
    });
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'burst done' }] });
    expect((await threw).message).toContain('embedder bug');
  });

  it('for an unknown id is a PROGRESS_REFUSED diagnostic', { timeout: TEST_MS }, async () => {
    const refused = nextEvent(host, 'diagnostic', (d) => d.code === 'PROGRESS_REFUSED');
    expect(await host.callTool('stray', {})).toMatchObject({ isError: false });
    expect((await refused).message).toContain('"no-such-id"');
  });

  it('from an extension that did not negotiate it is a diagnostic (UNKNOWN_TYPE, as for zot)', { timeout: TEST_MS }, async () => {
    const refused = nextEvent(plain, 'diagnostic', (d) => d.extension === 'long-tool-plain' && d.code === 'UNKNOWN_TYPE');
    const got: CallProgress[] = [];
    const result = await plain.callTool('long', { steps: 1, ms: 10 }, { onProgress: (p) => got.push(p), timeoutMs: WAIT_MS });
    expect(result.content).toEqual([{ type: 'text', text: 'done 1' }]);
    expect((await refused).message).toContain('progress');
    expect(got).toEqual([]);
  });
});
