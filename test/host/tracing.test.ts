// OpenTelemetry spans of the host (docs/tracing.md), checked with sdk-trace-base's in-memory exporter
// over real fixture processes: cancellable (SDK: declares trace), traced-py (the Python SDK),
// long-tool (cancel + progress), kitchen (plain zot), crashy (restarts).
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/host/host.js';
import { loadTracing } from '../../src/host/tracing.js';
import { fixture } from '../helpers/fixtures.js';
import { hostKit, textOf, type Recorder } from '../helpers/host.js';
import { nextEvent } from '../helpers/wait.js';

const TEST_MS = 20_000;
const kit = hostKit();
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();
let host: ExtensionHost;
let rec: Recorder;

const spans = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name);
const only = (name: string): ReadableSpan => {
  const found = spans(name);
  expect(found, `spans named ${name}: ${exporter.getFinishedSpans().map((s) => s.name).join(', ')}`).toHaveLength(1);
  return found[0]!;
};
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const traceparentOf = (s: ReadableSpan) => `00-${s.spanContext().traceId}-${s.spanContext().spanId}-01`;

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  ({ host, rec } = await kit.start({
    explicit: [fixture('sdk/cancellable'), fixture('sdk/traced-py'), fixture('faults/long-tool'), fixture('extensions/kitchen')],
    timeouts: { tool: 2000, intercept: 1000, hello: 15_000 },
    tracing: { tracerProvider: provider },
  }));
}, TEST_MS);

afterAll(() => {
  context.disable();
});

beforeEach(() => exporter.reset());

describe('tool calls', () => {
  it('one execute_tool span per call, a child of the embedder span, whose traceparent the extension sees', { timeout: TEST_MS }, async () => {
    const embedder = provider.getTracer('agent').startSpan('agent turn');
    const result = await context.with(trace.setSpan(context.active(), embedder), () => host.callTool('trace', {}, { toolCallId: 'call_1' }));
    embedder.end();
    const span = only('execute_tool trace');
    expect(span.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'trace',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.type': 'extension',
      'zot.extension.name': 'cancellable',
    });
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.spanContext().traceId).toBe(embedder.spanContext().traceId);
    expect(parentOf(span)).toBe(embedder.spanContext().spanId);
    expect(textOf(result)).toBe(`${traceparentOf(span)} none`);
  });

  it('a Python SDK extension sees the traceparent of its execute_tool span', { timeout: TEST_MS }, async () => {
    const embedder = provider.getTracer('agent').startSpan('agent turn');
    const result = await context.with(trace.setSpan(context.active(), embedder), () => host.callTool('trace_py', {}));
    embedder.end();
    const span = only('execute_tool trace_py');
    expect(span.attributes['zot.extension.name']).toBe('traced-py');
    expect(span.spanContext().traceId).toBe(embedder.spanContext().traceId);
    expect(textOf(result)).toBe(`${traceparentOf(span)} none`);
  });

  it('without toolCallId, gen_ai.tool.call.id is the request id the extension answered', { timeout: TEST_MS }, async () => {
    await host.callTool('trace', {});
    expect(only('execute_tool trace').attributes['gen_ai.tool.call.id']).toMatch(/^\d+:request-\d+$/);
  });

  it('a timeout: error.type TIMEOUT, status ERROR, the progress and the cancel as span events', { timeout: TEST_MS }, async () => {
    // A report every 5 ms for 5 s: the first lands long before the deadline, even on a loaded machine.
    const result = await host.callTool('long', { steps: 1000, ms: 5 }, { timeoutMs: 1000 });
    expect(result.failure?.code).toBe('TIMEOUT');
    const span = only('execute_tool long');
    expect(span.attributes['error.type']).toBe('TIMEOUT');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    const names = span.events.map((e) => e.name);
    expect(names).toContain('zot.progress');
    expect(span.events.find((e) => e.name === 'zot.progress')!.attributes).toMatchObject({ 'zot.progress.message': expect.stringMatching(/^step \d+$/), 'zot.progress.progress': expect.any(Number), 'zot.progress.total': 1000 });
    expect(span.events.find((e) => e.name === 'zot.cancel')?.attributes).toEqual({ 'zot.cancel.reason': 'timeout' });
  });

  it('an abort: error.type ABORTED and a cancel event', { timeout: TEST_MS }, async () => {
    const controller = new AbortController();
    const call = host.callTool('wait', {}, { signal: controller.signal, onProgress: () => controller.abort() });
    expect((await call).failure?.code).toBe('ABORTED');
    const span = only('execute_tool wait');
    expect(span.attributes['error.type']).toBe('ABORTED');
    expect(span.events.map((e) => e.name)).toEqual(['zot.progress', 'zot.cancel']);
  });

  it('a tool that reports an error: error.type tool_error', { timeout: TEST_MS }, async () => {
    const result = await host.callTool('fail', {});
    expect(result.isError).toBe(true);
    const span = only('execute_tool fail');
    expect(span.attributes).toMatchObject({ 'error.type': 'tool_error', 'zot.extension.name': 'kitchen' });
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });
});

describe('trace context to extensions', () => {
  it('grants trace only to an extension that declared it; a plain one gets the bytes of zot', { timeout: TEST_MS }, async () => {
    const longAck = await host.runCommand('/long-ack');
    expect(JSON.parse(longAck.handled ? longAck.text! : '')).toMatchObject({ capabilities: ['cancel', 'progress'] });
    // The request of an extension that did not declare trace: zot's fields, no _meta.
    const result = await host.callTool('frame', { a: 1 });
    expect(Object.keys(JSON.parse(textOf(result)) as object)).toEqual(['type', 'name', 'args', 'id']);
    expect(textOf(result)).toMatch(/^\{"type":"tool_call","name":"frame","args":\{"a":1\},"id":"\d+:request-\d+"\}$/);
    const ack = await host.runCommand('/ack');
    expect(Object.keys(JSON.parse(ack.handled ? ack.text! : '') as object)).toEqual(['type', 'protocol_version', 'zot_version', 'provider', 'model', 'cwd', 'extension_dir', 'data_dir']);
  });
});

describe('commands', () => {
  it('one zot.command span per command', { timeout: TEST_MS }, async () => {
    await host.runCommand('/ack');
    expect(only('zot.command ack').attributes).toEqual({ 'zot.command.name': 'ack', 'zot.extension.name': 'kitchen' });
  });
});

describe('intercept chains', () => {
  it('a chain span with a child per step: the extension step (whose traceparent it sees) and a plain interceptor', { timeout: TEST_MS }, async () => {
    const remove = host.intercepts.add({ name: 'mine', toolCall: () => ({ modifiedArgs: { changed: true } }) });
    try {
      const noted = rec.waitFor('notify', (n) => n.extension === 'cancellable' && n.message.startsWith('intercept 00-'));
      const result = await host.intercepts.toolCall({ toolId: 't1', toolName: 'bash', args: { command: 'ls' } });
      expect(result.modified).toBe(true);
      const chain = only('zot.intercept tool_call');
      expect(chain.attributes).toMatchObject({ 'zot.intercept.event': 'tool_call', 'zot.intercept.steps': 2, 'zot.intercept.decision': 'allow', 'zot.intercept.rewritten': true });
      const step = only('zot.intercept.step cancellable');
      expect(parentOf(step)).toBe(chain.spanContext().spanId);
      expect(step.attributes).toMatchObject({ 'zot.intercept.event': 'tool_call', 'zot.intercept.extension': 'cancellable', 'zot.intercept.decision': 'allow', 'zot.intercept.rewritten': false });
      expect((await noted).message).toBe(`intercept ${traceparentOf(step)}`);
      const mine = only('zot.intercept.step mine');
      expect(parentOf(mine)).toBe(chain.spanContext().spanId);
      expect(mine.attributes).toMatchObject({ 'zot.intercept.interceptor': 'mine', 'zot.intercept.decision': 'rewrite', 'zot.intercept.rewritten': true });
      // Timed from the chain's trace, on the chain span's clock: inside it, not years away.
      const ms = ([seconds, nanos]: readonly [number, number]) => seconds * 1e3 + nanos / 1e6;
      expect(ms(mine.startTime)).toBeGreaterThanOrEqual(ms(chain.startTime) - 1);
      expect(ms(mine.endTime)).toBeLessThanOrEqual(ms(chain.endTime) + 1);
    } finally {
      remove();
    }
  });

  it('a chain with no participant makes no span; one interceptor of the event makes one', { timeout: TEST_MS }, async () => {
    // No extension here intercepts turn_start or assistant_message.
    expect((await host.intercepts.turnStart({ step: 1 })).trace).toEqual([]);
    expect((await host.intercepts.assistantMessage({ text: 'hi' })).trace).toEqual([]);
    // An interceptor of another event does not take part either.
    const removeOther = host.intercepts.add({ name: 'tools-only', toolCall: () => ({}) });
    try {
      await host.intercepts.turnStart({ step: 2 });
    } finally {
      removeOther();
    }
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual([]);
    const remove = host.intercepts.add({ name: 'turns', turnStart: () => ({}) });
    try {
      await host.intercepts.turnStart({ step: 3 });
    } finally {
      remove();
    }
    expect(only('zot.intercept turn_start').attributes).toMatchObject({ 'zot.intercept.steps': 1 });
    expect(only('zot.intercept.step turns').parentSpanContext?.spanId).toBe(only('zot.intercept turn_start').spanContext().spanId);
  });

  it('a step that times out: failure kind and error.type timeout', { timeout: TEST_MS }, async () => {
    const result = await host.intercepts.toolCall({ toolId: 't2', toolName: 'hang_me', args: {} });
    expect(result.trace[0]).toMatchObject({ interceptor: 'cancellable', decision: 'failure', failure: 'timeout' });
    const step = only('zot.intercept.step cancellable');
    expect(step.attributes).toMatchObject({ 'zot.intercept.decision': 'failure', 'zot.intercept.failure_kind': 'timeout', 'error.type': 'timeout' });
    expect(step.status.code).toBe(SpanStatusCode.ERROR);
    expect(step.events.map((e) => e.name)).toEqual(['zot.cancel']);
  });

  it('a late fail-closed guard: its step span is a child of the chain span, and the only one', { timeout: TEST_MS }, async () => {
    // hello: 0 makes the guard a late joiner; its stand-in waits for it, then runs its step.
    const { host: late } = kit.create({
      explicit: [fixture('extensions/guard')],
      timeouts: { hello: 0, helloJoin: 10_000, intercept: 8000 },
      interceptPolicy: { guard: { onFailure: 'block' } },
      tracing: { tracerProvider: provider },
    });
    try {
      expect((await late.start()).starting.map((s) => s.name)).toEqual(['guard']);
      expect(await late.intercepts.toolCall({ toolId: 't3', toolName: 'bash', args: { command: 'rm -rf /' } })).toMatchObject({ block: true, blockedBy: 'guard' });
      const chain = only('zot.intercept tool_call');
      expect(parentOf(only('zot.intercept.step guard'))).toBe(chain.spanContext().spanId);
    } finally {
      await late.stop();
    }
  });
});

describe('exits and restarts', () => {
  it('an exit is an event on the open spans; a restart is a span of its own', { timeout: TEST_MS }, async () => {
    const { host: crashy } = await kit.start({
      explicit: [fixture('faults/crashy')],
      restart: { backoffMs: [0], jitter: 0 },
      tracing: { tracerProvider: provider },
    });
    const ready = nextEvent(crashy, 'extension:state', (c) => c.name === 'crashy' && c.state === 'ready');
    const outcome = await crashy.runCommand('/crash');
    expect(outcome.handled && outcome.failure?.code).toBe('PROCESS_EXITED');
    await ready;
    const command = only('zot.command crash');
    expect(command.attributes['error.type']).toBe('PROCESS_EXITED');
    expect(command.events.map((e) => e.name).sort()).toEqual(['zot.extension.exit', 'zot.extension.restart']);
    expect(command.events.find((e) => e.name === 'zot.extension.exit')!.attributes).toMatchObject({ 'zot.extension.name': 'crashy', 'zot.exit.code': 3, 'zot.exit.reason': 'exited' });
    const restart = only('zot.extension.restart crashy');
    expect(restart.attributes).toMatchObject({ 'zot.extension.name': 'crashy', 'zot.restart.reason': 'crashed' });
    expect(restart.status.code).toBe(SpanStatusCode.UNSET);
  });
});

describe('tracing: true', () => {
  it('uses the global tracer provider', { timeout: TEST_MS }, async () => {
    trace.setGlobalTracerProvider(provider);
    try {
      const { host: global } = await kit.start({ explicit: [fixture('extensions/kitchen')], tracing: true });
      await global.callTool('echo', { text: 'hi' });
      expect(only('execute_tool echo').instrumentationScope.name).toBe('zot-extension-host');
    } finally {
      trace.disable();
    }
  });

  it('a tracing option of the wrong shape is INVALID_OPTIONS naming it', () => {
    expect(() => new ExtensionHost({ tracing: 'yes' as never })).toThrow(/option tracing must be a boolean or \{ tracerProvider \}/);
    expect(() => new ExtensionHost({ tracing: { tracerProvider: {} as never } })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
  });

  it('a missing @opentelemetry/api is TRACING_UNAVAILABLE naming the fix', async () => {
    const missing = () => Promise.reject(new Error("Cannot find package '@opentelemetry/api'"));
    await expect(loadTracing(true, '0.0.0', missing)).rejects.toMatchObject({ code: 'TRACING_UNAVAILABLE', message: expect.stringContaining('npm i @opentelemetry/api') });
  });
});

