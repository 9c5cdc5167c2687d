#!/usr/bin/env node
// The peer's child: a minimal MCP stdio server (the official TypeScript SDK) with one `echo` tool
// that behaves like bench/children/echo.mjs: the JSON of its args ({x}, {payload}), or `size` bytes of "x".
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const fillers = new Map();
const filler = (size) => {
  let text = fillers.get(size);
  if (text === undefined) {
    text = 'x'.repeat(size);
    fillers.set(size, text);
  }
  return text;
};

const server = new McpServer({ name: 'echo', version: '1.0.0' });
server.registerTool(
  'echo',
  {
    description: 'Echoes its args as JSON, or returns `size` bytes of text.',
    // payload: the bench's JSON-escape / non-ASCII / large-argument variant, echoed back as is.
    inputSchema: { x: z.number().optional(), size: z.number().int().nonnegative().optional(), payload: z.any().optional() },
  },
  async (args) => ({
    content: [{ type: 'text', text: typeof args.size === 'number' ? filler(args.size) : JSON.stringify(args) }],
  }),
);
await server.connect(new StdioServerTransport());
