// The embedder's calls into extensions: callTool and runCommand (their checks, the request, the
// answer as a result or an outcome), and the progress extensions report for them.
import { ErrorCode, ExtensionHostError, toHostError } from '../errors.js';
import type { RequestFrame, RequestOptions, RequestType } from '../process/extension-process.js';
import type { CommandResponseFrame, ImageBlock, ProgressFrame, ResultBlock, TextBlock, ToolResultFrame } from '../protocol/frames.js';
import { mapResponse, restartingError, type HostContext, type LoadedExtension, type ResponseMapper } from './context.js';
import { openPanel } from './panels.js';
import { toolsChangedSoon } from './registrations.js';
import { panelRefusal, permits } from './security.js';
import type { CallProgress, CommandOutcome, HostCallOptions, PanelView, ToolContent, ToolProgress, ToolResult } from './types.js';

/** ExtensionHost.callTool: always resolves, failures as `isError: true` with a typed `failure`. */
export function callTool(ctx: HostContext, name: string, args: Record<string, unknown>, options?: HostCallOptions): Promise<ToolResult> {
  if (ctx.status !== 'running') return Promise.resolve(failedResult(notStarted(ctx, `tool ${name}`), undefined));
  const registration = ctx.toolRegistry.get(name);
  const ext = registration === undefined ? undefined : ctx.byName.get(registration.extension);
  const hidden = registration !== undefined && registration.value.deferred && !ctx.activated.has(name);
  if (ext !== undefined && !hidden && ext.restarting) return Promise.resolve(failedResult(restartingError(ext, `tool ${name}`), ext.name));
  if (registration === undefined || ext === undefined || ext.state !== 'ready' || hidden) {
    return Promise.resolve(failedResult(new ExtensionHostError(ErrorCode.UNKNOWN_TOOL, hidden ? `tool ${name} is deferred and has not been activated` : `no extension tool named ${name}`), undefined));
  }
  const invalid = toolCallProblem(name, ext.name, args, options);
  if (invalid !== undefined) return Promise.resolve(failedResult(invalid, ext.name));
  const timeoutMs = options?.timeoutMs ?? ctx.timeouts.tool;
  const progress = options?.onProgress !== undefined || options?.resetTimeoutOnProgress === true;
  const tracer = ctx.tracer;
  if (tracer !== undefined) return tracer.tool(ext, name, args, progress ? progressOptions(ext, name, options, timeoutMs, true) : { timeoutMs, signal: options?.signal }, toolMapper(ctx, ext), options);
  const requestOptions = progress ? progressOptions(ext, name, options, timeoutMs, true) : { timeoutMs, signal: options?.signal };
  return mapResponse(ext.process.request({ type: 'tool_call', name, args }, requestOptions), toolMapper(ctx, ext));
}

/** What the answer of a tool call (or its failure) becomes: a ToolResult, built as the response settles. */
function toolMapper(ctx: HostContext, ext: LoadedExtension): ResponseMapper<ToolResultFrame, ToolResult> {
  return {
    frame: (frame) => toolResult(ctx, ext, frame),
    error: (err) => failedResult(toHostError(err, ErrorCode.BAD_RESPONSE, { extension: ext.name, logPath: ext.logPath }), ext.name),
  };
}

function toolResult(ctx: HostContext, ext: LoadedExtension, frame: ToolResultFrame): ToolResult {
  const content = toolContent(frame.content);
  const names = frame.activate_tools;
  // A reload may have happened while waiting: a stale extension must not activate anything (looked
  // up only for a result that activates: the usual one needs no lookup by name).
  const activatedTools = names !== undefined && names.length > 0 && ctx.byName.get(ext.name) === ext ? activate(ctx, names) : [];
  return { content, isError: frame.is_error ?? false, extension: ext.name, activatedTools, failure: undefined };
}

function activate(ctx: HostContext, names: readonly string[]): string[] {
  const activated: string[] = [];
  for (const name of names) {
    const r = ctx.toolRegistry.get(name);
    if (r === undefined || !r.value.deferred) continue; // unknown names are ignored (spec)
    activated.push(name);
    if (!ctx.activated.has(name)) {
      ctx.activated.add(name);
      toolsChangedSoon(ctx);
    }
  }
  return activated;
}

/** The NOT_STARTED failure of a call (`what`: `tool x`, `/x`) while the host is not running. */
function notStarted(ctx: HostContext, what: string): ExtensionHostError {
  return new ExtensionHostError(ErrorCode.NOT_STARTED, `${what}: the host is ${ctx.status === 'idle' ? 'not started' : ctx.status}`);
}

function failedResult(failure: ExtensionHostError, extension: string | undefined): ToolResult {
  return { content: [{ type: 'text', text: failure.message }], isError: true, extension, activatedTools: [], failure };
}

// What callTool checks before anything is sent: args it could not encode and options that would
// silently mean "no deadline" must come back as a typed INVALID_ARGUMENT result, not a TypeError.

/**
 * The error for `callTool(name, args, options)` when the args are not a JSON object or `timeoutMs`
 * is not a number >= 0 (Infinity = no deadline); undefined when the call can go out.
 */
function toolCallProblem(
  name: string,
  extension: string,
  args: unknown,
  options: { timeoutMs?: number | undefined; maxTotalTimeoutMs?: number | undefined } | undefined,
): ExtensionHostError | undefined {
  let problem: string | undefined;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) problem = 'args must be a JSON object';
  // Args that cannot be encoded (cyclic, a BigInt, too deep) are found by the encoder itself, at no
  // cost to a good call: the request fails with INVALID_ARGUMENT (ExtensionProcess.request).
  const timeoutMs = options?.timeoutMs;
  if (problem === undefined && timeoutMs !== undefined && !(typeof timeoutMs === 'number' && timeoutMs >= 0)) {
    problem = `timeoutMs must be a number >= 0 (Infinity = no deadline), got ${String(timeoutMs)}`;
  }
  const maxTotal = options?.maxTotalTimeoutMs;
  if (problem === undefined && maxTotal !== undefined && !(typeof maxTotal === 'number' && maxTotal >= 0)) {
    problem = `maxTotalTimeoutMs must be a number >= 0, got ${String(maxTotal)}`;
  }
  return problem === undefined ? undefined : new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `tool ${name}: ${problem}`, { extension });
}

// tool_result content as the model gets it, with zot's leniency: a block of an unknown type becomes a
// text placeholder (the others are kept), and an empty result one short text (providers need one).

/** `tool_result.content` (validated) as ToolContent. */
function toolContent(blocks: readonly ResultBlock[] | undefined): ToolContent[] {
  if (blocks === undefined || blocks.length === 0) return [{ type: 'text', text: '(extension returned no content)' }];
  return blocks.map(toContent);
}

// The schema guarantees that a block typed text or image is a well-formed one.
function toContent(block: ResultBlock): ToolContent {
  if (block.type === 'text') return block as TextBlock;
  if (block.type === 'image') {
    const image = block as ImageBlock;
    return { type: 'image', mimeType: image.mime_type, data: image.data };
  }
  return { type: 'text', text: `[unsupported content block: ${block.type}]` };
}

// ---------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------

/** ExtensionHost.runCommand: dispatches to the owning extension and applies its answer. */
export async function runCommand(ctx: HostContext, input: string | { name: string; args?: string | undefined }, options: HostCallOptions = {}): Promise<CommandOutcome> {
  let name: string;
  let args: string;
  if (typeof input === 'string') {
    const text = input.trimStart().replace(/^\//, '');
    const space = text.search(/\s/);
    name = space === -1 ? text : text.slice(0, space);
    args = space === -1 ? '' : text.slice(space).trim();
  } else {
    name = input.name.replace(/^\//, '');
    args = String(input.args ?? '').trim();
  }
  // As callTool: the host not running is a typed failure, and still `handled: false` (the agent's fallback runs).
  if (ctx.status !== 'running') return { handled: false, name, args, failure: notStarted(ctx, `/${name}`) };
  const registration = ctx.commandRegistry.get(name);
  const ext = registration === undefined ? undefined : ctx.byName.get(registration.extension);
  if (registration === undefined || ext === undefined || (ext.state !== 'ready' && !ext.restarting)) return { handled: false, name, args };
  const command = registration.name;
  const base = { handled: true as const, name: command, args, extension: ext.name, text: undefined, panel: undefined, error: undefined };
  if (ext.restarting) return { ...base, action: 'noop', failure: restartingError(ext, `/${command}`) };
  let response: CommandResponseFrame;
  try {
    const timeoutMs = options.timeoutMs ?? ctx.timeouts.command;
    const requestOptions = options.onProgress === undefined ? { timeoutMs, signal: options.signal } : progressOptions(ext, command, options, timeoutMs, false);
    response = await (ctx.tracer === undefined ? ext.process.request({ type: 'command_invoked', name: command, args }, requestOptions) : (ctx.tracer.command(ext, command, args, requestOptions) as Promise<CommandResponseFrame>));
  } catch (err) {
    const failure = toHostError(err, ErrorCode.BAD_RESPONSE, { extension: ext.name, logPath: ext.logPath });
    ctx.out.warn({ message: `/${command} failed: ${failure.message}`, extension: ext.name, logPath: ext.logPath, code: failure.code, error: failure });
    return { ...base, action: 'noop', failure };
  }
  return applyCommandResponse(ctx, ext, command, args, response);
}

function applyCommandResponse(ctx: HostContext, ext: LoadedExtension, command: string, args: string, r: CommandResponseFrame): CommandOutcome {
  const action = r.action ?? 'noop';
  const error = r.error !== undefined && r.error.length > 0 ? r.error : undefined;
  const outcome = { handled: true as const, name: command, args, extension: ext.name, action, text: undefined as string | undefined, panel: undefined as PanelView | undefined, error, failure: undefined as ExtensionHostError | undefined };
  // The spec: the error shows "regardless of action", so it is reported AND the action runs.
  if (error !== undefined) ctx.out.call('notify', { extension: ext.name, level: 'error', message: error });
  const missing = (field: string) => {
    outcome.failure = new ExtensionHostError(ErrorCode.BAD_RESPONSE, `${ext.name}: /${command} answered ${action} without ${field}`, { extension: ext.name, logPath: ext.logPath });
    ctx.diagnostics.diagnose({ code: 'BAD_RESPONSE', message: outcome.failure.message, extension: ext.name, severity: 'warning' });
  };
  switch (action) {
    case 'prompt':
    case 'insert':
    case 'display': {
      const text = r[action];
      // zot ignores an empty prompt; its Go SDK sends `Prompt("")` without the field at all.
      if (action === 'prompt' && (text === undefined || text.trim().length === 0)) {
        outcome.text = text;
        break;
      }
      if (text === undefined) {
        missing(action);
        break;
      }
      outcome.text = text;
      ctx.out.call(action, { extension: ext.name, command, text });
      break;
    }
    case 'open_panel': {
      const spec = r.open_panel;
      if (spec === undefined) {
        missing('open_panel');
        break;
      }
      if (!permits(ctx, ext, 'panels')) {
        outcome.failure = panelRefusal(ext);
        break;
      }
      const opened = openPanel(ctx, ext, spec);
      if (opened instanceof ExtensionHostError) outcome.failure = opened;
      else outcome.panel = opened;
      break;
    }
    case 'noop':
      break;
  }
  return outcome;
}

// ---------------------------------------------------------------------------------------------
// Progress reports of running calls (capability "progress"): the caller's onProgress and the
// `tool:progress` event; and the request options a call with progress needs.
// ---------------------------------------------------------------------------------------------

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
function progressOptions(ext: LoadedExtension, name: string, options: HostCallOptions, timeoutMs: number, tool: boolean): RequestOptions {
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
