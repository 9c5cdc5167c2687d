import { ErrorCode, ExtensionHostError, toHostError } from '../errors.js';
import type { ResponseMapper } from '../process/extension-process.js';
import { toolCallHead } from '../protocol/encode.js';
import type { ToolResultFrame } from '../protocol/frames.js';
import { toolCallProblem } from './call-args.js';
import type { HostContext } from './context.js';
import type { LoadedExtension } from './loaded-extension.js';
import { progressOptions } from './progress.js';
import { restartingError } from './restart-error.js';
import { toolContent } from './tool-result.js';
import type { HostCallOptions, ToolInfo, ToolResult } from './types.js';

/** Active extension tools (deferred ones only once activated), in load order. */
export function listTools(ctx: HostContext): ToolInfo[] {
  const list: ToolInfo[] = [];
  for (const r of ctx.toolRegistry.active()) {
    if (r.value.deferred && !ctx.activated.has(r.name)) continue;
    // A late joiner, until it is ready; during a restart, what it had.
    if (ctx.byName.get(r.extension)?.lists('tools', r.name) !== true) continue;
    list.push({ name: r.name, description: r.value.description, schema: r.value.schema, extension: r.extension });
  }
  return list;
}

/** ExtensionHost.callTool: always resolves, failures as `isError: true` with a typed `failure`. */
export function callTool(ctx: HostContext, name: string, args: Record<string, unknown>, options?: HostCallOptions): Promise<ToolResult> {
  if (ctx.status !== 'running') return Promise.resolve(failedResult(new ExtensionHostError(ErrorCode.NOT_STARTED, `tool ${name}: the host is ${ctx.status === 'idle' ? 'not started' : ctx.status}`), undefined));
  const registration = ctx.toolRegistry.get(name);
  const ext = registration === undefined ? undefined : ctx.byName.get(registration.extension);
  const hidden = registration !== undefined && registration.value.deferred && !ctx.activated.has(name);
  if (ext !== undefined && !hidden && ext.restarting) return Promise.resolve(failedResult(restartingError(ext, `tool ${name}`), ext.name));
  if (registration === undefined || ext === undefined || ext.state !== 'ready' || hidden) {
    return Promise.resolve(failedResult(new ExtensionHostError(ErrorCode.UNKNOWN_TOOL, hidden ? `tool ${name} is deferred and has not been activated` : `no extension tool named ${name}`), undefined));
  }
  const invalid = toolCallProblem(name, ext.name, args, options);
  if (invalid !== undefined) return Promise.resolve(failedResult(invalid, ext.name));
  // The result is built when the response settles (no extra promise or microtask per call).
  const timeoutMs = options?.timeoutMs ?? ctx.timeouts.tool;
  const progress = options?.onProgress !== undefined || options?.resetTimeoutOnProgress === true;
  const tracer = ctx.tracer;
  // Encoded whole, not from the template: the frame may carry `_meta`.
  if (tracer !== undefined) return tracer.tool(ext, name, args, progress ? progressOptions(ext, name, options, timeoutMs, true) : { timeoutMs, signal: options?.signal }, toolMapper(ctx, ext), options);
  // The frame's line from a template (the same bytes as encoding the frame).
  const head = toolCallHead(name, args);
  const requestOptions = progress ? { ...progressOptions(ext, name, options, timeoutMs, true), head } : { timeoutMs, signal: options?.signal, head };
  return ext.process.request({ type: 'tool_call', name, args }, requestOptions, toolMapper(ctx, ext));
}

function toolMapper(ctx: HostContext, ext: LoadedExtension): ResponseMapper<ToolResultFrame, ToolResult> {
  return (ext.toolMapper ??= new ToolMapper(ctx, ext));
}

/** One per extension that was called, kept with it: methods, not two closures and their context. */
class ToolMapper implements ResponseMapper<ToolResultFrame, ToolResult> {
  constructor(
    private readonly ctx: HostContext,
    private readonly ext: LoadedExtension,
  ) {}

  frame(frame: ToolResultFrame): ToolResult {
    return toolResult(this.ctx, this.ext, frame);
  }

  error(err: unknown): ToolResult {
    const { ext } = this;
    return failedResult(toHostError(err, ErrorCode.BAD_RESPONSE, { extension: ext.name, logPath: ext.logPath }), ext.name);
  }
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

/** `toolsChanged` once per burst; during start/reload the announcement at the end covers it. */
export function toolsChangedSoon(ctx: HostContext): void {
  if (ctx.status === 'running') ctx.announceToolsSoon();
}

export function announceTools(ctx: HostContext): void {
  const tools = listTools(ctx);
  ctx.out.call('toolsChanged', tools);
  ctx.out.emit('tools:changed', tools);
}

export function failedResult(failure: ExtensionHostError, extension: string | undefined): ToolResult {
  return { content: [{ type: 'text', text: failure.message }], isError: true, extension, activatedTools: [], failure };
}
