// The Python weather example as zot would run it: its directory, launched through extension.json
// (./weather.py) under the real host. Its unit tests are test_weather.py (npm run test:python).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestHost, type TestHost } from '../../src/testing/index.js';

describe('python-weather as a real subprocess', () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await createTestHost({ extensions: [fileURLToPath(new URL('.', import.meta.url))], timeoutMs: 10_000, provider: 'anthropic', model: 'opus' });
  }, 20_000);
  afterAll(() => t.close(), 20_000);

  it('answers its command, activates its deferred tool, guards bash', { timeout: 10_000 }, async () => {
    const info = t.host.extensions()[0]!;
    expect(info).toMatchObject({ name: 'python-weather', state: 'ready', readyVia: 'ready', capabilities: ['commands', 'tools', 'intercept', 'cancel', 'progress', 'trace'] });
    expect(await t.command('/weather Oslo')).toMatchObject({ action: 'prompt', text: "Show today's weather for Oslo in one line." });
    expect(t.host.tools().map((tool) => tool.name)).toEqual(['enable_forecast']);
    expect(await t.callTool('enable_forecast')).toMatchObject({ activatedTools: ['forecast'] });
    expect((await t.callTool('forecast', { city: 'Oslo' })).content).toEqual([{ type: 'text', text: 'Oslo: tomorrow 18°C, sun' }]);
    expect(await t.toolCall('bash', { command: 'rm -rf /' })).toMatchObject({ block: true, reason: 'no recursive deletes, please' });
    expect(await readFile(info.logPath, 'utf8')).toContain('(anthropic/opus)\n');
  });
});
