// Runs the zot-ext CLI as a real process: dist/cli.js when it is built and newer than every source
// file, else src/cli/bin.ts through the tsx loader.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach } from 'vitest';
import { copyFixture, ROOT, tempDir, type ManifestEdit } from '../helpers/fixtures.js';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

function cliCommand(): string[] {
  const dist = path.join(ROOT, 'dist', 'cli.js');
  if (existsSync(dist) && statSync(dist).mtimeMs >= newestMtime(path.join(ROOT, 'src'))) return [dist];
  const loader = pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  return ['--import', loader, path.join(ROOT, 'src', 'cli', 'bin.ts')];
}

export const CLI_ARGS = cliCommand();

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Written to stdin, which is then closed. Without it stdin stays open (until stop()). */
  input?: string | undefined;
  /** @default a neutral directory (the repository root) */
  cwd?: string | undefined;
  env?: Record<string, string | undefined> | undefined;
  /** Hard limit: the process group is SIGKILLed after this. @default 12000 */
  timeoutMs?: number | undefined;
  /** Another program to run (npm, python3, ...) with the arguments, instead of the CLI. */
  program?: string | undefined;
}

const running = new Set<CliProcess>();

/** A running CLI process. */
export class CliProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<CliResult>;
  private readonly child: ChildProcess;
  private readonly timer: NodeJS.Timeout;
  private readonly listeners = new Set<() => void>();

  constructor(args: readonly string[], options: CliOptions = {}) {
    const env: NodeJS.ProcessEnv = { ...process.env, ZOT_HOME: undefined, XDG_STATE_HOME: undefined, NO_COLOR: undefined, ...options.env };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    // Its own process group, so a hard kill reaches everything it runs in that group.
    const [file, argv] = options.program === undefined ? [process.execPath, [...CLI_ARGS, ...args]] : [options.program, args];
    this.child = spawn(file, argv, { cwd: options.cwd ?? ROOT, env, detached: true, stdio: 'pipe' });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
      for (const l of this.listeners) l();
    });
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
      for (const l of this.listeners) l();
    });
    this.child.stdin!.on('error', () => undefined);
    if (options.input !== undefined) this.child.stdin!.end(options.input);
    this.timer = setTimeout(() => this.signal('SIGKILL'), options.timeoutMs ?? 12_000);
    this.exited = new Promise((resolve) => {
      this.child.once('close', (code, signal) => {
        clearTimeout(this.timer);
        running.delete(this);
        resolve({ code, signal, stdout: this.stdout, stderr: this.stderr });
      });
    });
    running.add(this);
  }

  /** Resolves once stdout (or stderr) contains `text`; rejects if the process exits first. */
  waitFor(text: string | RegExp, stream: 'stdout' | 'stderr' = 'stdout'): Promise<void> {
    const has = () => (typeof text === 'string' ? this[stream].includes(text) : text.test(this[stream]));
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!has()) return;
        this.listeners.delete(check);
        resolve();
      };
      this.listeners.add(check);
      check();
      void this.exited.then(() => {
        if (!has()) reject(new Error(`CLI exited before printing ${String(text)}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`));
      });
    });
  }

  /** The CLI's own pid (signal() reaches its whole process group). */
  get pid(): number {
    return this.child.pid!;
  }

  write(text: string): void {
    this.child.stdin!.write(text);
  }

  signal(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.child.pid!, signal);
    } catch {
      // already gone
    }
  }
}

/** Runs the CLI to completion. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return new CliProcess(args, { input: '', ...options }).exited;
}

/** Runs `program args` to completion as runCli runs the CLI: its own process group, a hard timeout. */
export function runProgram(program: string, args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return new CliProcess(args, { input: '', ...options, program }).exited;
}

/** For afterEach: SIGKILLs every CLI process a test left running. */
export async function killRunningClis(): Promise<void> {
  const left = [...running];
  for (const p of left) p.signal('SIGKILL');
  await Promise.all(left.map((p) => p.exited));
}

/** A CLI test's temp tree, fresh for every test (see useCliSandbox). */
export interface CliSandbox {
  /** The temp directory. */
  readonly dir: string;
  /** `<dir>/home`, the `--home` (not created). */
  readonly home: string;
  /** `<dir>/project`, the `--cwd` (created). */
  readonly project: string;
  /** Runs the CLI to completion with `--home <home> --cwd <project>` after `args`. */
  cli(...args: string[]): Promise<CliResult>;
  /** `<home>/extensions/<name>`. */
  globalDir(name: string): string;
  /** `<project>/.zot/extensions/<name>`. */
  projectDir(name: string): string;
  /** A fresh copy of a fixture extension under `<dir>/src`, optionally with a different manifest. */
  source(fixtureName: string, edit?: ManifestEdit): string;
}

/**
 * Gives every test of the file a fresh sandbox (beforeEach); after each test, kills the CLI processes
 * it left running and removes the temp directory.
 */
export function useCliSandbox(prefix: string): CliSandbox {
  let tmp: { dir: string; cleanup: () => void } | undefined;
  let copies = 0;
  const dir = (): string => {
    if (tmp === undefined) throw new Error('the CLI sandbox exists only while a test runs');
    return tmp.dir;
  };
  beforeEach(() => {
    tmp = tempDir(prefix);
    mkdirSync(path.join(tmp.dir, 'project'), { recursive: true });
  });
  afterEach(async () => {
    await killRunningClis();
    tmp?.cleanup();
    tmp = undefined;
  });
  const sandbox: CliSandbox = {
    get dir() {
      return dir();
    },
    get home() {
      return path.join(dir(), 'home');
    },
    get project() {
      return path.join(dir(), 'project');
    },
    cli: (...args) => runCli([...args, '--home', sandbox.home, '--cwd', sandbox.project]),
    globalDir: (name) => path.join(sandbox.home, 'extensions', name),
    projectDir: (name) => path.join(sandbox.project, '.zot', 'extensions', name),
    source: (fixtureName, edit) => copyFixture(fixtureName, path.join(dir(), 'src', `${path.basename(fixtureName)}-${++copies}`), edit),
  };
  return sandbox;
}
