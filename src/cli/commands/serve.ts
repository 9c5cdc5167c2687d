import type { OptionValues } from '../args.js';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { checkExecutable, resolveExec } from '../../manifest/exec.js';
import { ManifestDiscovery } from '../../manifest/index.js';
import { redactUrl } from '../../manifest/remote.js';
import { DEFAULT_MAX_FRAME_BYTES } from '../../protocol/limits.js';
import { loadSpawn, spawnChild, spawnProblem } from '../../transport/child.js';
import { detectSandbox, resolveSandbox, sandboxDataDir, sandboxedSpawn, type ManifestSandbox, type SandboxLaunch } from '../../transport/sandbox.js';
import { expectArgs, type Command, type CommandContext } from '../context.js';
import { CliError, CliErrorCode } from '../errors.js';
import { DEFAULT_LISTEN, isLoopback, parseListen, wsUrl } from '../serve/listen.js';
import { ExtensionServer, normalOrigin } from '../serve/server.js';
import { terminalSafe as safe } from '../terminal-safe.js';
import { environmentFor } from '../../host/security.js';
import { SANDBOX_OPTIONS, envAllowFlag, sandboxFlag } from '../sandbox.js';

/** `--max-connections` when not given. */
export const DEFAULT_MAX_CONNECTIONS = 32;
/** `--keepalive` when not given, in ms. */
export const DEFAULT_KEEPALIVE_MS = 30_000;
/** `--handshake-timeout` when not given, in ms: from the TCP connect to the completed upgrade. */
export const DEFAULT_HANDSHAKE_MS = 5000;
/** Grace after SIGTERM before SIGKILL, as the host gives its extensions. */
const KILL_GRACE_MS = 1000;

export const serve: Command = {
  name: 'serve',
  usage: '<dir>',
  summary: 'expose a stdio extension over WebSocket: one extension process per connection',
  description: [
    'Serves the extension in <dir> (any language, unchanged) to hosts on other machines. Each accepted',
    'WebSocket connection gets its own extension process: each text message is one line on its stdin,',
    'each stdout line one text message. The process is ended (stdin EOF, SIGTERM, SIGKILL 1 s later,',
    'its whole process group) when its connection closes; the connection is closed when the process',
    'exits: 1000 for exit code 0, 1011 otherwise, the reason says "exit code N" or "exit signal S".',
    'A binary message closes with 1003, one containing a line feed with 1007, one over 4 MiB (or an',
    'extension line over 4 MiB) with 1009. SIGINT/SIGTERM close every connection with 1001 and end',
    'every process. The first stdout line is "listening ws://HOST:PORT" (the real port for port 0);',
    'connections, exits, closes and the extension\'s stderr (prefixed [name #n]) go to stderr.',
    'ws:// is unencrypted: off loopback, put it behind TLS (wss://) or a tunnel, and use --token-env.',
    'Listening off loopback without --token-env is refused unless --insecure is given. An upgrade',
    'that carries an Origin header (a web page; hosts send none) gets 403 unless --allow-origin lists',
    'it. Unfinished handshakes count against --max-connections (a new connection drops the oldest',
    'one) and are dropped after --handshake-timeout.',
  ].join('\n'),
  options: {
    listen: { type: 'string', value: 'host:port', description: `address to listen on; port 0 picks a free one (default: ${DEFAULT_LISTEN})` },
    'token-env': { type: 'string', value: 'VAR', description: 'require "Authorization: Bearer <value of $VAR>"; others get HTTP 401, no process starts' },
    'max-connections': { type: 'string', value: 'n', description: `connections (processes) open at once; more get HTTP 503 (default: ${DEFAULT_MAX_CONNECTIONS})` },
    keepalive: { type: 'string', value: 'ms', description: `ping interval; a peer silent for a whole interval is dropped, 0 disables (default: ${DEFAULT_KEEPALIVE_MS})` },
    'allow-origin': { type: 'string', value: 'origin', multiple: true, description: 'let web pages of this origin (scheme://host[:port]) connect; others with an Origin get HTTP 403' },
    'handshake-timeout': { type: 'string', value: 'ms', description: `time from connect to a completed upgrade; slower ones are dropped (default: ${DEFAULT_HANDSHAKE_MS})` },
    insecure: { type: 'boolean', description: 'allow listening off loopback without --token-env (anyone who can reach it can start the extension)' },
    ...SANDBOX_OPTIONS,
  },
  async run(ctx) {
    expectArgs(ctx, serve, 1, 1);
    const listen = parseListen(typeof ctx.values.listen === 'string' ? ctx.values.listen : DEFAULT_LISTEN);
    const tokenVar = typeof ctx.values['token-env'] === 'string' ? ctx.values['token-env'] : undefined;
    const token = tokenVar === undefined ? undefined : tokenFrom(ctx, tokenVar);
    const maxConnections = wholeNumber(ctx.values['max-connections'], '--max-connections', DEFAULT_MAX_CONNECTIONS, 1);
    const keepAliveMs = wholeNumber(ctx.values.keepalive, '--keepalive', DEFAULT_KEEPALIVE_MS, 0);
    const handshakeMs = wholeNumber(ctx.values['handshake-timeout'], '--handshake-timeout', DEFAULT_HANDSHAKE_MS, 1);
    const allowedOrigins = origins(ctx.values['allow-origin']);
    const insecure = ctx.values.insecure === true;
    const shownListen = typeof ctx.values.listen === 'string' ? ctx.values.listen : DEFAULT_LISTEN;
    if (!isLoopback(listen.host) && token === undefined && !insecure) {
      throw new CliError(
        CliErrorCode.USAGE,
        `--listen ${shownListen} is not a loopback address: anyone who can reach it could start the extension; add --token-env VAR (clients then need Authorization: Bearer <$VAR>), or --insecure to serve without a token`,
      );
    }
    const ext = await loadExtension(ctx, path.resolve(ctx.io.cwd, ctx.args[0]!));
    // The token is for the server: the extension never sees it.
    forgetToken(ctx, tokenVar);
    const env = ctx.io.env;
    await loadSpawn();
    const log = (line: string) => ctx.err.line(`zot-ext serve: ${line}`);
    if (!isLoopback(listen.host) && token === undefined) {
      log(`${ctx.err.style('yellow', 'warning')}: serving on ${listen.host} without --token-env (--insecure): anyone who can reach it can start the extension`);
    }
    const sandbox = await sandboxFor(ctx, ext, log);
    // Sandboxed, it gets a minimal environment, as the host gives one (security.ts), plus the
    // variables its manifest declares that --env-allow lets through.
    const sandboxEnv = sandbox === undefined ? undefined : environmentFor({ source: env, option: 'minimal', declared: ext.envDeclared, allow: envAllowFlag(ctx) });
    for (const m of sandboxEnv?.missing ?? []) {
      log(`${ctx.err.style('yellow', 'warning')}: ${ext.name} declares ${m.name}: ${m.reason === 'not_allowed' ? 'not passed: a sandboxed extension gets it only with --env-allow' : 'not set in the environment'}`);
    }
    const server = new ExtensionServer({
      host: listen.host,
      port: listen.port,
      name: ext.name,
      dir: ext.dir,
      // Sandboxed, its directory is read-only: its hello_ack's data_dir is its own writable one.
      dataDir: sandbox?.dataDir,
      spawn: async () => {
        const run = sandbox === undefined ? { command: ext.command, args: ext.args, env } : await sandboxedSpawn(sandbox, { command: ext.command, args: ext.args, dir: ext.dir, dataDir: sandbox.dataDir, env: sandboxEnv!.env, name: ext.name });
        return spawnChild({ command: run.command, args: run.args, cwd: ext.dir, env: run.env, stderrFd: 'pipe' });
      },
      token,
      maxConnections,
      handshakeMs,
      allowedOrigins,
      maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
      killGraceMs: KILL_GRACE_MS,
      keepAliveMs,
      log,
      stderr: (line) => ctx.err.line(line),
    });
    if (ctx.signal.aborted) return 0;
    let bound;
    try {
      bound = await server.listen();
    } catch (err) {
      throw new CliError(CliErrorCode.FAILED, `cannot listen on ${wsUrl(listen.host, listen.port)}: ${spawnProblem(err)}`, { cause: err });
    }
    ctx.out.line(`listening ${wsUrl(bound.host, bound.port)}`);
    log(`serving ${safe(ext.name)} from ${ext.dir}: one process per connection, at most ${maxConnections}${token === undefined ? '' : `, bearer token from $${tokenVar}`}`);
    try {
      await new Promise<void>((resolve) => {
        if (ctx.signal.aborted) resolve();
        ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      log(`stopping: closing ${server.connections} connection${server.connections === 1 ? '' : 's'}`);
    } finally {
      await server.stop();
    }
    log('stopped');
    return 0;
  },
};

/** The served extension's sandbox (--sandbox, narrowed by its manifest): undefined when it runs unconfined. */
async function sandboxFor(ctx: CommandContext, ext: Served, log: (line: string) => void): Promise<SandboxLaunch | undefined> {
  const policy = resolveSandbox(sandboxFlag(ctx), ext.sandbox, ctx.cwd);
  if (policy.mode === 'off') return undefined;
  const backend = await detectSandbox(policy.bwrap);
  if (backend.kind !== 'none') {
    const dataDir = sandboxDataDir(ctx.home, ext.name);
    log(`sandbox: ${backend.kind}, network ${policy.network}, writes ${dataDir} and a private /tmp`);
    return { policy, backend, dataDir };
  }
  if (policy.mode === 'required') throw new CliError(CliErrorCode.FAILED, `cannot serve ${ext.name}: its sandbox is required but unavailable: ${backend.reason ?? 'no backend'}`);
  log(`${ctx.err.style('yellow', 'warning')}: ${ext.name} runs unsandboxed (--sandbox auto): ${backend.reason ?? 'no backend'}`);
  return undefined;
}

/** The token `--token-env NAME` names: a usage error when the variable is unset or empty. */
function tokenFrom(ctx: CommandContext, name: string): string {
  const value = ctx.io.env[name];
  if (value === undefined || value === '') {
    throw new CliError(CliErrorCode.USAGE, `--token-env ${name}: $${name} is ${value === undefined ? 'not set' : 'empty'}; set it to the token clients must send (Authorization: Bearer <token>)`);
  }
  return value;
}

/**
 * The token of `zot-ext inspect` and `zot-ext mcp --http`: the value of `--token-env VAR`'s variable
 * (see tokenFrom), else a new random one.
 */
export function serverToken(ctx: CommandContext, tokenVar: string | undefined): string {
  return tokenVar === undefined ? randomBytes(24).toString('base64url') : tokenFrom(ctx, tokenVar);
}

/**
 * Takes `--token-env`'s variable out of the CLI's environment once its value is read: the token is
 * for the server, no extension sees it. In place, not a copy: the CLI's own environment stays the
 * host's source, so its default policy applies (a sandboxed extension gets the minimal one).
 */
export function forgetToken(ctx: CommandContext, tokenVar: string | undefined): void {
  if (tokenVar !== undefined) delete ctx.io.env[tokenVar];
}

/** `--allow-origin` values, each a bare origin, as browsers send them. */
export function origins(value: OptionValues[string]): string[] {
  const given = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  return given.map((o) => {
    const origin = normalOrigin(o);
    if (origin === undefined) {
      throw new CliError(CliErrorCode.USAGE, `--allow-origin ${JSON.stringify(o)} is not an origin; give scheme://host[:port], e.g. https://app.example or http://localhost:3000`);
    }
    return origin;
  });
}

/** A whole-number option: `fallback` when not given; a usage error below `min` or, with `max`, above it. */
export function wholeNumber(value: OptionValues[string], option: string, fallback: number, min: number, max?: number): number {
  if (typeof value !== 'string') return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || (max !== undefined && Number(value) > max)) {
    const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
    throw new CliError(CliErrorCode.USAGE, `${option} needs a whole number ${range}, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

interface Served {
  name: string;
  dir: string;
  command: string;
  args: string[];
  /** Its manifest's `sandbox`. */
  sandbox: ManifestSandbox | undefined;
  /** The variables its manifest declares (`env`). */
  envDeclared: readonly string[];
}

/** The manifest in `dir`, read and checked as a host would before spawning it. */
async function loadExtension(ctx: CommandContext, dir: string): Promise<Served> {
  const discovery = new ManifestDiscovery({ cwd: ctx.cwd, appName: ctx.appName, home: ctx.home, env: ctx.io.env, explicit: [dir], discover: false });
  const { extensions, diagnostics } = await discovery.discover();
  const ext = extensions[0];
  if (ext === undefined) {
    const why = diagnostics.find((d) => d.severity === 'error')?.message ?? `no extension in ${dir}`;
    throw new CliError(CliErrorCode.INVALID, why);
  }
  if (ext.kind !== 'process') throw new CliError(CliErrorCode.INVALID, `${ext.manifestPath}: ${ext.name} has no "exec" (a ${ext.kind} bundle): nothing to serve`);
  if (!ext.enabled) throw new CliError(CliErrorCode.INVALID, `${ext.manifestPath}: ${ext.name} is disabled ("enabled": false); zot-ext enable it first`);
  const exec = ext.manifest.exec;
  if (exec === undefined) {
    const url = ext.manifest.url === undefined ? '' : ` ("url": ${redactUrl(ext.manifest.url)})`;
    throw new CliError(CliErrorCode.INVALID, `${ext.manifestPath}: ${ext.name} is a remote extension${url}, already served over WebSocket; serve the directory of a stdio extension (one with "exec")`);
  }
  const { command, onPath } = resolveExec(exec, ext.dir);
  if (!onPath) {
    const problem = await checkExecutable(command);
    if (problem !== undefined) throw new CliError(CliErrorCode.INVALID, `cannot serve ${ext.name}: ${problem} (exec ${JSON.stringify(exec)} in ${ext.manifestPath})`);
  }
  return { name: ext.name, dir: ext.dir, command, args: [...(ext.manifest.args ?? [])], sandbox: ext.manifest.sandbox, envDeclared: ext.manifest.env ?? [] };
}
