// Faults before an extension is ready: each fails that extension with a typed error in the report
// and a warning naming it and its log, within its deadline; the witness loads and answers; nothing
// of the faulty one is left after stop().
import { describe, expect, it } from 'vitest';
import { expectGoneAfterStop, expectWarningNaming, expectWitnessAnswers, faultKit, settlesBy } from '../helpers/faults.js';

const faults = faultKit();

describe.each([
  ['crash-before-hello', 'EXITED_BEFORE_HELLO', /exited with code 3 before sending hello\.\nLast stderr:\n  boom: missing config\n/],
  ['not-hello', 'BAD_HELLO', /first frame must be hello, got "notify"/],
  ['silent', 'HELLO_TIMEOUT', /did not send hello within 1500 ms/],
  ['exec-missing', 'SPAWN_FAILED', /no-such-program/],
  ['exec-not-executable', 'SPAWN_FAILED', /not executable/],
  ['exec-directory', 'SPAWN_FAILED', /directory/],
])('%s', (fault, code, message) => {
  it(`fails with ${code} by the hello deadline; the host and the witness go on; nothing remains`, async () => {
    // The hello deadline applies to the witness too: short, but not so short that a loaded machine trips it.
    // helloJoin = hello: no late join, the silent extension fails inside start().
    const run = await settlesBy(faults.start(fault, { timeouts: { hello: 1500, helloJoin: 1500 } }), 1500);
    const failed = run.info();
    expect(failed.state).toBe('failed');
    expect(failed.error?.code).toBe(code);
    expect(failed.error?.message).toMatch(message);
    expect(failed.error?.logPath).toBe(failed.logPath);
    await expectWarningNaming(run, code);
    await expectWitnessAnswers(run.host);
    await expectGoneAfterStop(run.host, [run.pid]);
  });
});
