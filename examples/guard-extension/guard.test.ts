// Tests the guard THROUGH the test kit: the extension runs in this process (no subprocess), the
// test asks the host's intercept chain, exactly as an agent would before running a tool.
import { fileURLToPath } from 'node:url';
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

describe('guard as a real subprocess (its directory, launched through extension.json)', () => {
  let t: TestHost;
  beforeAll(async () => {
    // tsx compiles main.ts at start: allow it more than the kit's default 2 s.
    t = await createTestHost({ extensions: [fileURLToPath(new URL('.', import.meta.url))], timeoutMs: 10_000 });
  }, 20_000);
  afterAll(() => t.close(), 20_000);

  it('blocks, rewrites and counts, exactly as in-process', { timeout: 10_000 }, async () => {
    expect(t.host.extensions()[0]).toMatchObject({ name: NAME, state: 'ready', source: 'explicit', pid: expect.any(Number) });
    const blocked = CASES.find((c) => c.expected.verdict === 'block')!;
    const rewritten = CASES.find((c) => c.expected.verdict === 'rewrite')!;
    expect(await t.toolCall(blocked.toolName, blocked.args)).toMatchObject(chainResult(blocked, NAME));
    expect(await t.toolCall(rewritten.toolName, rewritten.args)).toMatchObject(chainResult(rewritten, NAME));
    expect(await t.command('/guard')).toMatchObject({ text: expect.stringMatching(/^guard: 2 tool calls checked, 1 blocked, 1 rewritten\n/) });
  });
});
