// run and doctor tell the truth about an extension that never says hello (fixtures/faults/silent):
// it is shown as still starting with HELLO_TIMEOUT and its log, and counted as a failure. Each CLI
// run waits out the host's default hello timeout (5 s), so the two commands run side by side.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture } from '../helpers/fixtures.js';
import { runCli, useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-hello-');
const SILENT = fixture('faults/silent');
const HELLO = fixture('extensions/hello-sh');

describe('an extension that never says hello', { timeout: 40_000 }, () => {
  it('run says so (HELLO_TIMEOUT, its log) and exits 1; doctor reports and counts it', async () => {
    const common = ['--home', sandbox.home, '--cwd', sandbox.project];
    const [run, doctor, json] = await Promise.all([
      runCli(['run', SILENT, HELLO, ...common], { input: '/hello-sh\n', timeoutMs: 25_000 }),
      runCli(['doctor', '--no-discover', SILENT, HELLO, ...common], { timeoutMs: 25_000 }),
      runCli(['doctor', '--json', '--no-discover', SILENT, ...common], { timeoutMs: 25_000 }),
    ]);
    const log = path.join(sandbox.home, 'logs', 'ext-silent.log');

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^starting silent \\(explicit\\): no hello after \\d+ ms \\(HELLO_TIMEOUT\\); it may still join; log: ${log}$`, 'm'));
    expect(run.stderr).toContain('loaded hello-sh 1.0.0 (explicit)');
    expect(run.stdout).toContain('[hello-sh] display: hello from sh\n');

    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(new RegExp(`^✗ silent \\(explicit\\) failed: no hello after \\d+ ms \\(HELLO_TIMEOUT\\); it was still starting when doctor stopped it; see ${log}$`, 'm'));
    expect(doctor.stdout).not.toContain('failed: starting');
    expect(doctor.stdout).toMatch(/^1 ready, 1 failed \(\d+ ms\)$/m);

    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { ok: boolean; extensions: { name: string; state: string; error: { code: string; message: string } | null }[] };
    expect(report.ok).toBe(false);
    expect(report.extensions).toMatchObject([{ name: 'silent', state: 'starting', error: { code: 'HELLO_TIMEOUT', message: expect.stringContaining('no hello after') as unknown } }]);
  });
});
