// `zot-ext mcp`, loaded only when the command runs (it imports the MCP SDK, an optional peer): starts
// the host, then serves it over stdio (stdout is the MCP channel: every other line goes to stderr)
// or Streamable HTTP, until the client goes away (stdin EOF) or SIGINT/SIGTERM; then stops the host.
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { ExtensionHost } from '../../host/host.js';
import type { StartReport } from '../../host/types.js';
import type { CommandContext } from '../context.js';
import { createHost, explicitPaths, isUntrusted, untrustedHint } from '../create-host.js';
import { CliError, CliErrorCode } from '../errors.js';
import { forgetToken, serverToken } from '../commands/serve.js';
import { isLoopback, parseListen, urlHost } from '../serve/listen.js';
import { oneLine, terminalSafe as safe } from '../terminal-safe.js';
import { isDiscoveryDiagnostic } from '../start-problems.js';
import { McpSessions } from './bridge.js';
import { MCP_PATH, McpHttpServer } from './http.js';

export interface McpServeOptions {
  http: boolean;
  /** `--listen`, as given; undefined: 127.0.0.1 and `--port` (else a free port). */
  listen: string | undefined;
  port: number;
  /** The name of the variable holding the bearer token; undefined: a random one, printed. */
  tokenVar: string | undefined;
  allowedOrigins: readonly string[];
  timeoutMs: number | undefined;
  maxSessions: number;
  discover: boolean;
}

export async function serveMcp(ctx: CommandContext, options: McpServeOptions): Promise<number> {
  const log = (line: string) => ctx.err.line(`zot-ext mcp: ${line}`);
  let token: string | undefined;
  let listen: { host: string; port: number } | undefined;
  if (options.http) {
    listen = options.listen === undefined ? { host: '127.0.0.1', port: options.port } : parseListen(options.listen);
    const loopback = isLoopback(listen.host);
    if (!loopback && options.tokenVar === undefined) {
      throw new CliError(CliErrorCode.USAGE, `--listen ${options.listen ?? ''} is not a loopback address: add --token-env VAR (clients then need Authorization: Bearer <$VAR>)`);
    }
    token = serverToken(ctx, options.tokenVar);
  }
  // The token is for the server: no extension sees it.
  forgetToken(ctx, options.tokenVar);

  let sessions: McpSessions | undefined;
  const explicit = explicitPaths(ctx);
  const host = createHost(ctx, {
    explicit,
    discover: explicit.length === 0 || options.discover,
    // No agent here owns read, write, edit or bash: MCP clients keep a server's tools apart from theirs.
    builtinTools: [],
    // On stdio the terminal (if any) is the MCP channel: trust questions only with --http.
    ask: options.http,
    callbacks: {
      notify: (note) => ctx.err.line(safe(`[${note.extension}] ${note.level}: ${note.message}`)),
      warning: (w) => log(`${ctx.err.style('yellow', 'warning')}: ${oneLine(w.extension === undefined ? w.message : `${w.extension}: ${w.message}`)}`),
      submit: (s) => sessions?.onSubmit(s.extension, s.text),
      toolsChanged: () => sessions?.toolsChanged(),
    },
  });
  sessions = new McpSessions({ host, toolTimeoutMs: options.timeoutMs, commandTimeoutMs: options.timeoutMs, log });
  host.on('commands:changed', () => sessions.commandsChanged());
  try {
    const report = await host.start();
    printLoaded(ctx, host, report, log);
    if (ctx.signal.aborted) return 0;
    if (listen === undefined || token === undefined) await serveStdio(ctx, sessions);
    else await serveHttp(ctx, sessions, listen, token, options, log);
    return 0;
  } finally {
    await host.stop();
    log('stopped');
  }
}

/** Until stdin ends (the client closed it) or a signal. */
async function serveStdio(ctx: CommandContext, sessions: McpSessions): Promise<void> {
  const server = sessions.create();
  const transport = new StdioServerTransport(ctx.io.stdin as Readable, ctx.io.stdout as Writable);
  const closed = new Promise<void>((resolve) => {
    const onclose = server.onclose;
    server.onclose = () => {
      onclose?.();
      resolve();
    };
  });
  const stop = () => void server.close();
  ctx.signal.addEventListener('abort', stop, { once: true });
  try {
    await server.connect(transport);
    ctx.err.line('zot-ext mcp: serving MCP on stdio');
    await closed;
  } finally {
    ctx.signal.removeEventListener('abort', stop);
  }
}

async function serveHttp(ctx: CommandContext, sessions: McpSessions, listen: { host: string; port: number }, token: string, options: McpServeOptions, log: (line: string) => void): Promise<void> {
  const server = new McpHttpServer({ ...listen, token, allowedOrigins: options.allowedOrigins, loopback: isLoopback(listen.host), maxSessions: options.maxSessions, sessions, log });
  let bound;
  try {
    bound = await server.listen();
  } catch (err) {
    throw new CliError(CliErrorCode.FAILED, `cannot listen on ${listen.host}:${listen.port}: ${(err as Error).message}`, { cause: err });
  }
  ctx.out.line(`listening http://${urlHost(bound.host)}:${bound.port}${MCP_PATH}`);
  if (options.tokenVar === undefined) ctx.out.line(`token ${token}`);
  log(`serving MCP over Streamable HTTP; clients send Authorization: Bearer <${options.tokenVar === undefined ? 'the token above' : `$${options.tokenVar}`}>`);
  try {
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    log(`stopping: closing ${server.sessions} session${server.sessions === 1 ? '' : 's'}`);
  } finally {
    await server.stop();
  }
}

/** What loaded and what did not, on stderr (stdout may be the MCP channel). */
function printLoaded(ctx: CommandContext, host: ExtensionHost, report: StartReport, log: (line: string) => void): void {
  const { err } = ctx;
  for (const info of host.extensions()) {
    if (info.state !== 'ready') continue;
    const tools = info.tools.filter((t) => t.active).map((t) => (t.deferred ? `${t.name} (deferred)` : t.name));
    const commands = info.commands.filter((c) => c.active).map((c) => c.name);
    log(`${err.style('green', 'loaded')} ${safe(`${info.name} (${info.source}): ${tools.length} tool${tools.length === 1 ? '' : 's'}${tools.length > 0 ? ` (${tools.join(', ')})` : ''}, ${commands.length} prompt${commands.length === 1 ? '' : 's'}`)}`);
  }
  for (const f of report.failed) {
    // Project extensions the trust option kept out are not failures (nothing of them ran), as in run.
    if (isUntrusted(f)) log(`${err.style('yellow', 'untrusted')} ${safe(`${f.name} (${f.source}): not started: ${untrustedHint(ctx)}`)}`);
    else log(`${err.style('red', 'failed')} ${safe(`${f.name}: ${f.error.message}`)}`);
  }
  for (const s of report.starting) log(`${err.style('yellow', 'starting')} ${safe(`${s.name}: no hello yet; it may still join; log: ${s.logPath}`)}`);
  for (const d of report.diagnostics) {
    if (d.severity === 'error') log(`${err.style('red', 'error')}: ${safe(d.message)}`);
    else if (d.severity === 'warning' && isDiscoveryDiagnostic(d)) log(`${err.style('yellow', 'warning')}: ${oneLine(d.message)}`);
  }
  if (host.extensions().length === 0) log('no extensions loaded; give extension directories: zot-ext mcp ./my-extension');
}
