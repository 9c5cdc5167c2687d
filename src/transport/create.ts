// Which transport a launch gets. A new kind of extension is a Launch variant and a case here.
import type { ExtensionLog } from './log.js';
import type { ChildHandle } from './child.js';
import type { McpServerConfig } from '../manifest/mcp.js';
import { McpTransport } from './mcp.js';
import type { SandboxLaunch } from './sandbox.js';
import { MemoryTransport } from './memory.js';
import { StdioTransport } from './stdio.js';
import type { Transport } from './transport.js';
import { WebSocketTransport } from './websocket.js';

/** Where a connection comes from: a real subprocess, streams supplied by the caller (in-memory), or a WebSocket. */
export type Launch =
  | { kind: 'spawn'; exec: string; args?: readonly string[] | undefined; env?: NodeJS.ProcessEnv | undefined; sandbox?: SandboxLaunch | undefined }
  | { kind: 'connect'; connect: () => ChildHandle }
  | {
      kind: 'remote';
      url: string;
      /** `env:NAME` values are read from `env` at connect time. */
      headers?: Readonly<Record<string, string>> | undefined;
      /** Where `env:NAME` header values come from. @default process.env */
      env?: NodeJS.ProcessEnv | undefined;
      pingIntervalMs?: number | undefined;
      pingTimeoutMs?: number | undefined;
    }
  | {
      /** An MCP server (docs/mcp.md): spawned (stdio) or reached over Streamable HTTP, through the MCP adapter. */
      kind: 'mcp';
      server: McpServerConfig;
      /** A spawned server's environment; where `env:NAME` header values come from. @default process.env */
      env?: NodeJS.ProcessEnv | undefined;
      /** A stdio server's OS sandbox (docs/security.md); an HTTP server has none. */
      sandbox?: SandboxLaunch | undefined;
    };

export interface TransportContext {
  /** The manifest name. */
  name: string;
  /** The extension directory. */
  dir: string;
  log: ExtensionLog;
  maxFrameBytes: number;
  /** Grace after the input ends before the peer is forced. */
  shutdownMs?: number | undefined;
  /** Grace after SIGTERM before SIGKILL. */
  killMs?: number | undefined;
  /** Time a remote peer has to accept the connection (the hello timeout). */
  connectMs?: number | undefined;
}

export function createTransport(launch: Launch, context: TransportContext): Transport {
  const { maxFrameBytes, shutdownMs, killMs } = context;
  switch (launch.kind) {
    case 'spawn':
      return new StdioTransport({ name: context.name, dir: context.dir, log: context.log, exec: launch.exec, args: launch.args, env: launch.env, sandbox: launch.sandbox, maxFrameBytes, shutdownMs, killMs });
    case 'connect':
      return new MemoryTransport({ connect: launch.connect, maxFrameBytes, shutdownMs, killMs });
    case 'remote': {
      const { url, headers, env, pingIntervalMs, pingTimeoutMs } = launch;
      return new WebSocketTransport({ name: context.name, url, headers, env, log: context.log, maxFrameBytes, connectMs: context.connectMs, shutdownMs, killMs, pingIntervalMs, pingTimeoutMs });
    }
    case 'mcp':
      return new McpTransport({ name: context.name, dir: context.dir, server: launch.server, env: launch.env, sandbox: launch.sandbox, log: context.log, maxFrameBytes, shutdownMs, killMs });
  }
}
