import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT, fixture, tempDir } from '../helpers/fixtures.js';
import { isAlive } from '../helpers/processes.js';
import { pollUntil } from '../helpers/wait.js';

const logs = tempDir();
afterAll(() => logs.cleanup());

it('a host process that exits without stop() takes its extensions along', { timeout: 30_000 }, async () => {
  const r = spawnSync(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(ROOT, 'test/process/scripts/exit-without-stop.ts'), fixture('faults/ignore-sigterm'), logs.dir], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(r.status).toBe(0);
  const pid = Number(r.stdout.trim());
  expect(pid).toBeGreaterThan(0);
  // SIGKILL was sent to the group synchronously at exit; the kernel may take a moment to reap it.
  await pollUntil(async () => !(await isAlive(pid)), 2000);
  expect(await isAlive(pid)).toBe(false);
});
