/**
 * zot's `call_tool` on the extension side (`ctx.callTool`): the request goes out with the handler's
 * tool call as `parent_id`, the host's `tool_result` settles it, and a caller that gives up (its
 * signal, its deadline) sends `call_tool_cancel`. A tool that fails resolves with `isError`; the
 * call itself failing (not offered, aborted, timed out, the run stopped) rejects.
 */
import type { ContentBlock, JsonObject } from '../protocol/frames.js';
import { MAX_TIMER_MS } from '../protocol/limits.js';
import { ExtensionSdkError, SdkErrorCode } from './errors.js';

/** Options of `ctx.callTool`. */
export interface CallToolOptions {
  /** Gives up on the call (it rejects with `ABORTED`; the host is told with `call_tool_cancel`). @default the handler's own signal */
  signal?: AbortSignal | undefined;
  /** Gives up after this many ms (rejects with `TIMEOUT`; `call_tool_cancel` is sent). @default 60000 (zot's) */
  timeoutMs?: number | undefined;
}

/** What `ctx.callTool` resolves: the tool's answer as the host bounded it. */
export interface CallToolResult {
  /** Text and image blocks (a text block keeps its `format`). */
  content: ContentBlock[];
  /** The tool failed, or the host refused the call (unknown tool, a cycle, blocked by an interceptor...): `text` says why. */
  isError: boolean;
  /** The host cut the answer to its bound (256 KiB, 128 blocks). */
  truncated: boolean;
  /** The text blocks, joined with newlines. */
  text: string;
}

/** The default deadline of a call, zot's. */
const CALL_TOOL_TIMEOUT_MS = 60_000;

interface Pending {
  resolve(result: CallToolResult): void;
  reject(error: ExtensionSdkError): void;
  cleanup(): void;
}

/** The session's calls in flight, by request id (`sdk-<n>`, as zot's Go SDK names them). */
export class ToolCalls {
  private readonly pending = new Map<string, Pending>();
  private seq = 0;

  constructor(
    private readonly send: (frame: object) => void,
    private readonly log: (message: string) => void,
  ) {}

  /** `unavailable`: why the call cannot be made at all (not declared, not offered, stopped). */
  call(name: string, args: JsonObject, parentId: string | undefined, options: CallToolOptions | undefined, fallbackSignal: AbortSignal, unavailable: string | undefined): Promise<CallToolResult> {
    if (unavailable !== undefined) return Promise.reject(new ExtensionSdkError(SdkErrorCode.CALL_TOOL_UNAVAILABLE, `ctx.callTool: ${unavailable}`));
    if (typeof name !== 'string' || name.length === 0) return Promise.reject(new ExtensionSdkError(SdkErrorCode.INVALID_ARGUMENT, 'ctx.callTool: the tool name must be a non-empty string'));
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return Promise.reject(new ExtensionSdkError(SdkErrorCode.INVALID_ARGUMENT, 'ctx.callTool: args must be a JSON object'));
    const timeoutMs = options?.timeoutMs ?? CALL_TOOL_TIMEOUT_MS;
    if (typeof timeoutMs !== 'number' || !(timeoutMs >= 0)) return Promise.reject(new ExtensionSdkError(SdkErrorCode.INVALID_ARGUMENT, 'ctx.callTool: timeoutMs must be a number >= 0'));
    const signal = options?.signal ?? fallbackSignal;
    if (signal.aborted) return Promise.reject(aborted(name, signal.reason));
    const id = `sdk-${++this.seq}`;
    return new Promise<CallToolResult>((resolve, reject) => {
      const giveUp = (error: ExtensionSdkError): void => {
        if (this.pending.get(id) !== entry) return;
        this.pending.delete(id);
        entry.cleanup();
        this.send({ type: 'call_tool_cancel', id });
        reject(error);
      };
      const onAbort = (): void => giveUp(aborted(name, signal.reason));
      const timer = Number.isFinite(timeoutMs) && timeoutMs <= MAX_TIMER_MS ? setTimeout(() => giveUp(new ExtensionSdkError(SdkErrorCode.TIMEOUT, `ctx.callTool(${JSON.stringify(name)}) timed out after ${timeoutMs} ms`)), timeoutMs) : undefined;
      const entry: Pending = {
        resolve,
        reject,
        cleanup: () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
        },
      };
      this.pending.set(id, entry);
      signal.addEventListener('abort', onAbort, { once: true });
      const frame: JsonObject = { type: 'call_tool', id, name, args };
      if (parentId !== undefined) frame.parent_id = parentId;
      this.send(frame);
    });
  }

  /** The host's `tool_result` for one of the calls; an unknown id (given up, or never asked) is logged. */
  settle(id: string, content: readonly unknown[], isError: boolean, truncated: boolean): void {
    const entry = this.pending.get(id);
    if (entry === undefined) {
      this.log(`ignored a tool_result for no call_tool in flight (${JSON.stringify(id.slice(0, 80))})`);
      return;
    }
    this.pending.delete(id);
    entry.cleanup();
    const blocks = content.filter(isBlock);
    const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
    entry.resolve({ content: blocks, isError, truncated, text });
  }

  /** The run stopped: every call in flight rejects with `STOPPED`. */
  stopAll(): void {
    const entries = [...this.pending.values()];
    this.pending.clear();
    for (const entry of entries) {
      entry.cleanup();
      entry.reject(new ExtensionSdkError(SdkErrorCode.STOPPED, 'ctx.callTool: the extension stopped before the answer came'));
    }
  }
}

function aborted(name: string, reason: unknown): ExtensionSdkError {
  return new ExtensionSdkError(SdkErrorCode.ABORTED, `ctx.callTool(${JSON.stringify(name)}) aborted`, { cause: reason });
}

/** A well-formed text or image block (another is dropped: it has nothing this SDK can give). */
function isBlock(value: unknown): value is ContentBlock {
  if (typeof value !== 'object' || value === null) return false;
  const block = value as Record<string, unknown>;
  if (block.type === 'text') return typeof block.text === 'string' && (block.format === undefined || typeof block.format === 'string');
  return block.type === 'image' && typeof block.mime_type === 'string' && typeof block.data === 'string';
}
