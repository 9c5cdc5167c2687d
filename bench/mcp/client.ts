/**
 * The peer a user would pick instead for "call a tool in a subprocess": the MCP TypeScript SDK's
 * official stdio client, connected to bench/mcp/server.mjs.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** Absolute path of the MCP echo server script. */
export const MCP_SERVER = fileURLToPath(new URL('./server.mjs', import.meta.url));

export class McpEcho {
  private constructor(private readonly client: Client) {}

  /** Spawns the server and completes the MCP initialize handshake (spawn-to-connected). */
  static async connect(): Promise<McpEcho> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_SERVER],
      stderr: 'ignore',
      env: process.env as Record<string, string>,
    });
    const client = new Client({ name: 'zot-bench', version: '1.0.0' });
    await client.connect(transport);
    return new McpEcho(client);
  }

  /** tools/call echo -> the text of the first content block. */
  async call(args: Record<string, unknown>): Promise<string> {
    const result = await this.client.callTool({ name: 'echo', arguments: args });
    const content = result.content as Array<{ type: string; text?: string }> | undefined;
    return content?.[0]?.text ?? '';
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
