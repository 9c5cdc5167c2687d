/**
 * Embedding recipe used by docs/embedding.md: map the host's tools to a model's tool format, route
 * slash commands with a fallback to the agent's own, run a tool call through interception first,
 * and keep the tool list fresh on `toolsChanged`. Runs in CI (test/examples.test.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { type AnthropicTool, ExtensionHost, type ToolResult, toAnthropicToolResult, toAnthropicTools, toOpenAIToolResult, toOpenAITools } from '../src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const home = mkdtempSync(path.join(tmpdir(), 'zot-embed-'));

// 1. The model's tool list, in the Anthropic Messages API's shape (toOpenAITools for OpenAI).
let modelTools: AnthropicTool[] = [];

const host = new ExtensionHost({
  cwd: root,
  home,
  discover: false,
  explicit: [path.join(root, 'fixtures/extensions/weather'), path.join(root, 'fixtures/extensions/guard')],
  builtinCommands: ['help'],
  callbacks: {
    // 2. Rebuild the model's tool list whenever it changes (late registrations, activations, crashes).
    toolsChanged: (tools) => {
      modelTools = toAnthropicTools(tools);
    },
    prompt: ({ text }) => console.log(`would send to the model: ${text}`),
    warning: ({ message }) => console.error(`warning: ${message}`),
  },
});

// 3. Slash commands: extensions first, the agent's own commands as the fallback.
async function onUserInput(line: string): Promise<void> {
  if (!line.startsWith('/')) return console.log(`user message: ${line}`);
  const outcome = await host.runCommand(line);
  if (!outcome.handled) console.log(`agent built-in command: ${line}`);
}

// 4. A tool call from the model: intercept first, then run it with the (possibly rewritten) args.
async function onModelToolCall(id: string, name: string, args: Record<string, unknown>): Promise<ToolResult | string> {
  const decision = await host.intercepts.toolCall({ toolId: id, toolName: name, args });
  if (decision.block) return `error: ${decision.reason}`; // the model sees the reason as the tool error
  return host.callTool(name, decision.args, { timeoutMs: 10_000 });
}

try {
  await host.start();
  console.log('anthropic tools:', JSON.stringify(modelTools.map((t) => t.name)));
  console.log('openai chat tools:', JSON.stringify(toOpenAITools(host.tools(), { api: 'chat' }).map((t) => t.function.name)));
  console.log('openai responses tools:', JSON.stringify(toOpenAITools(host.tools(), { api: 'responses' }).map((t) => t.name)));
  await onUserInput('/weather Paris');
  await onUserInput('/help');
  const result = await onModelToolCall('call-1', 'weather', { city: 'Paris' });
  if (typeof result === 'string') throw new Error(result);
  // 5. The result, as each provider wants it back.
  console.log('anthropic tool_result:', JSON.stringify(toAnthropicToolResult('toolu_1', result)));
  console.log('openai tool message:', JSON.stringify(toOpenAIToolResult('call-1', result, { api: 'chat' }).message));
  console.log('openai function_call_output:', JSON.stringify(toOpenAIToolResult('call-1', result, { api: 'responses' })));
  console.log('guarded:', await onModelToolCall('call-2', 'bash', { command: 'rm -rf ~' }));
  await host.callTool('enable_forecast', {});
  console.log('anthropic tools after activation:', JSON.stringify(modelTools.map((t) => t.name)));
} finally {
  await host.stop();
  rmSync(home, { recursive: true, force: true });
}
