// The TS SDK against the real host (not the test kit's shim): an SDK extension as a real stdio
// process gets cancel through ctx.signal, and its progress reaches the call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestHost, type TestHost } from '../../src/testing/index.js';
import { fixture } from '../helpers/fixtures.js';

const TEST_MS = 20_000;
let t: TestHost;

beforeAll(async () => {
  t = await createTestHost({ extensions: [fixture('sdk/cancellable')], timeoutMs: 15_000 });
}, TEST_MS);
afterAll(() => t?.close(), TEST_MS);

describe('SDK extension over the real host', () => {
  it('negotiates cancel and progress; an aborted call aborts ctx.signal in the extension', { timeout: TEST_MS }, async () => {
    const controller = new AbortController();
    const note = t.nextNote((n) => n.extension === 'cancellable' && n.message.startsWith('aborted: '));
    const progress: (string | undefined)[] = [];
    const call = t.callTool('wait', {}, { signal: controller.signal, timeoutMs: 10_000, onProgress: (p) => {
      progress.push(p.message);
      controller.abort();
    } });
    expect((await call).failure?.code).toBe('ABORTED');
    expect(progress).toEqual(['waiting']);
    expect((await note).message).toBe('aborted: AbortError');
  });

  it('a call that times out aborts ctx.signal with a TimeoutError', { timeout: TEST_MS }, async () => {
    const note = t.nextNote((n) => n.extension === 'cancellable' && n.message.startsWith('aborted: '));
    expect((await t.callTool('wait', {}, { timeoutMs: 200 })).failure?.code).toBe('TIMEOUT');
    expect((await note).message).toBe('aborted: TimeoutError');
  });
});
