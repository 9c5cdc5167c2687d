/** Temporary extension directories that run bench/children/echo.mjs, for the host and raw alike. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the echo child. */
export const ECHO = fileURLToPath(new URL('./children/echo.mjs', import.meta.url));

export interface EchoOptions {
  /** Tool name to register. @default 'echo' */
  tool?: string | undefined;
  /** Subscribe to intercept tool_call. @default false */
  intercept?: boolean | undefined;
  /** Events to subscribe to. @default [] */
  events?: readonly string[] | undefined;
  /** Register command `flood`, which registers N more (see echo.mjs). @default false */
  flood?: boolean | undefined;
}

export interface EchoExtension {
  name: string;
  /** The tool it registers. */
  tool: string;
  dir: string;
  command: string;
  args: string[];
}

/** A scratch area under os.tmpdir(): extension dirs, a home, a log dir. Remove it with dispose(). */
export class BenchWorkspace {
  readonly root = mkdtempSync(join(tmpdir(), 'zot-bench-'));
  readonly home = join(this.root, 'home');
  readonly logDir = join(this.root, 'logs');
  private seq = 0;

  constructor() {
    mkdirSync(this.home, { recursive: true });
    mkdirSync(this.logDir, { recursive: true });
  }

  /** One extension directory with an extension.json that runs the echo child via node. */
  extension(options: EchoOptions = {}): EchoExtension {
    const name = `echo-${++this.seq}`;
    const dir = join(this.root, 'extensions', name);
    const tool = options.tool ?? 'echo';
    const args = [ECHO, '--name', name, '--tool', tool];
    if (options.intercept === true) args.push('--intercept');
    if (options.flood === true) args.push('--flood');
    if (options.events !== undefined && options.events.length > 0) args.push('--events', options.events.join(','));
    mkdirSync(dir, { recursive: true });
    const manifest = { name, version: '1.0.0', exec: process.execPath, args, language: 'javascript' };
    writeFileSync(join(dir, 'extension.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    return { name, dir, tool, command: process.execPath, args };
  }

  /** `count` extensions; each registers a tool named after itself unless `tool` is given. */
  extensions(count: number, options: EchoOptions = {}): EchoExtension[] {
    const out: EchoExtension[] = [];
    for (let i = 0; i < count; i++) out.push(this.extension({ ...options, tool: options.tool ?? `tool_${this.seq + 1}` }));
    return out;
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
