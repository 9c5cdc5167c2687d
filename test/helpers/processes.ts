import { readdir, readFile } from 'node:fs/promises';
import { pollUntil } from './wait.js';

/** Env var every spawned extension inherits in tests; each test file gets its own value. */
export const MARKER_VAR = 'ZOT_EXT_TEST_MARKER';

/** Live (non-zombie) processes whose environment carries `VAR=marker`, with their command lines. */
export async function findMarkedProcesses(marker: string): Promise<{ pid: number; cmdline: string }[]> {
  const needle = Buffer.from(`${MARKER_VAR}=${marker}\0`);
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') continue;
      const environ = await readFile(`/proc/${pid}/environ`);
      if (!environ.includes(needle)) continue;
      const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim();
      found.push({ pid, cmdline });
    } catch {
      // The process went away while we looked at it.
    }
  }
  return found;
}

/**
 * Resolves with the marked processes still alive after `withinMs` (polled, so a process that is
 * being reaped right now is not reported). An empty list means nothing leaked.
 */
export async function leakedProcesses(marker: string, withinMs = 2000): Promise<{ pid: number; cmdline: string }[]> {
  let found: { pid: number; cmdline: string }[] = [];
  await pollUntil(async () => (found = await findMarkedProcesses(marker)).length === 0, withinMs, 25);
  return found;
}

/** True while a pid exists and is not a zombie. */
export async function isAlive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
