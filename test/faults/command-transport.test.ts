// Command transports (`ssh host cmd`, `docker exec -i`, `kubectl exec -i`): the host's signals
// reach the launcher at most, never the real extension behind it. stop() must end it through the
// in-band shutdown and the stdin EOF the launcher forwards, and fall back cleanly when a launcher
// never exits. Fixtures: fixtures/faults/launcher*.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/host/host.js';
import { fixture, tempDir } from '../helpers/fixtures.js';
import { isAlive } from '../helpers/processes.js';
import { waitUntil, withDeadline } from '../helpers/wait.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const hosts: ExtensionHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop()));
});

function statOf(pid: number): { ppid: number; pgid: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { ppid: Number(fields[1]), pgid: Number(fields[2]) };
}

async function started(name: string, shutdownMs: number): Promise<{ host: ExtensionHost; launcher: number; remote: number; logPath: string }> {
  const host = new ExtensionHost({ discover: false, explicit: [fixture(`faults/${name}`)], logDir: path.join(tmp.dir, 'logs'), timeouts: { shutdown: shutdownMs } });
  hosts.push(host);
  expect((await host.start()).failed).toEqual([]);
  const info = host.extensions()[0]!;
  const result = await host.callTool('pid', {});
  const remote = Number((result.content[0] as { text: string }).text);
  expect(Number.isInteger(remote) && remote > 0, `remote pid from ${JSON.stringify(result)}`).toBe(true);
  return { host, launcher: info.pid!, remote, logPath: info.logPath };
}

/** stop() must resolve by itself well before `ms` (the shutdown grace is longer: no signal was needed). */
function stopWithin(host: ExtensionHost, ms: number): Promise<void> {
  return withDeadline('host.stop()', ms, (resolve) => {
    void host.stop().then(resolve);
    return () => undefined;
  });
}

it('the remote process is out of reach of the host\'s signals: no descendant of the launcher, another process group', { timeout: 15_000 }, async () => {
  const { launcher, remote } = await started('launcher', 30_000);
  const stat = statOf(remote);
  expect(stat.ppid).not.toBe(launcher);
  expect(stat.pgid).not.toBe(launcher);
});

it('stop() ends it through the in-band shutdown, without waiting for the grace or any signal', { timeout: 15_000 }, async () => {
  const { host, launcher, remote, logPath } = await started('launcher', 30_000);
  await stopWithin(host, 5000);
  expect(await isAlive(launcher)).toBe(false);
  await waitUntil('the remote extension to end', async () => !(await isAlive(remote)));
  expect(readFileSync(logPath, 'utf8')).not.toMatch(/SIGTERM|SIGKILL/);
});

it('stop() ends a remote extension that ignores shutdown through the forwarded stdin EOF', { timeout: 15_000 }, async () => {
  const { host, launcher, remote, logPath } = await started('launcher-eof', 30_000);
  await stopWithin(host, 5000);
  expect(await isAlive(launcher)).toBe(false);
  await waitUntil('the remote extension to end', async () => !(await isAlive(remote)));
  expect(readFileSync(logPath, 'utf8')).not.toMatch(/SIGTERM|SIGKILL/);
});

it('a launcher that never exits: after the grace SIGTERM (ignored), then SIGKILL, each logged; stop() stays bounded', { timeout: 15_000 }, async () => {
  const { host, launcher, remote, logPath } = await started('launcher-hung', 200);
  await stopWithin(host, 5000);
  expect(await isAlive(launcher)).toBe(false);
  // The remote extension acknowledged the shutdown and exited; only the launcher hung.
  await waitUntil('the remote extension to end', async () => !(await isAlive(remote)));
  await waitUntil('the log to name the escalation', () => /SIGKILL/.test(readFileSync(logPath, 'utf8')));
  const log = readFileSync(logPath, 'utf8');
  expect(log).toContain('still running 200 ms after shutdown and stdin EOF: SIGTERM to its process group');
  expect(log).toContain('still running 1000 ms after SIGTERM: SIGKILL');
});
