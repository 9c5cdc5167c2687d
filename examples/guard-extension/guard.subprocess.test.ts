// The guard as zot would run it: its directory, launched through extension.json as a subprocess
// (node --import tsx ./main.ts). One shared host; slower than guard.test.ts only by the process start.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestHost, type TestHost } from '../../src/testing/index.js';
import { CASES, chainResult } from './cases.js';
import { NAME } from './extension.js';

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
