// Descendants of an extension that left its process group (setsid(), setpgid()): the group kill
// misses them, so they are found through /proc (Linux) while the extension still lives, and ended
// with it. Where /proc is missing this finds nothing.
//
// What stays impossible: a descendant whose parent exited before the snapshot is reparented (to
// init or a subreaper) and no longer traceable to the extension.
import { readdirSync, readFileSync } from 'node:fs';

/** One process, identified across pid reuse by its start time. */
export interface ProcessRef {
  pid: number;
  /** Clock ticks since boot at which it started (field 22 of /proc/<pid>/stat). */
  start: string;
}

interface Stat {
  ppid: number;
  pgid: number;
  state: string;
  start: string;
}

function readStat(pid: number | string): Stat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // After "pid (comm) ": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
    // utime stime cutime cstime priority nice num_threads itrealvalue starttime ...
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, ppid: Number(fields[1]), pgid: Number(fields[2]), start: fields[19]! };
  } catch {
    return undefined;
  }
}

/**
 * Every live descendant of `pid`, in its group or not yet out of it (one may call setsid() any
 * moment). One pass over /proc.
 */
export function descendantsOf(pid: number): ProcessRef[] {
  if (process.platform !== 'linux') return [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, { pid: number; stat: Stat }[]>();
  for (const entry of entries) {
    const c = entry.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const stat = readStat(entry);
    if (stat === undefined || stat.state === 'Z' || stat.state === 'X') continue;
    let list = children.get(stat.ppid);
    if (list === undefined) children.set(stat.ppid, (list = []));
    list.push({ pid: Number(entry), stat });
  }
  const found: ProcessRef[] = [];
  const queue = [pid];
  const seen = new Set(queue);
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      queue.push(child.pid);
      found.push({ pid: child.pid, start: child.stat.start });
    }
  }
  return found;
}

function current(ref: ProcessRef): Stat | undefined {
  const stat = readStat(ref.pid);
  return stat !== undefined && stat.start === ref.start && stat.state !== 'Z' && stat.state !== 'X' ? stat : undefined;
}

/** True while `ref` is still the process it was (not gone, not a zombie, its pid not reused). */
export function stillRunning(ref: ProcessRef): boolean {
  return current(ref) !== undefined;
}

/**
 * Signals each still-running descendant outside `group` (the group kill reaches the others) — as a
 * group when it leads one, which takes its own children along. Never throws.
 */
export function signalDescendants(refs: readonly ProcessRef[], group: number, signal: NodeJS.Signals): void {
  for (const ref of refs) {
    const stat = current(ref);
    if (stat === undefined || stat.pgid === group) continue;
    try {
      process.kill(stat.pgid === ref.pid ? -ref.pid : ref.pid, signal);
    } catch {
      // gone meanwhile
    }
  }
}
