// Arbitrary frames from a connected (in-memory) extension, and arbitrary embedder inputs into
// callTool / intercepts.* / emit: nothing but a typed ExtensionHostError leaves the API, and every
// request made settles (each within a small deadline).
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtensionHost, ExtensionHostError, type InMemoryExtension } from '../../src/index.js';
import { tempDir } from '../helpers/fixtures.js';
import { onLines } from '../helpers/wire-extension.js';

const temp = tempDir('zot-prop-');
/** What the extension answers to the next request: a raw line (its id filled in when it has `$ID`). */
let nextAnswer: string[] = [];

function onRequest(frame: Record<string, unknown>, write: (line: string) => void): void {
  if (frame.type === 'hello_ack') {
    write(JSON.stringify({ type: 'register_tool', name: 'p', schema: { type: 'object' } }));
    write(JSON.stringify({ type: 'subscribe', events: ['turn_start'], intercept: ['tool_call', 'turn_start', 'assistant_message', 'before_agent_start'] }));
    write(JSON.stringify({ type: 'ready' }));
    return;
  }
  if (typeof frame.id !== 'string') return;
  for (const line of nextAnswer) write(line.replaceAll('$ID', JSON.stringify(frame.id).slice(1, -1)));
}

const extension: InMemoryExtension = {
  name: 'arbitrary',
  connect() {
    const input = new PassThrough();
    const output = new PassThrough();
    const write = (line: string) => {
      if (!output.destroyed) output.write(`${line}\n`);
    };
    write(JSON.stringify({ type: 'hello', name: 'arbitrary', version: '1.0.0' }));
    onLines(input, (line) => {
      try {
        onRequest(JSON.parse(line) as Record<string, unknown>, write);
      } catch {
        // the host only writes JSON lines
      }
    });
    return { input, output, close: () => output.end() };
  },
};

let host: ExtensionHost;
beforeAll(async () => {
  host = new ExtensionHost({ cwd: temp.dir, home: temp.dir, discover: false, inMemory: [extension], timeouts: { tool: 30, intercept: 30, command: 30 } });
  await host.start();
});
afterAll(async () => {
  await host.stop();
  temp.cleanup();
});

/** Re-starts the extension when an earlier run's frame got it disconnected. */
async function ready(): Promise<void> {
  if (host.extensions()[0]?.state !== 'ready') await host.reload();
}

const typed = (error: unknown) => {
  expect(error).toBeInstanceOf(ExtensionHostError);
};

const json = fc.jsonValue({ maxDepth: 4 });
const answerLine = fc.oneof(
  json.map((v) => JSON.stringify(v) ?? 'null'),
  fc.record({ type: fc.constantFrom('tool_result', 'event_intercept_response', 'command_response', 'notify', 'register_tool', 'panel_render', 'hello', 'ready'), id: fc.constantFrom('$ID', 'nope', 7), rest: fc.dictionary(fc.constantFrom('content', 'block', 'modified_args', 'replace_text', 'system_prompt', 'is_error', 'message', 'name', 'reason', '__proto__'), json) })
    .map(({ type, id, rest }) => JSON.stringify({ ...rest, type, id })),
  fc.string({ maxLength: 40 }),
);

describe('arbitrary frames from a connected extension', () => {
  it('every tool call, intercept and prompt pass settles, and only typed errors come out', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answerLine, { maxLength: 4 }), async (lines) => {
        await ready();
        nextAnswer = lines;
        const tool = await host.callTool('p', { a: 1 });
        expect(typeof tool.isError).toBe('boolean');
        if (tool.isError) expect(tool.failure === undefined || tool.failure instanceof ExtensionHostError).toBe(true);
        await host.intercepts.toolCall({ toolId: 't', toolName: 'bash', args: { command: 'ls' } }).catch(typed);
        await host.intercepts.turnStart({ step: 1 }).catch(typed);
        await host.intercepts.assistantMessage({ text: 'hi' }).catch(typed);
        host.invalidateSystemPrompt();
        await host.prepareSystemPrompt({ systemPrompt: 'base' }).catch(typed);
      }),
      { seed: 1213, numRuns: 40 },
    );
  }, 20_000);
});

describe('arbitrary embedder inputs', () => {
  const anything = fc.oneof(fc.anything({ maxDepth: 3, withBigInt: true, withMap: true, withSet: true, withDate: true, withTypedArray: true }), fc.constant(cyclic()));

  it('callTool always resolves; intercepts.* resolve or reject typed; emit returns or throws typed', async () => {
    nextAnswer = ['{"type":"tool_result","id":"$ID","content":[]}', '{"type":"event_intercept_response","id":"$ID"}'];
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constant('p'), fc.string({ maxLength: 10 })), anything, anything, async (name, args, other) => {
        await ready();
        const result = await host.callTool(name, args as Record<string, unknown>, { timeoutMs: typeof other === 'number' ? other : undefined });
        expect(typeof result.isError).toBe('boolean');
        await host.intercepts.toolCall({ toolId: 't', toolName: name, args: args as Record<string, unknown> }).catch(typed);
        await host.intercepts.turnStart({ step: other as number }).catch(typed);
        await host.intercepts.assistantMessage({ text: other as string }).catch(typed);
        try {
          const sent = host.emit({ ...(typeof args === 'object' && args !== null ? (args as object) : {}), event: typeof other === 'string' ? other : 'turn_start' });
          expect(typeof sent).toBe('number');
        } catch (error) {
          typed(error);
        }
      }),
      { seed: 1214, numRuns: 100 },
    );
  }, 20_000);
});

describe('weird argument values to every public method', () => {
  const boom = () => {
    throw new Error('boom');
  };
  // Values that break naive code: a Symbol or BigInt (no string conversion), a Proxy whose every trap
  // throws, objects whose toString / valueOf / getters throw, null, a cyclic object.
  const weirdValues: unknown[] = [
    Symbol('s'),
    10n,
    null,
    undefined,
    cyclic(),
    new Proxy({}, { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom, getPrototypeOf: boom }),
    { toString: boom, valueOf: boom, [Symbol.toPrimitive]: boom },
    Object.defineProperties({}, { name: { get: boom, enumerable: true }, args: { get: boom, enumerable: true }, timeoutMs: { get: boom, enumerable: true }, signal: { get: boom, enumerable: true }, event: { get: boom, enumerable: true }, extension: { get: boom, enumerable: true } }),
    Object.create(null),
    () => 'fn',
  ];
  // fast-check inspects what it generates (and trips on the Proxy): it generates indexes into the list.
  const weird = fc.oneof(fc.nat({ max: weirdValues.length - 1 }).map((i) => ({ i })), fc.anything({ maxDepth: 2, withBigInt: true }), fc.constantFrom('p', '/p', 'turn_start'));
  const value = (v: unknown) => (typeof v === 'object' && v !== null && Object.keys(v).length === 1 && typeof (v as { i?: unknown }).i === 'number' ? weirdValues[(v as { i: number }).i] : v);

  /** A call's outcome: returned, resolved, or a typed error (sync or async); never anything else. */
  const settlesTyped = async (call: () => unknown): Promise<unknown> => {
    let value: unknown;
    try {
      value = call();
    } catch (error) {
      typed(error);
      return undefined;
    }
    if (value instanceof Promise) return value.catch((error: unknown) => typed(error));
    return value;
  };

  it('return, resolve, or throw / reject a typed ExtensionHostError; callTool always resolves', async () => {
    nextAnswer = ['{"type":"tool_result","id":"$ID","content":[]}', '{"type":"event_intercept_response","id":"$ID"}', '{"type":"command_response","id":"$ID","action":"noop"}'];
    const h = host as unknown as Record<string, (...args: unknown[]) => unknown>;
    await fc.assert(
      fc.asyncProperty(weird, weird, weird, weird, async (...generated) => {
        const [a, b, c, d] = generated.map(value);
        await ready();
        let result: unknown;
        try {
          result = await h.callTool!(a, b, c);
        } catch (error) {
          throw new Error(`callTool threw: ${String(error)}`);
        }
        expect(typeof (result as { isError?: unknown }).isError).toBe('boolean');
        if (typeof a !== 'string') expect((result as { failure?: { code?: string } }).failure?.code).toBe('INVALID_ARGUMENT');
        for (const [method, args] of [
          ['runCommand', [a, b]],
          ['runCommand', [a]],
          ['panelKey', [a, b, c, d]],
          ['closePanel', [a, b]],
          ['emit', [a]],
          ['setModel', [a]],
          ['prepareSystemPrompt', [a]],
          ['restart', [a]],
        ] as const) {
          await settlesTyped(() => h[method]!(...args));
        }
        const intercepts = host.intercepts as unknown as Record<string, (...args: unknown[]) => unknown>;
        for (const method of ['toolCall', 'turnStart', 'assistantMessage']) await settlesTyped(() => intercepts[method]!(a, b));
      }),
      { seed: 1215, numRuns: 150 },
    );
  }, 30_000);
});

function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = { a: 1 };
  value.self = value;
  return value;
}
