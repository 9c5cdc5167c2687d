// The fault suite's harness: a host with the faulty fixture(s) plus a healthy witness (kitchen), and
// the checks every fault test makes: the witness still answers, the diagnostic names the extension
// and its log, a call settles with the right code by its deadline, nothing is left after stop().
import { readdir, readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import type { ExtensionHost } from '../../src/host/host.js';
import type { ExtensionHostOptions, ExtensionInfo, HostWarning } from '../../src/host/types.js';
import { type Recorder, hostKit, textOf } from './host.js';
import { fixture } from './fixtures.js';
import { isAlive } from './processes.js';

export interface FaultRun {
  host: ExtensionHost;
  rec: Recorder;
  /** The fault fixture's current info. */
  info: () => ExtensionInfo;
  /** The fault fixture's pid at start (undefined when it never started). */
  pid: number | undefined;
}

/** Creates the file's host kit; `start(fault)` starts `faults/<fault>` (or a path under fixtures/) first, then the witness. */
export function faultKit(): { start: (fault: string, options?: ExtensionHostOptions & { witness?: string | undefined }) => Promise<FaultRun> } {
  const kit = hostKit();
  return {
    async start(fault, { witness = 'extensions/kitchen', ...options } = {}) {
      const dir = fixture(fault.includes('/') ? fault : `faults/${fault}`);
      const { host, rec } = await kit.start({ explicit: [dir, fixture(witness)], ...options });
      const name = host.extensions()[0]!.name;
      const info = () => host.extensions().find((e) => e.name === name)!;
      expect(host.extensions()[1]?.state).toBe('ready');
      return { host, rec, info, pid: info().pid };
    },
  };
}

/** The host survived: the witness still answers a tool call. */
export async function expectWitnessAnswers(host: ExtensionHost): Promise<void> {
  expect(textOf(await host.callTool('echo', { alive: true }))).toBe('{"alive":true}');
}

/** A warning (code `code`) names the extension and its log path. */
export async function expectWarningNaming(run: FaultRun, code: string): Promise<HostWarning> {
  const { name, logPath } = run.info();
  const warning = await run.rec.waitFor('warning', (w) => w.extension === name && w.code === code);
  expect(warning.logPath).toBe(logPath);
  expect(warning.error?.extension).toBe(name);
  return warning;
}

/** `promise` settles within `deadlineMs` (plus scheduling slack on a shared machine). */
export async function settlesBy<T>(promise: Promise<T>, deadlineMs: number): Promise<T> {
  const began = performance.now();
  const value = await promise;
  expect(performance.now() - began).toBeLessThan(deadlineMs + 2000);
  return value;
}

/** Live (non-zombie) members of process group `pgid`, from /proc. */
export async function processGroup(pgid: number): Promise<number[]> {
  const members: number[] = [];
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z' && fields[0] !== 'X' && Number(fields[2]) === pgid) members.push(pid);
    } catch {
      // gone while we looked
    }
  }
  return members;
}

/** After stop(), none of the given pids (nor anything in their process groups) is alive; test/setup.ts checks the whole file as well. */
export async function expectGoneAfterStop(host: ExtensionHost, pids: readonly (number | undefined)[]): Promise<void> {
  await host.stop();
  for (const pid of pids) {
    if (pid === undefined) continue;
    expect(await isAlive(pid)).toBe(false);
    expect(await processGroup(pid)).toEqual([]);
  }
  expect(host.extensions().every((e) => e.state === 'stopped' || e.state === 'failed' || e.state === 'exited')).toBe(true);
}
