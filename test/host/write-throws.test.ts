// An in-memory extension whose input's write() throws: to the embedder that is a crash of that one
// extension (a typed error for the call, one STDIN_WRITE_FAILED diagnostic naming it and its log,
// the restart policy), never an unhandled rejection, and the other extensions go on.
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import { ErrorCode, ExtensionHost, type HostDiagnostic, type InMemoryExtension } from '../../src/index.js';
import { tempDir } from '../helpers/fixtures.js';
import { MEMORY_WAIT_MS, nextEvent } from '../helpers/wait.js';

const temp = tempDir('zot-write-throws-');
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
let host: ExtensionHost | undefined;

beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});

afterEach(async () => {
  process.off('unhandledRejection', onUnhandled);
  await host?.stop();
  host = undefined;
});

afterAll(() => temp.cleanup());

/** Registers tool `<name>_tool` and answers its calls; `throwing()` says whether this start's input throws on a tool_call. */
function extension(name: string, throwing: () => boolean): InMemoryExtension {
  return {
    name,
    connect() {
      const input = new PassThrough();
      const output = new PassThrough();
      const throws = throwing();
      const write = (frame: object) => {
        if (!output.destroyed) output.write(`${JSON.stringify(frame)}\n`);
      };
      const inputWrite = input.write.bind(input) as (...args: unknown[]) => boolean;
      input.write = ((chunk: unknown, ...rest: unknown[]) => {
        if (throws && String(chunk).includes('"tool_call"')) throw new Error('input gone');
        return inputWrite(chunk, ...rest);
      }) as typeof input.write;
      let pending = '';
      input.on('data', (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        let nl: number;
        while ((nl = pending.indexOf('\n')) !== -1) {
          const frame = JSON.parse(pending.slice(0, nl)) as { type: string; id?: string };
          pending = pending.slice(nl + 1);
          if (frame.type === 'hello_ack') {
            write({ type: 'register_tool', name: `${name}_tool`, schema: { type: 'object' } });
            write({ type: 'ready' });
          } else if (frame.type === 'tool_call') {
            write({ type: 'tool_result', id: frame.id, content: [{ type: 'text', text: `${name} ok` }] });
          } else if (frame.type === 'shutdown') {
            write({ type: 'shutdown_ack' });
            output.end();
          }
        }
      });
      write({ type: 'hello', name, version: '1.0.0' });
      return { input, output, close: () => output.end() };
    },
  };
}

it('a throwing write fails the call at once (an error result with PROCESS_EXITED), reports STDIN_WRITE_FAILED naming the extension and its log, restarts it under the policy, and leaves the others alone', async () => {
  let starts = 0;
  const diagnostics: HostDiagnostic[] = [];
  host = new ExtensionHost({
    cwd: temp.dir,
    home: temp.dir,
    discover: false,
    inMemory: [extension('thrower', () => ++starts === 1), extension('steady', () => false)],
    restart: { maxRestarts: 1, backoffMs: [1] },
    timeouts: { tool: 60_000 },
  });
  host.on('diagnostic', (d) => diagnostics.push(d));
  await host.start();
  const restarted = nextEvent(host, 'extension:state', (c) => c.name === 'thrower' && c.state === 'ready' && c.restarts === 1, MEMORY_WAIT_MS);
  // Both calls in one tick: their writes go out in one pass at its end.
  const failed = host.callTool('thrower_tool', {});
  const steady = host.callTool('steady_tool', {});
  const result = await failed;
  const logPath = host.extensions().find((e) => e.name === 'thrower')!.logPath;
  const message = `thrower: tool_call could not be written: input gone; see ${logPath}`;
  expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: message }], failure: { code: ErrorCode.PROCESS_EXITED, extension: 'thrower', logPath } });
  expect(await steady).toMatchObject({ content: [{ type: 'text', text: 'steady ok' }] });
  const lost = diagnostics.filter((d) => d.code === 'STDIN_WRITE_FAILED');
  expect(lost).toHaveLength(1);
  expect(lost[0]).toMatchObject({ extension: 'thrower', logPath, severity: 'error' });
  expect(lost[0]!.message).toContain(`thrower: a write to its stdin threw (input gone); it is being stopped; see ${logPath}`);
  await restarted;
  expect(await host.callTool('thrower_tool', {})).toMatchObject({ content: [{ type: 'text', text: 'thrower ok' }] });
  expect(unhandled).toEqual([]);
});
