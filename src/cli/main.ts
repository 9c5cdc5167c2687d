import { VERSION } from '../version.js';
import { GLOBAL_OPTIONS, findCommand, parse } from './args.js';
import { doctor } from './commands/doctor.js';
import { inspect } from './commands/inspect.js';
import { install } from './commands/install.js';
import { list } from './commands/list.js';
import { logs } from './commands/logs.js';
import { mcp } from './commands/mcp.js';
import { create } from './commands/new.js';
import { disable, enable, remove } from './commands/manage.js';
import { run } from './commands/run.js';
import { serve } from './commands/serve.js';
import { update } from './commands/update.js';
import { createContext, expectDirectory, type Command } from './context.js';
import { CliError, CliErrorCode, ExitCode } from './errors.js';
import { commandHelp, mainHelp } from './help.js';
import { Output, useColour, type CliIo } from './output.js';
import { terminalSafe as safe } from './terminal-safe.js';

const COMMANDS: readonly Command[] = [list, doctor, install, update, remove, enable, disable, logs, run, inspect, serve, mcp, create];

/**
 * The `zot-ext` command line. Returns the exit code: 0 ok, 1 an extension or the command failed,
 * 2 usage error. Errors print as one line on stderr (with the stack under `--debug`).
 * @param argv the arguments after the program name
 * @param io streams, environment and working directory @default the process's own
 */
export async function main(argv: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  const full: CliIo = {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    stdin: io.stdin ?? process.stdin,
    env: io.env ?? process.env,
    cwd: io.cwd ?? process.cwd(),
    signal: io.signal,
  };
  const err = new Output(full.stderr, useColour(full.stderr, full.env));
  const debug = argv.includes('--debug');
  try {
    const name = findCommand(argv);
    if (name === undefined) {
      const { values } = parse(argv, { ...GLOBAL_OPTIONS, version: { type: 'boolean', short: 'v', description: '' } }, undefined);
      if (values.version === true) {
        full.stdout.write(`${VERSION}\n`);
        return ExitCode.OK;
      }
      full.stdout.write(`${mainHelp(COMMANDS)}\n`);
      return values.help === true ? ExitCode.OK : ExitCode.USAGE;
    }
    if (name === 'help') {
      const topic = COMMANDS.find((c) => c.name === argv[argv.indexOf('help') + 1]);
      full.stdout.write(`${topic === undefined ? mainHelp(COMMANDS) : commandHelp(topic)}\n`);
      return ExitCode.OK;
    }
    const command = COMMANDS.find((c) => c.name === name);
    if (command === undefined) {
      throw new CliError(CliErrorCode.USAGE, `unknown command ${JSON.stringify(name)}; commands: ${COMMANDS.map((c) => c.name).join(', ')} (see zot-ext --help)`);
    }
    const { values, positionals } = parse(argv, { ...GLOBAL_OPTIONS, ...command.options }, command.name);
    if (values.help === true) {
      full.stdout.write(`${commandHelp(command)}\n`);
      return ExitCode.OK;
    }
    const args = positionals.slice(positionals.indexOf(name) + 1);
    const signal = full.signal ?? new AbortController().signal;
    const ctx = createContext(full, values, args, signal);
    if (typeof values.cwd === 'string') await expectDirectory('--cwd', ctx.cwd, 'give the project directory');
    return await command.run(ctx);
  } catch (error) {
    if (error instanceof CliError) {
      err.line(`zot-ext: ${err.style('red', 'error')}: ${safe(error.message)}`);
      if (debug && error.cause instanceof Error) err.line(error.cause.stack ?? String(error.cause));
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    err.line(`zot-ext: ${err.style('red', 'error')}: ${safe(message)}${debug ? '' : ' (run with --debug for details)'}`);
    if (debug && error instanceof Error) err.line(error.stack ?? '');
    return ExitCode.FAILED;
  }
}
