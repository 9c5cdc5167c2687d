// Tests the guard THROUGH the test kit: the extension runs in this process (no subprocess), the
// test asks the host's intercept chain, exactly as an agent would before running a tool. The whole
// file takes a few dozen milliseconds; guard.subprocess.test.ts runs the real process once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestHost, type TestHost } from '../../src/testing/index.js';
import { CASES, chainResult } from './cases.js';
import { createGuard, NAME } from './extension.js';
import { REASONS } from './policy.js';

describe('guard, in-process through the test kit', () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await createTestHost({ extensions: [createGuard()] });
  });
  afterAll(() => t.close());

  for (const c of CASES) {
    it(c.title, async () => {
      expect(await t.toolCall(c.toolName, c.args)).toMatchObject(chainResult(c, NAME));
    });
  }

  it('tells the user what it blocked', async () => {
    const note = t.nextNote(NAME);
    await t.toolCall('bash', { command: 'sudo reboot' });
    expect(await note).toEqual({ extension: NAME, level: 'warn', message: `blocked bash: ${REASONS.sudo}` });
  });

  it('/guard shows what it decided; /guard reset starts over', async () => {
    expect(await t.command('/guard reset')).toMatchObject({ action: 'display', text: 'guard: counters reset' });
    await t.toolCall('bash', { command: 'rm -rf ~' });
    await t.toolCall('bash', { command: 'ls' });
    await t.toolCall('bash', { command: 'rm -fr /tmp/x' });
    await t.toolCall('read', { path: 'README.md' });
    expect(await t.command('/guard')).toMatchObject({
      action: 'display',
      text: ['guard: 4 tool calls checked, 2 blocked, 1 rewritten', '  rm-rf: 2', '  ls-long: 1'].join('\n'),
    });
    expect(await t.command('/guard nonsense')).toMatchObject({ action: 'noop', error: 'usage: /guard [reset]' });
  });
});
