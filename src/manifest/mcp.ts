// What names an MCP server loaded as an extension (docs/mcp.md): a command to spawn (stdio) or a
// Streamable HTTP URL. No zod here: the host option `mcpServers` and the transport use these too.
import { headersProblem, redactUrl } from './remote.js';

/** An MCP server spawned as a subprocess, speaking MCP over its stdin/stdout. */
export interface McpStdioServer {
  /** The program (on PATH, or relative to the extension directory). */
  command: string;
  /** @default [] */
  args?: readonly string[] | undefined;
  /** Variables set for the server on top of its environment (the host's env policy decides the rest). */
  env?: Readonly<Record<string, string>> | undefined;
  /** Put before every tool name, against name clashes (`ev_` makes `echo` `ev_echo`). @default '' */
  prefix?: string | undefined;
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpServer {
  /** `http://` or `https://`. */
  url: string;
  /** Request headers; a value `env:NAME` is read from the environment at connect time. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Put before every tool name, against name clashes. @default '' */
  prefix?: string | undefined;
}

/** An MCP server as an extension: the manifest's `"mcp"` field, or one entry of the host option `mcpServers`. */
export type McpServerConfig = McpStdioServer | McpHttpServer;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStrings = (value: unknown): boolean => Array.isArray(value) && value.every((v) => typeof v === 'string');
const isStringRecord = (value: unknown): boolean => isObject(value) && Object.values(value).every((v) => typeof v === 'string');

/** Why `value` is not an MCP server config, or undefined. */
export function mcpProblem(value: unknown): string | undefined {
  if (!isObject(value)) return '"mcp" must be an object: {"command", "args", "env"} or {"url", "headers"}';
  const { command, url, args, env, headers, prefix } = value;
  if (prefix !== undefined && (typeof prefix !== 'string' || !/^[a-zA-Z0-9_-]{0,32}$/.test(prefix))) return '"mcp.prefix" must be up to 32 letters, digits, _ and -';
  if (command !== undefined && url !== undefined) return 'use either "mcp.command" (a server to spawn) or "mcp.url" (a Streamable HTTP server), not both';
  if (command !== undefined) {
    if (typeof command !== 'string' || command === '') return '"mcp.command" must be a non-empty string';
    if (args !== undefined && !isStrings(args)) return '"mcp.args" must be an array of strings';
    if (env !== undefined && !isStringRecord(env)) return '"mcp.env" must be an object of strings';
    if (headers !== undefined) return '"mcp.headers" are for an HTTP server ("mcp.url") only';
    return undefined;
  }
  if (url === undefined) return '"mcp" needs "command" (a server to spawn) or "url" (a Streamable HTTP server)';
  if (typeof url !== 'string') return '"mcp.url" must be a string';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"mcp.url" ${JSON.stringify(redactUrl(url))} is not a valid URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `"mcp.url" ${JSON.stringify(redactUrl(url))} must be http:// or https://`;
  if (args !== undefined || env !== undefined) return '"mcp.args" and "mcp.env" are for a spawned server ("mcp.command") only';
  if (headers !== undefined) {
    if (!isStringRecord(headers)) return '"mcp.headers" must be an object of strings';
    const problem = headersProblem(headers as Record<string, string>);
    if (problem !== undefined) return `"mcp.headers": ${problem}`;
  }
  return undefined;
}

/** What names where an extension runs: a remote one's `url`, or its MCP server (ExtensionSpec has both fields). */
interface Reached {
  url?: string | undefined;
  mcp?: McpServerConfig | undefined;
}

/** Whether the extension is reached over the network (its `url`, or an MCP server with a `url`), not a process of this machine. */
export function isRemote(spec: Reached): boolean {
  return spec.url !== undefined || (spec.mcp !== undefined && 'url' in spec.mcp);
}

/** The URL a remote extension is reached at: its MCP server's `url`, else its own; undefined for a local one. */
export function remoteUrl(spec: Reached): string | undefined {
  return spec.mcp !== undefined && 'url' in spec.mcp ? spec.mcp.url : spec.url;
}
