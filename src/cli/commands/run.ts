import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { OptionValues } from '../args.js';
import { emitKeypressEvents, createInterface, type Interface } from 'node:readline';
import { PassThrough } from 'node:stream';
import type { ExtensionHost } from '../../host/host.js';
import type { FrameTapEntry, StartReport } from '../../host/types.js';
import type { Command, CommandContext } from '../context.js';
import { SANDBOX_OPTIONS, sandboxText } from '../sandbox.js';
import { TRUST_OPTIONS, createHost, explicitPaths, isUntrusted, trustText, untrustedHint } from '../create-host.js';
import { CliError, CliErrorCode } from '../errors.js';
import { RunConsole, RUN_HELP } from '../run/console.js';
import { toPanelInput, type Keypress } from '../run/keys.js';
import { Screen } from '../run/screen.js';
import { oneLine, terminalSafe as safe } from '../terminal-safe.js';
import { isDiscoveryDiagnostic, noHelloYet } from '../start-problems.js';

const ESCAPE_MS = 50;

export const run: Command = {
  name: 'run',
  usage: '[paths...]',
  summary: 'try extensions without a model: run commands and tools, emit events, ask interceptors',
  description: [
    'Loads the given extension directories (default: the installed ones, as an agent would), then',
    'reads input lines until EOF or :quit:',
    '',
    RUN_HELP.replace(/^/gm, '  '),
    '',
    'Piped (not a TTY), every line runs in order and panels print every frame; use :key and :close',
    'to drive them. An interactive tool\'s line ends when the panel it opens shows, so that the next',
    'lines can drive that panel; its result prints when it answers. On a TTY, arrow keys, Enter, Tab',
    'and typed characters go to the focused panel; Esc or Ctrl+C closes it, as in zot. Ctrl+C while a call runs aborts it; at the prompt, exits.',
    'Exit code 1 when an extension failed to load (or a path does not exist) or, piped, an input',
    'line failed. --json prints one JSON object per line on stdout, each with a "type" (see',
    'docs/cli.md); load results stay text on stderr.',
    'Project extensions (<cwd>/.zot/extensions) came with the repository: on a terminal run asks',
    'before it starts each one (y = this once, a = always in this project, n = no); otherwise only',
    'those trusted "always" start, unless --trust. --no-project skips them.',
  ].join('\n'),
  options: {
    discover: { type: 'boolean', description: 'with paths: load the installed extensions too' },
    timeout: { type: 'string', value: 'ms', description: 'deadline of each /command and !tool call (default: 30000 and 60000)' },
    json: { type: 'boolean', description: 'print one JSON object per result on stdout (lines are read as when piped)' },
    trace: { type: 'boolean', description: 'every line between the host and the extensions, timestamped, on stderr' },
    'trace-file': { type: 'string', value: 'path', description: 'the same, appended to a file' },
    ...SANDBOX_OPTIONS,
    ...TRUST_OPTIONS,
  },
  async run(ctx) {
    const explicit = explicitPaths(ctx);
    const timeoutMs = callTimeout(ctx.values.timeout);
    const json = ctx.values.json === true;
    // --json is for programs: no prompt, no redraws, lines read as from a pipe.
    const tty = !json && ctx.io.stdin.isTTY === true && ctx.io.stdout.isTTY === true;
    const screen = new Screen(ctx.out, ctx.err, tty);
    const repl = new RunConsole(screen, { callTimeoutMs: timeoutMs, json });
    const trace = traceSink(ctx);
    const host = createHost(ctx, { explicit, discover: explicit.length === 0 || ctx.values.discover === true, callbacks: repl.callbacks, frameTap: trace?.tap, ask: !json });
    repl.attach(host);
    try {
      const report = await host.start();
      const loadFailed = printLoaded(ctx, host, report);
      if (!ctx.signal.aborted) await (tty ? interactive(ctx, repl, screen) : piped(ctx, repl));
      // A script of lines is a test (a failed line fails it); at a terminal, a typo was answered already.
      return loadFailed || (!tty && repl.failures > 0) ? 1 : 0;
    } finally {
      screen.close();
      await host.stop();
      trace?.close();
    }
  },
};

/**
 * `--trace` / `--trace-file <path>`: one line per frame, `<ISO time> <extension> -> <line>` (to it)
 * or `<-` (from it), made one terminal-safe line (oneLine) so a frame cannot forge output.
 */
function traceSink(ctx: CommandContext): { tap: (frame: FrameTapEntry) => void; close(): void } | undefined {
  const file = ctx.values['trace-file'];
  if (ctx.values.trace !== true && typeof file !== 'string') return undefined;
  const format = (f: FrameTapEntry) => `${new Date(f.at).toISOString()} ${f.extension} ${f.direction === 'out' ? '->' : '<-'} ${oneLine(f.line)}\n`;
  if (typeof file !== 'string') return { tap: (f) => ctx.io.stderr.write(format(f)), close: () => undefined };
  let fd: number;
  try {
    fd = openSync(path.resolve(ctx.io.cwd, file), 'a');
  } catch (err) {
    throw new CliError(CliErrorCode.USAGE, `--trace-file: cannot open ${file}: ${(err as Error).message}`);
  }
  return {
    tap: (f) => writeSync(fd, format(f)),
    close: () => closeSync(fd),
  };
}

function callTimeout(value: OptionValues[string]): number | undefined {
  if (typeof value !== 'string') return undefined;
  if (!/^\d+$/.test(value) || Number(value) === 0) {
    throw new CliError(CliErrorCode.USAGE, `--timeout needs a whole number of milliseconds above 0, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/** Prints what loaded and what did not; true when an extension failed to load (or a path was bad). `command` names the CLI command in the hint. */
export function printLoaded(ctx: CommandContext, host: ExtensionHost, report: StartReport, command = 'run'): boolean {
  const { err } = ctx;
  for (const info of host.extensions()) {
    if (info.state !== 'ready') continue;
    const commands = info.commands.filter((c) => c.active).map((c) => `/${c.name}`);
    const tools = info.tools.filter((t) => t.active).map((t) => (t.deferred ? `${t.name} (deferred)` : t.name));
    const { events, intercept } = info.subscriptions;
    const parts = [
      ...(commands.length > 0 ? [commands.join(' ')] : []),
      ...(tools.length > 0 ? [`tools: ${tools.join(', ')}`] : []),
      ...(events.length > 0 ? [`events: ${events.join(', ')}`] : []),
      ...(intercept.length > 0 ? [`intercepts: ${intercept.join(', ')}`] : []),
    ];
    const trust = info.trust === 'once' || info.trust === 'always' ? `, ${trustText(info)}` : '';
    err.line(`${err.style('green', 'loaded')} ${safe(`${info.name}${info.version === undefined ? '' : ` ${info.version}`} (${info.source}${trust})${parts.length > 0 ? `: ${parts.join('; ')}` : ''}`)}`);
    if (info.sandbox.mode !== 'off') err.line(`    sandbox: ${safe(sandboxText(info.sandbox))}`);
    // Its start-time warnings (a refused tool name, garbage on stdout), as doctor shows them.
    for (const d of report.diagnostics) {
      if (d.severity === 'warning' && d.extension === info.name && !isDiscoveryDiagnostic(d)) err.line(`    ${err.style('yellow', 'warning')}: ${oneLine(d.message)}`);
    }
  }
  // An explicit path that never started (no logPath) is printed with the error diagnostics below.
  for (const f of report.failed) if (f.logPath !== undefined) err.line(`${err.style('red', 'failed')} ${safe(`${f.name}: ${f.error.message}`)}`);
  // Project extensions the trust option kept out: not a failure (nothing of them ran).
  const untrusted = report.failed.filter(isUntrusted);
  for (const f of untrusted) err.line(`${err.style('yellow', 'untrusted')} ${safe(`${f.name} (${f.source}): not started: ${untrustedHint(ctx)}`)}`);
  // No hello within the hello timeout: start() went on without them (they may join later).
  for (const s of report.starting) {
    const info = host.extensions().find((i) => i.name === s.name && i.source === s.source);
    const head = `${s.name}${info?.version === undefined ? '' : ` ${info.version}`} (${s.source})`;
    err.line(`${err.style('yellow', 'starting')} ${safe(`${head}: ${noHelloYet(report.ms)}; it may still join; log: ${s.logPath}`)}`);
  }
  // Error diagnostics are extensions that never got to start (a missing path, a broken manifest).
  const errors = report.diagnostics.filter((d) => d.severity === 'error');
  for (const d of errors) err.line(`${err.style('red', 'error')}: ${safe(d.message)}`);
  const ready = new Set(host.extensions().filter((i) => i.state === 'ready').map((i) => i.name));
  for (const d of report.diagnostics) {
    if (d.severity === 'warning' && (isDiscoveryDiagnostic(d) || d.extension === undefined || !ready.has(d.extension))) err.line(`${err.style('yellow', 'warning')}: ${oneLine(d.message)}`);
  }
  if (host.extensions().length === 0) err.line(`no extensions loaded; give extension directories: zot-ext ${command} ./my-extension`);
  return report.failed.length > untrusted.length || report.starting.length > 0 || errors.length > 0;
}

/** Lines from a pipe or file, one at a time, until EOF, :quit or a signal. */
async function piped(ctx: CommandContext, repl: RunConsole): Promise<void> {
  const rl = createInterface({ input: ctx.io.stdin, terminal: false, crlfDelay: Infinity });
  const stop = () => {
    repl.abortRunning();
    rl.close();
  };
  ctx.signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const line of rl) {
      await repl.handle(line);
      if (repl.quit || ctx.signal.aborted) break;
    }
    // An interactive tool still waiting for the user: its result (or its failure at stop) prints.
    await repl.settleWaiting();
  } finally {
    ctx.signal.removeEventListener('abort', stop);
    rl.close();
  }
}

/**
 * A prompt on a TTY. Raw stdin is split: keys go to the focused panel when there is one, else the
 * bytes feed the readline prompt (through a PassThrough, so readline never sees panel keys).
 */
async function interactive(ctx: CommandContext, repl: RunConsole, screen: Screen): Promise<void> {
  const stdin = ctx.io.stdin;
  const proxy = new PassThrough();
  const rl: Interface = createInterface({ input: proxy, output: ctx.io.stdout, terminal: true, prompt: 'zot-ext> ' });
  let busy = false;
  // Node 24 throws ERR_USE_AFTER_CLOSE for a prompt after close (a call that ends after Ctrl+C).
  let closed = false;
  rl.once('close', () => (closed = true));
  screen.onBeforePrint = () => {
    if (busy || repl.focused !== undefined) return;
    ctx.io.stdout.write('\r\x1b[2K');
  };
  screen.onAfterPrint = () => {
    if (!closed && !busy && repl.focused === undefined) rl.prompt(true);
  };
  repl.onFocusChange = () => {
    if (!closed && !busy && repl.focused === undefined) rl.prompt();
  };

  // One routing decision per chunk: a key that closes the panel must not also reach the prompt.
  const keys = new PassThrough();
  const route = (chunk: Buffer | string) => (repl.focused !== undefined ? keys : proxy).write(chunk);
  const onKey = (str: string | undefined, key: Keypress | undefined) => {
    const input = toPanelInput(str, key);
    if (input === undefined || repl.focused === undefined) return;
    if ('close' in input) repl.closeFocused();
    else void repl.key(input.key, input.text);
  };
  // The second argument carries the wait before a lone ESC counts as the Esc key (without it,
  // Node 20 never emits a lone ESC).
  emitKeypressEvents(keys, { escapeCodeTimeout: ESCAPE_MS } as unknown as Interface);
  keys.on('keypress', onKey);
  stdin.setRawMode?.(true);
  stdin.on('data', route);
  stdin.resume();
  screen.print(`type :help for the input lines; Ctrl+D or :quit to exit`);
  rl.prompt();

  let queue = Promise.resolve();
  let done = () => {};
  let interrupted = false;
  // Exit without waiting for the running call (stopping the host fails it).
  let forced = false;
  try {
    await new Promise<void>((resolve) => {
      done = () => resolve();
      ctx.signal.addEventListener('abort', done, { once: true });
      rl.on('close', done);
      // Ctrl+C while a call runs aborts it; a second one (or one at the prompt) exits.
      rl.on('SIGINT', () => {
        if (!interrupted && repl.abortRunning()) {
          interrupted = true;
          screen.error('aborting the running call; Ctrl+C again exits');
          return;
        }
        forced = busy;
        rl.close();
      });
      rl.on('line', (line) => {
        queue = queue.then(async () => {
          busy = true;
          try {
            await repl.handle(line);
          } finally {
            busy = false;
            interrupted = false;
          }
          if (repl.quit) return rl.close();
          if (!closed && repl.focused === undefined) rl.prompt();
        });
      });
    });
    if (!ctx.signal.aborted && !forced) await queue;
  } finally {
    ctx.signal.removeEventListener('abort', done);
    keys.off('keypress', onKey);
    stdin.off('data', route);
    stdin.setRawMode?.(false);
    stdin.pause();
    rl.close();
    ctx.io.stdout.write('\n');
  }
}
