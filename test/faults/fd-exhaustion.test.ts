// Out of file descriptors (`ulimit -n 200`, 150 extensions): spawns fail with a typed SPAWN_FAILED
// naming EMFILE, the ones that started answer, stop() resolves, and nothing goes unhandled.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT, fixture } from '../helpers/fixtures.js';

interface Report {
  loaded: number;
  answered: string | undefined;
  failures: { code: string; message: string }[];
  stopError: string | undefined;
  escaped: string[];
}

function runLimited(count: number): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const script = path.join(ROOT, 'test/faults/scripts/many-extensions.ts');
  const tsx = path.join(ROOT, 'node_modules/.bin/tsx');
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', 'ulimit -n 200 && exec "$0" "$@"', tsx, script, fixture('extensions/hello-sh'), String(count)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

it('a host out of file descriptors reports typed EMFILE failures and exits normally', { timeout: 45_000 }, async () => {
  const { status, stdout, stderr } = await runLimited(150);
  expect(stderr).toBe('');
  expect(status).toBe(0);
  const report = JSON.parse(stdout) as Report;
  expect(report.escaped).toEqual([]);
  expect(report.stopError).toBeUndefined();
  expect(report.loaded).toBeGreaterThan(0);
  expect(report.answered).toBe('hello from sh');
  expect(report.failures.length).toBeGreaterThan(0);
  expect(report.loaded + report.failures.length).toBe(150);
  for (const failure of report.failures) {
    expect(failure.code).toBe('SPAWN_FAILED');
    expect(failure.message).toMatch(/EMFILE|ENFILE/);
    expect(failure.message).toMatch(/^cannot start many-\d+: /);
  }
});
