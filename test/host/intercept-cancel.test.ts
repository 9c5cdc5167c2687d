// Cancelling an intercept step (capability "cancel"): an event_intercept aborted by the caller or past
// its deadline sends `cancel` to an extension that negotiated it; the SDK aborts the handler's signal
// (fixtures/sdk/cancellable notes `intercept aborted: <reason>`).
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExtensionHost } from '../../src/host/host.js';
import { fixture } from '../helpers/fixtures.js';
import { hostKit, type Recorder } from '../helpers/host.js';

const TEST_MS = 20_000;
const kit = hostKit();
let host: ExtensionHost;
let rec: Recorder;
let patient: ExtensionHost;
let patientRec: Recorder;

beforeAll(async () => {
  // A small configured deadline for the timeout; one far away for the abort.
  [{ host, rec }, { host: patient, rec: patientRec }] = await Promise.all([
    kit.start({ explicit: [fixture('sdk/cancellable')], timeouts: { intercept: 300, hello: 15_000 } }),
    kit.start({ explicit: [fixture('sdk/cancellable')], timeouts: { intercept: 60_000, hello: 15_000 } }),
  ]);
}, TEST_MS);

const note = (r: Recorder, mark: number, prefix: string) => r.waitFor('notify', (n) => n.extension === 'cancellable' && n.message.startsWith(prefix) && r.since(mark, 'notify').includes(n));

describe('intercept steps and cancel', () => {
  it('a step past its deadline is cancelled in the extension (reason timeout)', { timeout: TEST_MS }, async () => {
    const mark = rec.mark();
    const result = await host.intercepts.toolCall({ toolId: 't1', toolName: 'hang_me', args: {} });
    expect(result.trace[0]).toMatchObject({ interceptor: 'cancellable', failure: 'timeout' });
    expect((await note(rec, mark, 'intercept aborted: ')).message).toBe('intercept aborted: TimeoutError');
  });

  it("a step aborted by the chain caller's signal is cancelled in the extension (reason aborted)", { timeout: TEST_MS }, async () => {
    const controller = new AbortController();
    const mark = patientRec.mark();
    const call = patient.intercepts.toolCall({ toolId: 't2', toolName: 'hang_me', args: {} }, { signal: controller.signal });
    await note(patientRec, mark, 'intercept none');
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
    expect((await note(patientRec, mark, 'intercept aborted: ')).message).toBe('intercept aborted: AbortError');
  });
});
