/**
 * docs/mcp.md, "MCP servers as extensions": the MCP reference server (server-everything, a dev
 * dependency) loaded as an extension with the host option `mcpServers`, its tools mapped for a model,
 * one call with progress, one through the intercept chain, and a prompt as a slash command.
 * Runs in CI (test/examples.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ExtensionHost, toAnthropicTools } from '../src/index.js';

const require = createRequire(import.meta.url);
const everything = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const home = mkdtempSync(path.join(tmpdir(), 'zot-mcp-example-'));

const host = new ExtensionHost({
  home,
  discover: false,
  // One MCP server, spawned over stdio; `prefix` keeps its tool names apart from other extensions'.
  mcpServers: {
    everything: { command: process.execPath, args: [everything, 'stdio'], prefix: 'ev_' },
  },
  callbacks: { prompt: ({ text }) => console.log(`prompt for the model: ${text}`) },
});

await host.start();
const [server] = host.extensions();
console.log(`${server?.name}: ${server?.state}, pid ${server?.pid}`);

// Its tools are host tools: name, description, input schema, annotations, output schema.
const tools = host.tools();
console.log(`tools: ${tools.length}, e.g. ${toAnthropicTools(tools).find((t) => t.name === 'ev_echo')?.description}`);

// tools/call with the caller's deadline; MCP progress arrives as onProgress.
const result = await host.callTool('ev_trigger-long-running-operation', { duration: 0.2, steps: 2 }, {
  timeoutMs: 10_000,
  onProgress: ({ progress, total }) => console.log(`progress ${progress}/${total}`),
});
console.log(result.content[0]?.type === 'text' ? result.content[0].text : '');

// The intercept chain sees its calls like any extension's.
host.intercepts.add({ name: 'guard', toolCall: ({ toolName }) => (toolName === 'ev_get-env' ? { block: true, reason: 'no env dumps' } : {}) });
const decision = await host.intercepts.toolCall({ toolId: 'call_1', toolName: 'ev_get-env', args: {} });
console.log(`ev_get-env blocked: ${decision.block} (${decision.reason})`);

// Its prompts are slash commands: /<extension>:<prompt> args.
await host.runCommand('/everything:args-prompt Lisbon');

await host.stop();
rmSync(home, { recursive: true, force: true });
console.log('mcp example: ok');
