import { spawn } from 'node:child_process';
import type { Command, CommandContext } from '../context.js';
import { TRUST_OPTIONS, createHost, explicitPaths } from '../create-host.js';
import { CliError, CliErrorCode } from '../errors.js';
import { InspectorServer, assetsDir } from '../inspect/server.js';
import { SANDBOX_OPTIONS } from '../sandbox.js';
import { InspectorSession } from '../inspect/session.js';
import { DEFAULT_LISTEN, isLoopback, parseListen, urlHost } from '../serve/listen.js';
import { forgetToken, serverToken } from './serve.js';
import { printLoaded } from './run.js';

export const inspect: Command = {
  name: 'inspect',
  usage: '[paths...]',
  summary: 'a browser page to try extensions: forms for tools, panels, the wire, the intercept chain',
  description: [
    'Loads the given extension directories (default: the installed ones, as run does) and serves a',
    'page on 127.0.0.1 (a free port) that shows them live: state, pid, permissions and log of each',
    'extension with restart and reload; commands and tools with forms made from their JSON Schema,',
    'calls with progress, cancel and results; panels driven from the keyboard; notes, submits and',
    'prompts; every frame both ways (filter, request/response latency, NDJSON export); the intercept',
    'chain (tool_call, turn_start, assistant_message, system prompt) step by step; diagnostics.',
    'The first stdout line is "inspector http://HOST:PORT/?token=TOKEN": the token is new each run',
    'and every request without it, with a foreign Origin or another Host header is refused.',
    '--open opens it in the default browser. Ctrl+C stops the server and every extension.',
    'Listening off loopback needs --token-env (the token is then the value of that variable).',
  ].join('\n'),
  options: {
    discover: { type: 'boolean', description: 'with paths: load the installed extensions too' },
    open: { type: 'boolean', description: 'open the page in the default browser' },
    listen: { type: 'string', value: 'host:port', description: `address to listen on; port 0 picks a free one (default: ${DEFAULT_LISTEN})` },
    'token-env': { type: 'string', value: 'VAR', description: 'use the value of $VAR as the token (needed off loopback) instead of a random one' },
    ...SANDBOX_OPTIONS,
    ...TRUST_OPTIONS,
  },
  async run(ctx) {
    const explicit = explicitPaths(ctx);
    const shownListen = typeof ctx.values.listen === 'string' ? ctx.values.listen : DEFAULT_LISTEN;
    const listen = parseListen(shownListen);
    const tokenVar = typeof ctx.values['token-env'] === 'string' ? ctx.values['token-env'] : undefined;
    if (!isLoopback(listen.host) && tokenVar === undefined) {
      throw new CliError(CliErrorCode.USAGE, `--listen ${shownListen} is not a loopback address: the page runs tools and commands; add --token-env VAR to require the token in $VAR`);
    }
    const token = serverToken(ctx, tokenVar);
    const assets = assetsDir();
    if (assets === undefined) throw new CliError(CliErrorCode.FAILED, 'the inspector page is not built (dist/inspector is missing): run npm run build');

    const session = new InspectorSession();
    // The token is for the server: no extension sees it.
    forgetToken(ctx, tokenVar);
    const host = createHost(ctx, { explicit, discover: explicit.length === 0 || ctx.values.discover === true, callbacks: session.callbacks, frameTap: session.frameTap });
    session.attach(host);
    const server = new InspectorServer({ host: listen.host, port: listen.port, token, session, assets });
    try {
      const report = await host.start();
      printLoaded(ctx, host, report, 'inspect');
      if (ctx.signal.aborted) return 0;
      let bound;
      try {
        bound = await server.listen();
      } catch (err) {
        throw new CliError(CliErrorCode.FAILED, `cannot listen on ${shownListen}: ${(err as Error).message}`, { cause: err });
      }
      const url = `http://${urlHost(bound.host)}:${bound.port}/?token=${encodeURIComponent(token)}`;
      ctx.out.line(`inspector ${url}`);
      ctx.err.line(`zot-ext inspect: open the URL above in a browser${ctx.values.open === true ? ' (opening it)' : ''}; Ctrl+C stops`);
      if (ctx.values.open === true) openBrowser(ctx, url);
      await new Promise<void>((resolve) => {
        if (ctx.signal.aborted) resolve();
        ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      return 0;
    } finally {
      session.close();
      await server.stop();
      await host.stop();
    }
  },
};

/** The platform's "open this URL" program, detached; a failure is a line on stderr. */
function openBrowser(ctx: CommandContext, url: string): void {
  const [command, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(command, args as string[], { detached: true, stdio: 'ignore', env: ctx.io.env });
    child.on('error', (err) => ctx.err.line(`zot-ext inspect: cannot open a browser (${command}: ${err.message}); open the URL by hand`));
    child.unref();
  } catch (err) {
    ctx.err.line(`zot-ext inspect: cannot open a browser: ${(err as Error).message}`);
  }
}
