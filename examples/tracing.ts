/**
 * Tracing recipe used by docs/tracing.md: the host's spans go to the embedder's tracer provider; the
 * agent's own span parents `execute_tool`; an SDK extension that declared "trace" gets the span's
 * traceparent in `ctx.traceparent`. Runs in CI (test/examples.test.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ExtensionHost } from '../src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const home = mkdtempSync(path.join(tmpdir(), 'zot-tracing-'));

// The embedder's OpenTelemetry setup (any exporter: OTLP, console, in-memory for this example).
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const host = new ExtensionHost({
  cwd: root,
  home,
  discover: false,
  explicit: [path.join(root, 'fixtures/sdk/cancellable')],
  // `tracing: true` uses the global provider (trace.setGlobalTracerProvider) instead.
  tracing: { tracerProvider },
});
await host.start();

// The agent's span for one turn parents the host's spans.
const agent = tracerProvider.getTracer('my-agent');
const turn = agent.startSpan('agent turn');
const result = await context.with(trace.setSpan(context.active(), turn), async () => {
  const verdict = await host.intercepts.toolCall({ toolId: 'call_1', toolName: 'trace', args: {} });
  if (verdict.block) throw new Error(`blocked: ${verdict.reason}`);
  return host.callTool('trace', verdict.args, { toolCallId: 'call_1' });
});
turn.end();
await host.stop();
rmSync(home, { recursive: true, force: true });

const spans = exporter.getFinishedSpans();
const tool = spans.find((s) => s.name === 'execute_tool trace')!;
for (const s of spans) console.log(`${s.name} (parent ${spans.find((p) => p.spanContext().spanId === s.parentSpanContext?.spanId)?.name ?? 'none'})`);
// The extension answered the traceparent it got in `_meta`: the execute_tool span's.
const seen = result.content[0]?.type === 'text' ? result.content[0].text : '';
if (!seen.startsWith(`00-${tool.spanContext().traceId}-${tool.spanContext().spanId}-`)) throw new Error(`traceparent ${seen}`);
console.log(`gen_ai.tool.call.id=${String(tool.attributes['gen_ai.tool.call.id'])}`);
console.log('tracing: ok');
