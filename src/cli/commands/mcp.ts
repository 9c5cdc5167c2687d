import type { Command } from '../context.js';
import { TRUST_OPTIONS } from '../create-host.js';
import { CliError, CliErrorCode } from '../errors.js';
import { SANDBOX_OPTIONS } from '../sandbox.js';
import { origins, wholeNumber } from './serve.js';

/** `--max-sessions` when not given (`--http`). */
const DEFAULT_MAX_SESSIONS = 16;
/** The MCP SDK this command serves with: an optional peer dependency, loaded only here. */
const SDK = '@modelcontextprotocol/server';

export const mcp: Command = {
  name: 'mcp',
  usage: '[paths...]',
  summary: 'serve the extensions\' tools (and commands, as prompts) to MCP clients, on stdio or --http',
  description: [
    'Loads the given extension directories (default: the installed ones, as an agent would) and serves',
    'them as one MCP server: their tools as MCP tools (each call asks the extensions\' tool_call',
    'interceptors first, as an agent does; deadlines, cancel and progress apply), their commands as',
    'MCP prompts (one optional argument "args"). The tool list follows the host: a tool registered,',
    'dropped or restarted sends notifications/tools/list_changed. Interactive tools (they wait for a',
    'user at a panel) are not served.',
    '',
    'On stdio (the default) stdout is the MCP channel and nothing else is written there; load',
    'results and extension notes go to stderr. The server stops (every extension with it) when the',
    'client closes stdin, or on SIGINT/SIGTERM. In an MCP client\'s config: command "zot-ext", args',
    '["mcp", "/path/to/extension"] (see docs/mcp.md).',
    '',
    `--http serves Streamable HTTP on http://127.0.0.1:<port>${'/mcp'} instead; the first stdout line is`,
    '"listening http://HOST:PORT/mcp". Every request needs "Authorization: Bearer <token>" (else 401):',
    'the value of --token-env VAR, or else a random token printed as the second stdout line',
    '"token <value>". A request with an Origin header (a web page) gets 403 unless --allow-origin',
    'lists it; one whose Host is not loopback gets 403 while listening on loopback. --listen off',
    'loopback needs --token-env. Needs the optional package @modelcontextprotocol/server.',
  ].join('\n'),
  options: {
    discover: { type: 'boolean', description: 'with paths: load the installed extensions too' },
    timeout: { type: 'string', value: 'ms', description: 'deadline of each tool call and prompt (default: the host\'s, 60000 and 30000)' },
    http: { type: 'boolean', description: 'serve Streamable HTTP on loopback instead of stdio' },
    port: { type: 'string', value: 'n', description: 'with --http: the port on 127.0.0.1 (default: a free one)' },
    listen: { type: 'string', value: 'host:port', description: 'with --http: the address instead; off loopback only with --token-env' },
    'token-env': { type: 'string', value: 'VAR', description: 'with --http: the bearer token is the value of $VAR (default: a random one, printed)' },
    'allow-origin': { type: 'string', value: 'origin', multiple: true, description: 'with --http: let web pages of this origin call; others with an Origin get HTTP 403' },
    'max-sessions': { type: 'string', value: 'n', description: `with --http: MCP sessions open at once; a new one beyond closes the one idle longest (default: ${DEFAULT_MAX_SESSIONS})` },
    ...SANDBOX_OPTIONS,
    ...TRUST_OPTIONS,
  },
  async run(ctx) {
    const v = ctx.values;
    const http = v.http === true;
    for (const option of ['port', 'listen', 'token-env', 'allow-origin', 'max-sessions']) {
      if (!http && v[option] !== undefined) throw new CliError(CliErrorCode.USAGE, `--${option} needs --http (stdio has no address)`);
    }
    if (v.port !== undefined && v.listen !== undefined) throw new CliError(CliErrorCode.USAGE, '--port and --listen: give one (--listen HOST:PORT names both)');
    const options = {
      http,
      listen: typeof v.listen === 'string' ? v.listen : undefined,
      port: wholeNumber(v.port, '--port', 0, 0, 65535),
      tokenVar: typeof v['token-env'] === 'string' ? v['token-env'] : undefined,
      allowedOrigins: origins(v['allow-origin']),
      timeoutMs: v.timeout === undefined ? undefined : wholeNumber(v.timeout, '--timeout', 0, 1, Number.MAX_SAFE_INTEGER),
      maxSessions: wholeNumber(v['max-sessions'], '--max-sessions', DEFAULT_MAX_SESSIONS, 1, Number.MAX_SAFE_INTEGER),
      discover: v.discover === true,
    };
    let serveMcp: typeof import('../mcp/serve.js').serveMcp;
    try {
      ({ serveMcp } = await import('../mcp/serve.js'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String((err as Error).message).includes(SDK)) {
        throw new CliError(CliErrorCode.FAILED, `zot-ext mcp needs the optional package ${SDK}: npm i ${SDK}@^2.4.0 (next to zot-extension-host)`, { cause: err });
      }
      throw err;
    }
    return serveMcp(ctx, options);
  },
};
