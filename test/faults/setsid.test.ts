// Grandchildren that call setsid() leave the extension's process group; stop() still ends them
// (found among the extension's descendants before it is stopped).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/host/host.js';
import { ExtensionProcess } from '../../src/process/extension-process.js';
import { fixture, tempDir } from '../helpers/fixtures.js';
import { waitUntil } from '../helpers/wait.js';
import { MARKER_VAR, findMarkedProcesses, isAlive } from '../helpers/processes.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const dir = fixture('faults/setsid-grandchild');
const sessionOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[3]);

it('stop() ends grandchildren in sessions of their own, and their children', { timeout: 15_000 }, async () => {
  const p = new ExtensionProcess({ name: 'setsid-grandchild', dir, launch: { kind: 'spawn', exec: './run.sh' }, logDir: tmp.dir, host: { hostVersion: '1.0.0', provider: '', model: '', cwd: dir } });
  try {
    const hello = await p.start();
    const pids = hello.grandchild_pids as number[];
    expect(pids).toHaveLength(2);
    // setsid(1) calls setsid() a moment after the shell reported its pid.
    for (const pid of pids) await waitUntil(`${pid} leads a session`, () => sessionOf(pid) === pid);
    await p.stop();
    for (const pid of pids) expect(await isAlive(pid)).toBe(false);
  } finally {
    await p.stop();
  }
});

it('in a host: the others keep answering, and after stop() nothing of it remains', { timeout: 15_000 }, async () => {
  const host = new ExtensionHost({ discover: false, explicit: [dir, fixture('extensions/hello-sh')], logDir: path.join(tmp.dir, 'logs'), timeouts: { shutdown: 500 } });
  try {
    expect((await host.start()).failed).toEqual([]);
    expect(await host.runCommand({ name: 'setsid-grandchild' })).toMatchObject({ handled: true, text: 'ok' });
    expect(await host.runCommand({ name: 'hello-sh' })).toMatchObject({ handled: true, text: 'hello from sh' });
    const marker = process.env[MARKER_VAR]!;
    // The extension, its two setsid grandchildren and one great-grandchild, and hello-sh.
    expect((await findMarkedProcesses(marker)).length).toBeGreaterThanOrEqual(5);
    await host.stop();
    expect(await findMarkedProcesses(marker)).toEqual([]);
  } finally {
    await host.stop();
  }
});
