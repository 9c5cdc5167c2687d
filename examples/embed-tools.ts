/**
 * Embedding recipe used by docs/embedding.md: map the host's tools to a model's tool format, route
 * slash commands with a fallback to the agent's own, run a tool call through interception first,
 * and keep the tool list fresh on `toolsChanged`. Runs in CI (test/examples.test.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ExtensionHost, type ToolInfo, type ToolResult } from '../src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const home = mkdtempSync(path.join(tmpdir(), 'zot-embed-'));

// 1. Tool definitions in the shapes two popular APIs accept. The schema is exactly what the
//    extension registered.
const toAnthropic = (t: ToolInfo) => ({ name: t.name, description: t.description, input_schema: t.schema });
const toOpenAI = (t: ToolInfo) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.schema } });

let modelTools: ReturnType<typeof toAnthropic>[] = [];

const host = new ExtensionHost({
  cwd: root,
  home,
  discover: false,
  explicit: [path.join(root, 'fixtures/extensions/weather'), path.join(root, 'fixtures/extensions/guard')],
  builtinCommands: ['help'],
  callbacks: {
    // 2. Rebuild the model's tool list whenever it changes (late registrations, activations, crashes).
    toolsChanged: (tools) => {
      modelTools = tools.map(toAnthropic);
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
  console.log('openai tools:', JSON.stringify(host.tools().map(toOpenAI).map((t) => t.function.name)));
  await onUserInput('/weather Paris');
  await onUserInput('/help');
  const result = await onModelToolCall('call-1', 'weather', { city: 'Paris' });
  console.log('tool result:', typeof result === 'string' ? result : result.content);
  console.log('guarded:', await onModelToolCall('call-2', 'bash', { command: 'rm -rf ~' }));
  await host.callTool('enable_forecast', {});
  console.log('anthropic tools after activation:', JSON.stringify(modelTools.map((t) => t.name)));
} finally {
  await host.stop();
  rmSync(home, { recursive: true, force: true });
}
