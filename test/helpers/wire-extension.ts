// An in-memory extension that speaks raw NDJSON and records every line the host writes to it, byte for
// byte: for tests of what exactly reaches an extension (capability gating, added fields).
import { PassThrough, type Readable } from 'node:stream';
import { afterAll, afterEach } from 'vitest';
import { ExtensionHost, type ExtensionHostOptions, type InMemoryExtension } from '../../src/index.js';
import { tempDir } from './fixtures.js';

/** Calls `fn` with each LF-terminated line of `input` (UTF-8), without its LF. */
export function onLines(input: Readable, fn: (line: string) => void): void {
  let pending = '';
  input.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    let nl: number;
    while ((nl = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      fn(line);
    }
  });
}

/**
 * Hosts over in-memory extensions, one per test, in a temp dir: `start()` makes and starts one (with
 * `cwd` and `home` the temp dir, discovery off); each is stopped after its test, the dir at the end.
 */
export function memoryHosts(prefix: string): { dir: string; start: (options: ExtensionHostOptions) => Promise<ExtensionHost> } {
  const temp = tempDir(prefix);
  let host: ExtensionHost | undefined;
  afterEach(async () => {
    await host?.stop();
    host = undefined;
  });
  afterAll(() => temp.cleanup());
  return {
    dir: temp.dir,
    async start(options) {
      host = new ExtensionHost({ cwd: temp.dir, home: temp.dir, discover: false, ...options });
      await host.start();
      return host;
    },
  };
}

export type WireFrame = Record<string, unknown> & { type: string };

export interface WireExtensionOptions {
  /** hello.capabilities; left out of hello when undefined. */
  capabilities?: readonly string[] | undefined;
  /** Frames sent after hello_ack, before `ready` (registrations, subscribe). */
  setup?: readonly WireFrame[] | undefined;
  /** The answer to a host frame (a tool_call, ...), or nothing. */
  answer?: ((frame: WireFrame) => WireFrame | readonly WireFrame[] | undefined) | undefined;
}

export interface WireExtension extends InMemoryExtension {
  /** Every line the host wrote, without its LF, in order. */
  readonly lines: string[];
  /** The lines parsed. */
  frames(type?: string): WireFrame[];
  /** Sends a frame as the extension. */
  send(frame: WireFrame): void;
}

export function wireExtension(name: string, options: WireExtensionOptions = {}): WireExtension {
  const lines: string[] = [];
  let output: PassThrough | undefined;
  const send = (frame: WireFrame) => {
    if (output !== undefined && !output.destroyed && !output.writableEnded) output.write(`${JSON.stringify(frame)}\n`);
  };
  return {
    name,
    lines,
    frames: (type) => lines.map((line) => JSON.parse(line) as WireFrame).filter((f) => type === undefined || f.type === type),
    send,
    connect() {
      const input = new PassThrough();
      output = new PassThrough();
      onLines(input, (line) => {
        lines.push(line);
        const frame = JSON.parse(line) as WireFrame;
        if (frame.type === 'hello_ack') {
          for (const f of options.setup ?? []) send(f);
          send({ type: 'ready' });
        } else if (frame.type === 'shutdown') {
          send({ type: 'shutdown_ack' });
          output?.end();
        } else {
          const reply = options.answer?.(frame);
          for (const f of reply === undefined ? [] : Array.isArray(reply) ? reply : [reply as WireFrame]) send(f);
        }
      });
      const hello: WireFrame = { type: 'hello', name, version: '1.0.0' };
      if (options.capabilities !== undefined) hello.capabilities = [...options.capabilities];
      send(hello);
      return { input, output, close: () => output?.end() };
    },
  };
}
