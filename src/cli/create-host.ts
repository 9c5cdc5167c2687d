import path from 'node:path';
import { createInterface } from 'node:readline';
import { ErrorCode } from '../errors.js';
import { ExtensionHost } from '../host/host.js';
import type { ExtensionInfo, FailedReport, FrameTapEntry, HostCallbacks, TrustDecision, TrustOption, TrustRequest } from '../host/types.js';
import { looksLikeUrl } from '../manifest/remote.js';
import type { OptionSpecs } from './args.js';
import type { CommandContext } from './context.js';
import { envAllowFlag, sandboxFlag } from './sandbox.js';
import { CliError, CliErrorCode } from './errors.js';
import { terminalSafe as safe } from './terminal-safe.js';

/** Explicit extension paths from the command line, resolved against the directory the user typed them in; URLs (remote extensions) as given. */
export function explicitPaths(ctx: CommandContext): string[] {
  return ctx.args.map((p) => (looksLikeUrl(p) ? p : path.resolve(ctx.io.cwd, p)));
}

/** The workspace trust options of every command that starts the installed extensions (run, doctor, inspect, mcp). */
export const TRUST_OPTIONS = {
  trust: { type: 'boolean', description: "start the project's extensions (<cwd>/.zot/extensions) for this run without asking" },
  'no-project': { type: 'boolean', description: "do not start the project's extensions" },
} as const satisfies OptionSpecs;

/** How long a person at the terminal has to answer a trust question. */
const ASK_MS = 10 * 60_000;

/**
 * A host configured from the global options, as an agent would run it. Project extensions (code
 * that came with the repository) start with `--trust`, never with `--no-project`; else a stored
 * 'always' lets them start, and `ask` (a terminal on stdin and stderr) asks about the others.
 */
export function createHost(
  ctx: CommandContext,
  options: {
    explicit: readonly string[];
    discover: boolean;
    callbacks?: HostCallbacks | undefined;
    frameTap?: ((frame: FrameTapEntry) => void) | undefined;
    /** Tool names the agent owns. @default the host's (read, write, edit, bash, skill) */
    builtinTools?: readonly string[] | undefined;
    /** Ask trust questions on a terminal. @default true */
    ask?: boolean | undefined;
  },
): ExtensionHost {
  const trust = trustOption(ctx, options.ask ?? true);
  const sandbox = sandboxFlag(ctx);
  const envAllow = envAllowFlag(ctx);
  return new ExtensionHost({
    cwd: ctx.cwd,
    appName: ctx.appName,
    home: ctx.home,
    explicit: options.explicit,
    discover: options.discover,
    // The process's own environment is the host's default source: then its default policy applies
    // (all of it, but only a minimal one to an extension that runs sandboxed, plus what --env-allow
    // lets a manifest ask for). An environment given to the CLI (tests) is passed as it is.
    ...(ctx.io.env === process.env ? {} : { env: ctx.io.env }),
    ...(envAllow === undefined ? {} : { envAllow }),
    callbacks: options.callbacks,
    // --sandbox (run, doctor, inspect, mcp): every extension, as the option's host-wide mode.
    ...(sandbox === undefined ? {} : { sandbox }),
    trust,
    ...(typeof trust === 'function' ? { timeouts: { trust: ASK_MS } } : {}),
    ...(options.frameTap === undefined ? {} : { frameTap: options.frameTap }),
    ...(options.builtinTools === undefined ? {} : { builtinTools: options.builtinTools }),
  });
}

/** Whether this command asks trust questions: stdin and stderr are a terminal, and `ask` (run --json reads stdin as data). */
function asks(ctx: CommandContext, ask: boolean): boolean {
  return ask && ctx.io.stdin.isTTY === true && ctx.io.stderr.isTTY === true;
}

function trustOption(ctx: CommandContext, ask: boolean): TrustOption {
  const { trust, 'no-project': noProject } = ctx.values;
  if (trust === true && noProject === true) throw new CliError(CliErrorCode.USAGE, '--trust and --no-project contradict each other; give one');
  if (trust === true) return 'all';
  if (noProject === true) return 'none';
  // Not on a terminal: only a stored 'always' (checked by the host before it asks) lets one start.
  return asks(ctx, ask) ? (request) => askOnTerminal(ctx, request) : () => 'deny';
}

/** One trust question on stderr, answered by a line on stdin: y = once, a = always, anything else = deny. */
async function askOnTerminal(ctx: CommandContext, request: TrustRequest): Promise<TrustDecision> {
  const { err } = ctx;
  const runs = request.exec !== undefined ? [request.exec.command, ...request.exec.args].join(' ') : `a remote extension at ${request.url ?? '?'}`;
  const permissions = request.permissions === undefined ? 'none declared (it may do everything)' : request.permissions.length === 0 ? '(none)' : request.permissions.join(', ');
  err.line(`${err.style('yellow', 'trust')}: ${safe(`project extension ${request.name} ${request.changed ? 'changed since it was trusted' : 'is not trusted yet'}: it came with the project, and runs with your rights`)}`);
  err.line(`    dir: ${safe(request.dir)}`);
  err.line(`    runs: ${safe(runs)}`);
  err.line(`    permissions: ${safe(permissions)}`);
  err.line(`    ${request.hash}`);
  const signal = AbortSignal.any([request.signal, ctx.signal]);
  if (signal.aborted) return 'deny';
  const rl = createInterface({ input: ctx.io.stdin, terminal: false });
  try {
    const answer = await new Promise<string>((resolve) => {
      const done = () => resolve('');
      rl.once('close', done);
      signal.addEventListener('abort', done, { once: true });
      ctx.io.stderr.write(`start ${safe(request.name)}? [y] this once, [a] always in this project, [N] no: `);
      rl.once('line', (line) => {
        signal.removeEventListener('abort', done);
        resolve(line);
      });
    });
    const decision: TrustDecision = /^\s*(y|yes)\s*$/i.test(answer) ? 'once' : /^\s*(a|always)\s*$/i.test(answer) ? 'always' : 'deny';
    if (decision === 'deny' && signal.aborted) ctx.io.stderr.write('\n');
    return decision;
  } finally {
    rl.close();
  }
}

/** A project extension the trust option kept from starting. */
export function isUntrusted(failed: FailedReport): boolean {
  return failed.error.code === ErrorCode.UNTRUSTED;
}

/** Why the project extensions were not started, and how to start them. */
export function untrustedHint(ctx: CommandContext): string {
  if (ctx.values['no-project'] === true) return 'project extensions are skipped (--no-project)';
  return 'not trusted; pass --trust to start the project\'s extensions for this run (or answer "a" on a terminal to remember it for this project)';
}

/** Trust of an extension as `doctor` and `run` show it; undefined when not a project extension. */
export function trustText(info: Pick<ExtensionInfo, 'trust'>): string | undefined {
  switch (info.trust) {
    case 'all':
      return 'allowed for this run (--trust)';
    case 'once':
      return 'allowed this once';
    case 'always':
      return 'always allowed in this project';
    case 'denied':
      return 'not trusted, not started';
    default:
      return undefined;
  }
}
