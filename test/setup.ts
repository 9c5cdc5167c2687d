// Runs before every test file: tags every process the file spawns and, after the file, asserts
// that none of them is still running.
import { randomUUID } from 'node:crypto';
import { afterAll, expect } from 'vitest';
import { MARKER_VAR, leakedProcesses } from './helpers/processes.js';

const marker = randomUUID();
process.env[MARKER_VAR] = marker;

afterAll(async () => {
  const leaked = await leakedProcesses(marker);
  for (const { pid } of leaked) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  expect(leaked, 'processes left running by this test file').toEqual([]);
});
