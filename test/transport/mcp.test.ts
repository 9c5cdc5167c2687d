// MCP servers as extensions (docs/mcp.md), against real MCP software: the reference server
// `@modelcontextprotocol/server-everything` and a server built with the MCP SDK's server, each
// loaded through the MCP adapter (src/transport/mcp.ts) and used through the host like any extension.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ExtensionHost } from '../../src/host/host.js';
import { detectSandbox } from '../../src/transport/sandbox.js';
import type { ExtensionHostOptions, ToolProgress } from '../../src/host/types.js';
import { fixture, tempDir } from '../helpers/fixtures.js';
import { textOf } from '../helpers/host.js';
import { leakedProcesses, MARKER_VAR } from '../helpers/processes.js';
import { nextEvent } from '../helpers/wait.js';

const require = createRequire(import.meta.url);
const EVERYTHING = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const MARKER = `mcp-client-${process.pid}`;
const env = { ...process.env, [MARKER_VAR]: MARKER };

const hosts: ExtensionHost[] = [];
const logs = tempDir('zot-mcp-logs-');

async function start(options: ExtensionHostOptions): Promise<{ host: ExtensionHost }> {
  // A generous hello timeout: node and the MCP SDK load slowly on a loaded machine.
  const host = new ExtensionHost({ cwd: logs.dir, discover: false, logDir: logs.dir, env, ...options, timeouts: { hello: 10_000, ...options.timeouts } });
  hosts.push(host);
  await host.start();
  return { host };
}

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop()));
});

afterAll(async () => {
  expect(await leakedProcesses(MARKER)).toEqual([]);
  logs.cleanup();
});

describe('server-everything as an extension', { timeout: 20_000 }, () => {
  let host: ExtensionHost;
  beforeAll(async () => {
    ({ host } = await start({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], prefix: 'ev_' } } }));
    // Stopped by afterAll below, not after each test.
    hosts.splice(hosts.indexOf(host), 1);
  });
  afterAll(async () => {
    await host.stop();
  });

  it('lists its tools with their schemas and annotations, prefixed, and it appears in extensions()', () => {
    const info = host.extensions().find((e) => e.name === 'everything');
    expect(info).toMatchObject({ state: 'ready', source: 'explicit' });
    expect(info?.pid).toBeTypeOf('number');
    const echo = host.tools().find((t) => t.name === 'ev_echo');
    expect(echo).toMatchObject({
      extension: 'everything',
      description: 'Echoes back the input string',
      schema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
      annotations: { readOnlyHint: true, title: 'Echo Tool' },
    });
    expect(host.tools().find((t) => t.name === 'ev_get-structured-content')?.outputSchema).toMatchObject({ type: 'object' });
  });

  it('answers a call with text, and structured content', async () => {
    const echo = await host.callTool('ev_echo', { message: 'hi' });
    expect(echo).toMatchObject({ isError: false, extension: 'everything' });
    expect(textOf(echo)).toBe('Echo: hi');
    const structured = await host.callTool('ev_get-structured-content', { location: 'Chicago' });
    expect(structured.structuredContent).toMatchObject({ temperature: expect.any(Number) });
  });

  it('an image result is an image block', async () => {
    const image = await host.callTool('ev_get-tiny-image', {});
    expect(image.content.find((c) => c.type === 'image')).toMatchObject({ type: 'image', mimeType: 'image/png', data: expect.any(String) });
  });

  it('reports MCP progress as the call progress', async () => {
    const progress: ToolProgress[] = [];
    const result = await host.callTool('ev_trigger-long-running-operation', { duration: 0.2, steps: 2 }, { onProgress: (p) => progress.push(p as ToolProgress) });
    expect(textOf(result)).toContain('Long running operation completed');
    expect(progress.map((p) => [p.progress, p.total])).toContainEqual([1, 2]);
  });

  it('cancels a call: the AbortSignal settles it at once, the session goes on', async () => {
    const controller = new AbortController();
    const call = host.callTool('ev_trigger-long-running-operation', { duration: 30, steps: 30 }, { signal: controller.signal, onProgress: () => controller.abort() });
    const result = await call;
    expect(result.failure?.code).toBe('ABORTED');
    // The server goes on answering calls (the cancelled one did not wedge the session).
    expect(textOf(await host.callTool('ev_echo', { message: 'after' }))).toBe('Echo: after');
  });

  it('a call the server rejects is an error result', async () => {
    const result = await host.callTool('ev_get-sum', { a: 'not a number' });
    expect(result.isError).toBe(true);
    expect(result.failure).toBeUndefined();
    expect(textOf(result)).toMatch(/invalid|expected/i);
  });

  it('the intercept chain sees and blocks its calls by their host names', async () => {
    host.intercepts.add({ name: 'guard', toolCall: ({ toolName, args }) => (toolName === 'ev_echo' && args.message === 'secret' ? { block: true, reason: 'no secrets' } : {}) });
    const blocked = await host.intercepts.toolCall({ toolId: 't1', toolName: 'ev_echo', args: { message: 'secret' } });
    expect(blocked).toMatchObject({ block: true, blockedBy: 'guard', reason: 'no secrets' });
    const allowed = await host.intercepts.toolCall({ toolId: 't2', toolName: 'ev_echo', args: { message: 'fine' } });
    expect(allowed.block).toBe(false);
  });

  it('its prompts are slash commands: /everything:<prompt> args', async () => {
    expect(host.commands().map((c) => c.name)).toContain('everything:args-prompt');
    const outcome = await host.runCommand('/everything:args-prompt Berlin');
    expect(outcome).toMatchObject({ handled: true, action: 'prompt' });
    expect(outcome.handled && outcome.text).toContain('Berlin');
  });
});

describe('MCP servers under the host policies', { timeout: 20_000 }, () => {
  it('tools/list_changed updates tools() and fires toolsChanged (added, then removed); loaded from a manifest', async () => {
    const { host } = await start({ explicit: [fixture('mcp/changing')] });
    expect(host.extensions()[0]).toMatchObject({ name: 'changing', state: 'ready', source: 'explicit' });
    expect(host.tools().map((t) => t.name)).toEqual(['ch_add_tool', 'ch_remove_tool']);
    const added = nextEvent(host, 'tools:changed', (tools) => tools.some((t) => t.name === 'ch_extra'));
    await host.callTool('ch_add_tool', {});
    await added;
    expect(textOf(await host.callTool('ch_extra', { n: 2 }))).toBe('extra 2');
    const removed = nextEvent(host, 'tools:changed', (tools) => !tools.some((t) => t.name === 'ch_extra'));
    await host.callTool('ch_remove_tool', {});
    await removed;
    expect(host.tools().map((t) => t.name)).toEqual(['ch_add_tool', 'ch_remove_tool']);
    expect((await host.callTool('ch_extra', { n: 2 })).failure?.code).toBe('UNKNOWN_TOOL');
  });

  it('the env policy decides its environment; "mcp.env" adds to it; permission scopes refuse its tools', async () => {
    process.env.ZOT_MCP_TEST_SECRET = 'host-only';
    try {
      const { host } = await start({
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { FROM_CONFIG: 'yes' } }, hidden: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
        env: 'minimal',
        envByExtension: { everything: { [MARKER_VAR]: MARKER }, hidden: { [MARKER_VAR]: MARKER } },
        permissions: { default: 'all', byExtension: { hidden: { tools: false } } },
      });
      const seen = JSON.parse(textOf(await host.callTool('get-env', {}))) as Record<string, string>;
      expect(seen.FROM_CONFIG).toBe('yes');
      expect(seen.ZOT_MCP_TEST_SECRET).toBeUndefined();
      expect(new Set(host.tools().map((t) => t.extension))).toEqual(new Set(['everything']));
    } finally {
      delete process.env.ZOT_MCP_TEST_SECRET;
    }
  });

  it('a crash is contained: its calls fail, and it is restarted under the restart policy', async () => {
    const { host } = await start({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } }, restart: { maxRestarts: 1, backoffMs: [0], jitter: 0 } });
    const pid = host.extensions()[0]!.pid!;
    const call = host.callTool('trigger-long-running-operation', { duration: 30, steps: 30 });
    const back = nextEvent(host, 'extension:state', (s) => s.name === 'everything' && s.state === 'ready', 10_000);
    process.kill(pid, 'SIGKILL');
    expect((await call).failure?.code).toBe('PROCESS_EXITED');
    await back;
    expect(host.extensions()[0]!.pid).not.toBe(pid);
    expect(textOf(await host.callTool('echo', { message: 'again' }))).toBe('Echo: again');
  });
});

describe('bad input from an MCP server gets the bounds of any extension', { timeout: 15_000 }, () => {
  const fake = (...args: string[]) => ({ fake: { command: process.execPath, args: [fixture('mcp/fake-server.mjs'), ...args] } });

  it('a command that does not exist fails the start with SPAWN_FAILED', async () => {
    const { host } = await start({ mcpServers: { nope: { command: 'no-such-mcp-server-here' } } });
    expect(host.extensions()[0]).toMatchObject({ state: 'failed', error: { code: 'SPAWN_FAILED', message: expect.stringContaining('no-such-mcp-server-here') } });
  });

  it('one that never initialises fails with HELLO_TIMEOUT, and its process is gone', async () => {
    const { host } = await start({ mcpServers: fake('silent'), timeouts: { hello: 300, helloJoin: 0 } });
    const info = host.extensions()[0]!;
    expect(info.state).toBe('failed');
    expect(info.error?.code).toBe('HELLO_TIMEOUT');
    expect(info.error?.message).toContain(info.logPath);
  });

  it('garbage on stdout is counted and reported, the server still works', async () => {
    const { host } = await start({ mcpServers: fake('garbage') });
    expect(textOf(await host.callTool('echo', { a: 1 }))).toBe('echo {"a":1}');
    expect(host.diagnostics()).toContainEqual(expect.objectContaining({ code: 'NOT_JSON', extension: 'fake', message: expect.stringContaining('this is not JSON') }));
  });

  it('a call that hangs meets the caller’s deadline, and the server is told to cancel it; so is an aborted one', async () => {
    const { host } = await start({ mcpServers: fake() });
    const result = await host.callTool('hang', {}, { timeoutMs: 200 });
    expect(result.failure?.code).toBe('TIMEOUT');
    // notifications/cancelled reached the server before the next call (one stdin, in order).
    expect(textOf(await host.callTool('echo', {}))).toMatch(/^echo \{\} cancelled \[\d+\]$/);
    const controller = new AbortController();
    const aborted = host.callTool('hang', {}, { signal: controller.signal });
    // Once the server answered a later call, it has the hanging one.
    await host.callTool('echo', {});
    controller.abort();
    expect((await aborted).failure?.code).toBe('ABORTED');
    expect(textOf(await host.callTool('echo', {}))).toMatch(/^echo \{\} cancelled \[\d+,\d+\]$/);
  });

  it('a result over the frame cap ends it with FRAME_TOO_LARGE, like an extension’s line', async () => {
    const { host } = await start({ mcpServers: fake('plain', String(2 * 1024 * 1024)), maxFrameBytes: 1024 * 1024 });
    const ended = nextEvent(host, 'extension:state', (s) => s.name === 'fake' && s.previous === 'ready');
    const result = await host.callTool('huge', {});
    expect(result.isError).toBe(true);
    expect(result.failure?.code).toBe('FRAME_TOO_LARGE');
    expect((await ended).state).toBe('exited');
  });

  it('a stdio server runs in the OS sandbox like any extension (sandbox: required)', async (t) => {
    const backend = await detectSandbox();
    if (backend.kind === 'none') {
      if (process.env.ZOT_EXT_REQUIRE_SANDBOX === '1') throw new Error(`ZOT_EXT_REQUIRE_SANDBOX=1 but no sandbox here: ${backend.reason}`);
      t.skip(`no sandbox on this machine: ${backend.reason}`);
    }
    const home = path.join(logs.dir, 'home');
    const { host } = await start({ home, mcpServers: fake(), sandbox: { mode: 'required', readable: [path.dirname(fixture('mcp/fake-server.mjs'))] } });
    const info = host.extensions()[0]!;
    // Its directory is the host's cwd (the project): read-only; it writes only its data dir.
    expect(info.sandbox).toMatchObject({ mode: 'required', active: true, backend: backend.kind, network: 'none', writable: [path.join(home, 'data', 'fake')] });
    expect(textOf(await host.callTool('echo', { a: 1 }))).toBe('echo {"a":1}');
  });

  it('a flood of tools/list_changed is at most one refetch a second, and the last change is fetched', async () => {
    const { host } = await start({ mcpServers: fake() });
    const listsBefore = Number(textOf(await host.callTool('lists', {})));
    const flooded = nextEvent(host, 'tools:changed', (tools) => tools.some((t) => t.name === 'flooded'));
    // 13 notifications over ~0.9 s.
    expect(textOf(await host.callTool('flood', {}))).toBe('flooded');
    await flooded;
    const refetches = Number(textOf(await host.callTool('lists', {}))) - listsBefore;
    expect(refetches).toBeGreaterThanOrEqual(1);
    expect(refetches).toBeLessThanOrEqual(3);
  });

  it('a crash mid call settles the call with PROCESS_EXITED and names the log', async () => {
    const { host } = await start({ mcpServers: fake() });
    const result = await host.callTool('crash', {});
    expect(result.failure?.code).toBe('PROCESS_EXITED');
    expect(result.failure?.message).toContain(host.extensions()[0]!.logPath);
  });
});

/** A stateless Streamable HTTP server of the MCP SDK's (v1): a fresh session per request, on loopback only. */
async function httpServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.headers.authorization !== 'Bearer s3cret') {
      res.writeHead(401).end();
      return;
    }
    const mcp = new McpServer({ name: 'http-fixture', version: '1.0.0' });
    mcp.registerTool('shout', { description: 'Upper-cases', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: async () => {
      if (!server.listening) return;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A hand-written Streamable HTTP MCP server (no SDK) whose one tool `huge` answers with a body of
 * `bytes` (JSON, or one SSE event), written as the client reads it; `written` settles with what it
 * wrote when the response ends (the client stopped reading, or all of it went out).
 */
async function hugeHttpServer(mode: 'json' | 'sse', bytes: number): Promise<{ url: string; written: Promise<number>; close: () => Promise<void> }> {
  let settle!: (n: number) => void;
  const written = new Promise<number>((resolve) => (settle = resolve));
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => {
      const message = JSON.parse(text) as { id?: number; method: string; params?: { protocolVersion?: string } };
      if (message.id === undefined) return void res.writeHead(202).end();
      const answer = (result: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      if (message.method === 'initialize') return answer({ protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'huge', version: '1.0.0' } });
      if (message.method === 'tools/list') return answer({ tools: [{ name: 'huge', inputSchema: { type: 'object' } }] });
      res.writeHead(200, { 'content-type': mode === 'sse' ? 'text/event-stream' : 'application/json' });
      const head = `${mode === 'sse' ? 'event: message\ndata: ' : ''}{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"`;
      const chunk = 'x'.repeat(64 * 1024);
      let sent = res.write(head) ? head.length : head.length;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        settle(sent);
      };
      res.on('close', finish);
      const pump = () => {
        while (!done && sent < bytes) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!done) res.end(`"}]}}${mode === 'sse' ? '\n\n' : ''}`, finish);
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    written,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('a hostile Streamable HTTP MCP server', { timeout: 15_000 }, () => {
  for (const mode of ['json', 'sse'] as const) {
    it(`a ${mode} response over the frame cap is cut while it arrives: FRAME_TOO_LARGE naming the extension and its log`, async () => {
      const huge = await hugeHttpServer(mode, 64 * 1024 * 1024);
      try {
        const { host } = await start({ mcpServers: { web: { url: huge.url } }, maxFrameBytes: 256 * 1024 });
        const result = await host.callTool('huge', {});
        const info = host.extensions()[0]!;
        expect(result.failure?.code).toBe('FRAME_TOO_LARGE');
        expect(result.failure?.message).toContain('web sent a frame of more than 262144 bytes');
        expect(result.failure?.message).toContain(info.logPath);
        // The host stopped reading long before the end of the 64 MiB body.
        expect(await huge.written).toBeLessThan(32 * 1024 * 1024);
      } finally {
        await huge.close();
      }
    });
  }
});

describe('an MCP server over Streamable HTTP', { timeout: 15_000 }, () => {
  let http: Awaited<ReturnType<typeof httpServer>>;
  beforeAll(async () => {
    http = await httpServer();
  });
  afterAll(() => http.close());

  it('lists and calls its tools, with env:NAME headers', async () => {
    const { host } = await start({ mcpServers: { web: { url: http.url, headers: { Authorization: 'env:MCP_TOKEN' } } }, env: { ...env, MCP_TOKEN: 'Bearer s3cret' } });
    expect(host.extensions()[0]).toMatchObject({ name: 'web', state: 'ready', url: http.url });
    expect(host.tools().map((t) => t.name)).toEqual(['shout']);
    expect(textOf(await host.callTool('shout', { text: 'hi' }))).toBe('HI');
  });

  it('a server that goes away is the extension’s exit: the call fails with PROCESS_EXITED', async () => {
    const own = await httpServer();
    const { host } = await start({ mcpServers: { web: { url: own.url, headers: { Authorization: 'Bearer s3cret' } } } });
    await own.close();
    const result = await host.callTool('shout', { text: 'hi' });
    expect(result.failure?.code).toBe('PROCESS_EXITED');
    expect(host.extensions()[0]!.state).toBe('exited');
  });

  it('a refused connection fails the start, naming the log', async () => {
    const { host } = await start({ mcpServers: { web: { url: http.url, headers: { Authorization: 'Bearer wrong' } } }, timeouts: { hello: 2000 } });
    const info = host.extensions()[0]!;
    expect(info.state).toBe('failed');
    expect(info.error?.code).toBe('EXITED_BEFORE_HELLO');
    expect(info.error?.message).toMatch(/MCP initialisation failed: .*401/);
    expect(info.error?.message).toContain(info.logPath);
  });
});
