/**
 * CPU time of this process, exactly: the first field of /proc/<pid>/task/<tid>/schedstat is the
 * nanoseconds a thread has run on a CPU, summed here over every thread (main, libuv pool, V8
 * workers). process.cpuUsage() ticks too coarsely to resolve microseconds per call.
 */
import { readdirSync, readFileSync } from 'node:fs';

export type CpuSource = 'schedstat' | 'cpuUsage';

let source: CpuSource | undefined;

function readSchedstat(pid: number): bigint {
  let total = 0n;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'latin1');
      total += BigInt(text.slice(0, text.indexOf(' ')));
    } catch {
      // The thread ended between readdir and read: its time is lost either way.
    }
  }
  return total;
}

/**
 * CPU nanoseconds used so far by `pid` (default: this process). Threads that exit between two
 * readings take their time with them, so read before and after the same scenario only.
 * Falls back to process.cpuUsage() (this process only) where /proc is missing.
 */
export function cpuTimeNs(pid: number = process.pid): bigint {
  if (source !== 'cpuUsage') {
    try {
      const ns = readSchedstat(pid);
      source = 'schedstat';
      return ns;
    } catch {
      source = 'cpuUsage';
    }
  }
  const usage = process.cpuUsage();
  return BigInt(usage.user + usage.system) * 1000n;
}

/** Where the CPU numbers come from (known after the first reading). */
export function cpuSource(): CpuSource | undefined {
  return source;
}
