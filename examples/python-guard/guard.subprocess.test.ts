// The Python guard as zot would run it: its directory, launched through extension.json (./main.py,
// `#!/usr/bin/env python3`) under the real host. Its unit tests are test_*.py (npm run test:python).
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestHost, type TestHost } from '../../src/testing/index.js';

const NAME = 'python-guard';

describe('python-guard as a real subprocess (its directory, launched through extension.json)', () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await createTestHost({ extensions: [fileURLToPath(new URL('.', import.meta.url))], timeoutMs: 10_000 });
  }, 20_000);
  afterAll(() => t.close(), 20_000);

  it('blocks, rewrites and counts', { timeout: 10_000 }, async () => {
    expect(t.host.extensions()[0]).toMatchObject({ name: NAME, state: 'ready', readyVia: 'ready', source: 'explicit' });
    const note = t.nextNote(NAME);
    expect(await t.toolCall('bash', { command: 'rm -rf /' })).toMatchObject({ block: true, blockedBy: NAME, reason: expect.stringMatching(/^refused by guard: "rm -rf"/) });
    expect(await note).toMatchObject({ extension: NAME, level: 'warn' });
    expect(await t.toolCall('bash', { command: 'ls src' })).toMatchObject({ block: false, modified: true, args: { command: 'ls -la src' } });
    expect(await t.toolCall('read', { path: 'README.md' })).toMatchObject({ block: false, modified: false });
    expect(await t.command('/guard')).toMatchObject({
      action: 'display',
      text: 'guard: 3 tool calls checked, 1 blocked, 1 rewritten\n  rm-rf: 1\n  ls-long: 1',
    });
  });
});
