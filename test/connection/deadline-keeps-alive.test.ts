// A request's deadline keeps Node running while the caller awaits it: an in-memory extension holds
// no handle, so an unref'd deadline let a script that awaits callTool() exit before the call
// settled (code 13). In a child Node process with nothing else of its own to wait for.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/fixtures.js';

const home = tempDir('zot-deadline-alive-');
afterAll(() => home.cleanup());

it('an awaited callTool of an extension that never answers settles TIMEOUT before Node exits', { timeout: 30_000 }, () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/connection/scripts/awaited-deadline.ts'), home.dir], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
  expect({ status: r.status, stdout: r.stdout.trim() }, r.stderr).toEqual({ status: 0, stdout: 'TIMEOUT' });
});
