// Progress reports of running calls (capability "progress"): the caller's onProgress and the
// `tool:progress` event; and the request options a call with progress needs.
import type { RequestFrame, RequestOptions, RequestType } from '../connection/requests.js';
import type { ProgressFrame } from '../protocol/frames.js';
import type { CallProgress, HostCallOptions, ToolProgress } from './call-options.js';
import type { HostContext } from './context.js';
import type { LoadedExtension } from './loaded-extension.js';

function fields(target: CallProgress, frame: ProgressFrame): CallProgress {
  if (frame.message !== undefined) target.message = frame.message;
  if (frame.progress !== undefined) target.progress = frame.progress;
  if (frame.total !== undefined) target.total = frame.total;
  return target;
}

/** The `tool:progress` event, for every tool call's progress (not a hot path: progress frames are the extension's choice). */
export function toolProgressEvent(ctx: HostContext, ext: LoadedExtension, frame: ProgressFrame, request: RequestFrame<RequestType>): void {
  if (request.type !== 'tool_call' || ctx.byName.get(ext.name) !== ext) return;
  ctx.out.emit('tool:progress', fields({ extension: ext.name, requestId: frame.id, tool: request.name } as ToolProgress, frame) as ToolProgress);
}

/**
 * The request options of a call that asked for progress (onProgress, resetTimeoutOnProgress); a
 * call without them keeps its plain `{ timeoutMs, signal }` and pays nothing for this.
 */
export function progressOptions(ext: LoadedExtension, name: string, options: HostCallOptions, timeoutMs: number, tool: boolean): RequestOptions {
  const { onProgress } = options;
  return {
    timeoutMs,
    signal: options.signal,
    resetTimeoutOnProgress: tool && options.resetTimeoutOnProgress === true,
    maxTotalTimeoutMs: options.maxTotalTimeoutMs,
    onProgress:
      onProgress === undefined
        ? undefined
        : (frame) => onProgress(fields(tool ? ({ extension: ext.name, requestId: frame.id, tool: name } as ToolProgress) : { extension: ext.name, requestId: frame.id }, frame)),
  };
}
