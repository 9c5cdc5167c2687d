// zot's `call_tool` (docs/protocol.md "zot versions"): an extension asks the host to run a tool,
// another extension's or one of the agent's own, and gets the host's `tool_result` back. The checks
// and their texts are zot's, in zot's order; the call goes through the intercept chain (with
// `originExtension`), then callTool() or the embedder's `callBuiltinTool`. Bounded: a chain of at
// most MAX_DEPTH tools without a repeated name, `callToolConcurrency` requests per extension, a
// deadline (`timeouts.callTool`); each request settles when it is cancelled, its parent call ends,
// or either extension goes away.
import { monotonicMs } from '../clock.js';
import { ErrorCode, ExtensionHostError } from '../errors.js';
import type { CallToolFrame, CallToolResultFrame, ContentBlock } from '../protocol/frames.js';
import { MAX_TIMER_MS } from '../protocol/limits.js';
import { callTool, unknownToolText } from './calls.js';
import type { HostContext, LoadedExtension, ToolCallLink } from './context.js';
import { builtinCallRefused, permits } from './security.js';
import type { BuiltinToolResult, ExtensionToolCall, ToolContent } from './types.js';

/** Longest chain of tool names, the outermost call included (zot's). */
const MAX_DEPTH = 4;
/** @default of `callToolConcurrency`. */
const DEFAULT_CALL_TOOL_CONCURRENCY = 8;
/** The answer's bound, as zot bounds it: text bytes, base64 bytes and MIME types together, and blocks. */
const MAX_RESULT_BYTES = 256 * 1024;
const MAX_RESULT_BLOCKS = 128;

/** The call ids the intercept chain sees (zot's form), unique in this process. */
let callSeq = 0;

/** What one request's run ends with, before it is bounded for the wire. */
interface Outcome {
  content: readonly ToolContent[];
  isError: boolean;
  ranBy: string | undefined;
}

/** A `call_tool` frame of `ext`: answered with the host's `tool_result`, now (a refusal) or when the call ends. */
export function callToolRequest(ctx: HostContext, ext: LoadedExtension, frame: CallToolFrame): void {
  const id = frame.id ?? '';
  const name = frame.name ?? '';
  const calls = (ext.callTools ??= new Map());
  // zot answers neither: there is no id to answer under, or the answer would be ambiguous.
  if (id.length === 0 || calls.has(id)) {
    const why = id.length === 0 ? 'without an id' : `with the id ${JSON.stringify(id.slice(0, 80))} of one still in flight`;
    ctx.diagnostics.diagnose({ code: 'CALL_TOOL_DROPPED', message: `${ext.name}: call_tool ${why} dropped unanswered (as zot does)`, extension: ext.name, severity: 'warning' });
    return;
  }
  const started = monotonicMs();
  const parentId = frame.parent_id !== undefined && frame.parent_id.length > 0 ? frame.parent_id : undefined;
  const refuse = (text: string, chain: readonly string[] = []): void => {
    answer(ctx, ext, { id, name, parentId, chain, toolId: undefined, started }, { content: [{ type: 'text', text }], isError: true, ranBy: undefined });
  };
  if (!ext.process.callsTools) return refuse('extension did not opt in to call_tool');
  if (!permits(ctx, ext, 'callTool')) return refuse(`call_tool refused: the host's permissions for ${ext.name} do not include "call_tool"`);
  let link: ToolCallLink | undefined;
  if (parentId !== undefined) {
    link = ext.toolLinks?.get(parentId);
    if (link === undefined) return refuse('unknown or expired parent tool call');
  } else if (ext.toolLinks !== undefined && ext.toolLinks.size > 0) {
    return refuse('parent_id is required while an extension tool is active');
  }
  const chain = link?.chain ?? [];
  if (chain.includes(name)) return refuse('tool call cycle detected', chain);
  if (chain.length >= MAX_DEPTH) return refuse('tool call depth limit reached', chain);
  const args = frame.args;
  if (name.length === 0 || typeof args !== 'object' || args === null || Array.isArray(args)) return refuse('call_tool requires a name and JSON object args', chain);
  if (ctx.status !== 'running') return refuse(`no active agent (the host is ${ctx.status})`, chain);
  const unknown = unknownTool(ctx, name);
  if (unknown !== undefined) return refuse(unknown, chain);
  // The agent's built-in tools run outside the sandbox: not for a confined extension unless granted explicitly.
  const confined = ctx.toolRegistry.isBuiltin(name) ? builtinCallRefused(ctx, ext) : undefined;
  if (confined !== undefined) return refuse(confined, chain);
  const max = ctx.options.callToolConcurrency ?? DEFAULT_CALL_TOOL_CONCURRENCY;
  if (calls.size >= max) return refuse(`too many call_tool requests in flight (at most ${max} per extension)`, chain);

  const controller = new AbortController();
  calls.set(id, controller);
  const toolId = `ext-call-${++callSeq}`;
  const request = { id, name, parentId, chain: [...chain, name], toolId, started };
  const { signal } = controller;
  // Its parent call's end ends it (zot derives the request's context from the parent's).
  const onParentEnd = (): void => controller.abort(new ExtensionHostError(ErrorCode.ABORTED, `call_tool ${name}: its parent tool call ${parentId} ended`, { extension: ext.name }));
  if (link !== undefined) {
    if (link.ended.aborted) onParentEnd();
    else link.ended.addEventListener('abort', onParentEnd, { once: true });
  }
  const deadlineMs = ctx.timeouts.callTool;
  const timer = Number.isFinite(deadlineMs) && deadlineMs <= MAX_TIMER_MS ? setTimeout(() => controller.abort(new ExtensionHostError(ErrorCode.TIMEOUT, `call_tool ${name} timed out after ${deadlineMs} ms`, { extension: ext.name })), deadlineMs) : undefined;
  timer?.unref();
  // Whatever happens, one answer: a throw nothing above expects is an error answer too.
  const work = run(ctx, ext, name, args as Record<string, unknown>, chain, toolId, signal).catch((err: unknown) => failed(`call_tool ${name} failed: ${err instanceof Error ? err.message : String(err)}`));
  void untilAborted(work, signal).then((outcome) => {
    clearTimeout(timer);
    link?.ended.removeEventListener('abort', onParentEnd);
    if (calls.get(id) === controller) calls.delete(id);
    answer(ctx, ext, request, outcome ?? { content: [{ type: 'text', text: abortText(signal.reason) }], isError: true, ranBy: undefined });
  });
}

/** A `call_tool_cancel` frame: the request `id` of this extension stops; an unknown id changes nothing (zot). */
export function cancelCallTool(ext: LoadedExtension, id: string | undefined): void {
  if (id === undefined) return;
  ext.callTools?.get(id)?.abort(new ExtensionHostError(ErrorCode.ABORTED, 'cancelled by call_tool_cancel', { extension: ext.name }));
}

/** Why a tool cannot be called (as callTool() words it), or undefined. Built-ins are checked when run. */
function unknownTool(ctx: HostContext, name: string): string | undefined {
  if (ctx.toolRegistry.isBuiltin(name)) return ctx.options.callbacks?.callBuiltinTool === undefined ? builtinUnavailable(name) : undefined;
  const registration = ctx.toolRegistry.get(name);
  if (registration === undefined) return unknownToolText(name, false);
  if (registration.value.deferred && !ctx.activated.has(name)) return unknownToolText(name, true);
  return undefined;
}

/** The intercept chain, then the tool; resolves an outcome whatever happens. */
async function run(ctx: HostContext, ext: LoadedExtension, name: string, given: Record<string, unknown>, chain: readonly string[], toolId: string, signal: AbortSignal): Promise<Outcome> {
  let args = given;
  try {
    const decision = await ctx.chain.toolCall({ toolId, toolName: name, args, originExtension: ext.name }, { signal });
    if (decision.block) return failed(decision.reason ?? `blocked by ${decision.blockedBy ?? 'an interceptor'}`);
    args = decision.args;
  } catch (err) {
    return failed(err instanceof Error ? err.message : String(err));
  }
  if (signal.aborted) return failed(abortText(signal.reason));
  if (!ctx.toolRegistry.isBuiltin(name)) {
    // With tracing on, the span of the call carries its id (`gen_ai.tool.call.id`).
    const result = await callTool(ctx, name, args, { signal, toolCallId: toolId }, chain);
    return { content: result.content, isError: result.isError, ranBy: result.extension };
  }
  const builtin = ctx.options.callbacks?.callBuiltinTool;
  if (builtin === undefined) return failed(builtinUnavailable(name));
  try {
    return builtinOutcome(name, await builtin({ extension: ext.name, toolName: name, args, toolId, signal }));
  } catch (err) {
    return { ...failed(`tool ${name} failed: ${err instanceof Error ? err.message : String(err)}`), ranBy: 'built-in' };
  }
}

function builtinUnavailable(name: string): string {
  return `tool ${name} is built into the agent, which offers its tools to no extension (no callBuiltinTool callback)`;
}

function failed(text: string): Outcome {
  return { content: [{ type: 'text', text }], isError: true, ranBy: undefined };
}

/** The embedder's result, checked: anything but `{ content: ToolContent[], isError? }` is an error result. */
function builtinOutcome(name: string, result: BuiltinToolResult | undefined): Outcome {
  const content = (result as { content?: unknown } | undefined)?.content;
  const valid = Array.isArray(content) && content.every((b: unknown) => isContent(b));
  if (!valid) return { ...failed(`tool ${name}: the agent's callBuiltinTool resolved no valid result ({ content: ToolContent[], isError? })`), ranBy: 'built-in' };
  const blocks = (content as ToolContent[]).filter((b) => b.type !== 'text' || b.text !== '');
  return { content: blocks.length > 0 ? blocks : [{ type: 'text', text: '(the tool returned no content)' }], isError: result!.isError === true, ranBy: 'built-in' };
}

function isContent(b: unknown): b is ToolContent {
  if (typeof b !== 'object' || b === null) return false;
  const block = b as Record<string, unknown>;
  if (block.type === 'text') return typeof block.text === 'string' && (block.format === undefined || typeof block.format === 'string');
  return block.type === 'image' && typeof block.mimeType === 'string' && typeof block.data === 'string';
}

/** `work`, or undefined as soon as `signal` aborts (a callback or interceptor that ignores it must not hold the answer). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  let onAbort!: () => void;
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

function abortText(reason: unknown): string {
  return reason instanceof Error ? reason.message : 'call_tool aborted';
}

/** Sends the answer (bounded as zot bounds it) and tells the embedder (`'tool:called'`). */
function answer(
  ctx: HostContext,
  ext: LoadedExtension,
  request: { id: string; name: string; parentId: string | undefined; chain: readonly string[]; toolId: string | undefined; started: number },
  outcome: Outcome,
): void {
  const { blocks, truncated } = bounded(outcome.content);
  const frame: CallToolResultFrame = { type: 'tool_result', id: request.id, name: request.name, content: blocks };
  if (outcome.isError) frame.is_error = true;
  if (truncated) frame.truncated = true;
  ext.process.send(frame);
  const first = outcome.content[0];
  const call: ExtensionToolCall = {
    extension: ext.name,
    requestId: request.id,
    toolName: request.name,
    toolId: request.toolId,
    parentId: request.parentId,
    chain: [...request.chain],
    ranBy: outcome.ranBy,
    isError: outcome.isError,
    truncated,
    error: outcome.isError ? (first?.type === 'text' ? first.text : 'the tool failed') : undefined,
    ms: Math.round(monotonicMs() - request.started),
  };
  if (request.toolId !== undefined) ext.process.logLine(`call_tool ${JSON.stringify(request.id)} ${request.name}${request.parentId === undefined ? '' : ` (inside ${request.parentId})`}: ${outcome.isError ? `error: ${call.error!.slice(0, 200)}` : 'ok'} in ${call.ms} ms`);
  ctx.out.emit('tool:called', call);
}

/**
 * The answer's blocks within zot's bound: at most MAX_RESULT_BLOCKS blocks and MAX_RESULT_BYTES of
 * text, base64 data and MIME types; text cut at a UTF-8 boundary, images over the budget dropped.
 */
function bounded(content: readonly ToolContent[]): { blocks: ContentBlock[]; truncated: boolean } {
  const blocks: ContentBlock[] = [];
  let budget = MAX_RESULT_BYTES;
  let truncated = false;
  for (const block of content) {
    if (blocks.length >= MAX_RESULT_BLOCKS) {
      truncated = true;
      break;
    }
    if (block.type === 'text') {
      let { text } = block;
      const bytes = Buffer.byteLength(text);
      if (bytes > budget) {
        text = utf8Prefix(text, budget);
        truncated = true;
      }
      budget -= text === block.text ? bytes : Buffer.byteLength(text);
      if (text.length === 0) continue;
      blocks.push(block.format === undefined ? { type: 'text', text } : { type: 'text', text, format: block.format });
    } else {
      const size = block.data.length + block.mimeType.length;
      if (size > budget) {
        truncated = true;
        continue;
      }
      budget -= size;
      blocks.push({ type: 'image', mime_type: block.mimeType, data: block.data });
    }
  }
  return { blocks, truncated };
}

/** The longest prefix of `text` of at most `bytes` UTF-8 bytes, cut between characters. */
function utf8Prefix(text: string, bytes: number): string {
  const buffer = Buffer.from(text, 'utf8');
  let end = Math.max(0, bytes);
  while (end > 0 && (buffer[end]! & 0xc0) === 0x80) end--;
  return buffer.toString('utf8', 0, end);
}
