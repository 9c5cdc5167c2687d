/**
 * docs/mcp.md, "Our extensions as an MCP server": an MCP client (the MCP TypeScript SDK's own) that
 * starts `zot-ext mcp` on stdio and uses a zot extension through it. Its code blocks are excerpts of
 * this file (test/docs.test.ts); it runs in CI (test/examples.test.ts) against the built CLI, from
 * the repository root: the extension is a bundled fixture. A scratch --home keeps the machine's own
 * extensions (and logs) out.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const zotExt = path.join(root, 'dist', 'cli.js'); // the `zot-ext` bin of this package
const home = mkdtempSync(path.join(tmpdir(), 'zot-mcp-client-'));

const client = new Client({ name: 'my-agent', version: '1.0.0' });
try {
  // zot-ext mcp <extension dirs>: the client starts it and speaks MCP on its stdin/stdout.
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [zotExt, 'mcp', path.join(root, 'fixtures/extensions/weather'), '--home', home],
      stderr: 'ignore', // what loaded, extension notes: zot-ext mcp writes them to stderr
    }),
  );

  const { tools } = await client.listTools();
  console.log(`tools: ${tools.map((t) => t.name).join(', ')}`); // weather, enable_forecast (forecast is deferred)

  const result = await client.callTool({ name: 'weather', arguments: { city: 'Oslo' } });
  console.log(`weather: ${JSON.stringify(result.content)}`);

  // A tool result that activates deferred tools changes the list: the client is told.
  const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
  await client.callTool({ name: 'enable_forecast', arguments: {} });
  await changed;
  console.log(`tools now: ${(await client.listTools()).tools.map((t) => t.name).join(', ')}`);

  // The extension's command /Weather is a prompt; its one argument `args` is what follows /Weather.
  const prompt = await client.getPrompt({ name: 'Weather', arguments: { args: 'Lisbon' } });
  console.log(`prompt: ${JSON.stringify(prompt.messages)}`);

  assert.deepEqual(tools.map((t) => t.name), ['weather', 'enable_forecast']);
  assert.equal(prompt.messages.length, 1);
} finally {
  await client.close(); // closes zot-ext's stdin: it stops the extensions and exits 0
  rmSync(home, { recursive: true, force: true });
}
