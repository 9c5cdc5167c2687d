// A tool named as no model provider accepts would fail every model request that lists the tools,
// for every extension: the host refuses it with an INVALID_TOOL_NAME diagnostic; the rest works.
import { expect, it } from 'vitest';
import { toAnthropicTools, toOpenAITools } from '../../src/index.js';
import { fixture } from '../helpers/fixtures.js';
import { hostKit } from '../helpers/host.js';

const kit = hostKit();

it('refuses tools named outside [a-zA-Z0-9_-]{1,64}, one diagnostic each naming the extension and its log; the good one works', { timeout: 20_000 }, async () => {
  const { host } = await kit.start({ explicit: [fixture('faults/bad-tool-names')] });
  expect(host.tools().map((t) => t.name)).toEqual(['fine']);
  const refused = host.diagnostics().filter((d) => d.code === 'INVALID_TOOL_NAME');
  expect(refused.map((d) => d.message.match(/tool (".*?")/)?.[1])).toEqual(['"get weather"', '"weather.lookup"', `"${'x'.repeat(65)}"`, '"météo"']);
  for (const d of refused) expect(d).toMatchObject({ extension: 'bad-tool-names', severity: 'warning', logPath: host.extensions()[0]!.logPath });
  expect(toOpenAITools(host.tools(), { api: 'responses' }).map((t) => t.name)).toEqual(['fine']);
  expect(toAnthropicTools(host.tools()).map((t) => t.name)).toEqual(['fine']);
  expect((await host.callTool('fine', {})).content).toEqual([{ type: 'text', text: 'called fine' }]);
  expect((await host.callTool('get weather', {})).failure?.code).toBe('UNKNOWN_TOOL');
});
