// The embedder's calls into extensions: callTool and runCommand (their checks, the request, the
// answer as a result or an outcome), and the progress extensions report for them.
import { ErrorCode, ExtensionHostError, toHostError } from '../errors.js';
import { describeValue } from './options.js';
import type { RequestFrame, RequestOptions, RequestType, ResponseMapper } from '../process/extension-process.js';
import type { CommandResponseFrame, ImageBlock, ProgressFrame, ResultBlock, TextBlock, ToolResultFrame } from '../protocol/frames.js';
import { restartingError, type HostContext, type LoadedExtension } from './context.js';
import { InteractiveCall, openPanel } from './panels.js';
import { toolsChangedSoon } from './registrations.js';
import { panelRefusal, permits } from './security.js';
import type { CallProgress, CommandOutcome, HostCallOptions, PanelView, ToolContent, ToolProgress, ToolResult } from './types.js';

/**
 * ExtensionHost.callTool: always resolves, failures as `isError: true` with a typed `failure`.
 * `chain`: the tool names of the calls this one runs inside (an extension's call_tool, call-tool.ts).
 */
export function callTool(ctx: HostContext, name: string, args: Record<string, unknown>, given?: HostCallOptions, chain?: readonly string[]): Promise<ToolResult> {
  // From JavaScript anything may come: a typed result, never a throw (a Symbol, a throwing getter).
  if (typeof name !== 'string') return Promise.resolve(failedResult(new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `callTool: the tool name must be a string, got ${describeValue(name)}`), undefined));
  let checked: HostCallOptions | undefined;
  try {
    checked = callOptions({ tool: name }, given);
  } catch (err) {
    return Promise.resolve(failedResult(toHostError(err, ErrorCode.INVALID_ARGUMENT), undefined));
  }
  const options = checked;
  if (ctx.status !== 'running') return Promise.resolve(failedResult(notStarted(ctx, `tool ${name}`), undefined));
  const registration = ctx.toolRegistry.get(name);
  const ext = registration === undefined ? undefined : ctx.byName.get(registration.extension);
  const hidden = registration !== undefined && registration.value.deferred && !ctx.activated.has(name);
  if (ext !== undefined && !hidden && ext.restarting) return Promise.resolve(failedResult(restartingError(ext, `tool ${name}`), ext.name));
  if (registration === undefined || ext === undefined || ext.state !== 'ready' || hidden) {
    return Promise.resolve(failedResult(new ExtensionHostError(ErrorCode.UNKNOWN_TOOL, unknownToolText(name, hidden)), undefined));
  }
  const invalid = toolCallProblem(name, ext.name, args, options);
  if (invalid !== undefined) return Promise.resolve(failedResult(invalid, ext.name));
  if (registration.value.interactive) return interactiveCall(ctx, ext, name, args, options, chain);
  return sendToolCall(ctx, ext, name, args, options, options?.timeoutMs ?? ctx.timeouts.tool, options?.signal, toolMapper(ctx, ext), chain);
}

/** Why `name` cannot be called: no extension registered it, or it is `deferred` and not activated (call-tool.ts words it the same). */
export function unknownToolText(name: string, deferred: boolean): string {
  return deferred ? `tool ${name} is deferred and has not been activated` : `no extension tool named ${name}`;
}

function sendToolCall(
  ctx: HostContext,
  ext: LoadedExtension,
  name: string,
  args: Record<string, unknown>,
  options: HostCallOptions | undefined,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  given: ResponseMapper<ToolResultFrame, ToolResult>,
  chain: readonly string[] | undefined,
): Promise<ToolResult> {
  const progress = options?.onProgress !== undefined || options?.resetTimeoutOnProgress === true;
  const requestOptions: RequestOptions = progress ? progressOptions(ext, name, { ...options, signal }, timeoutMs, true) : { timeoutMs, signal };
  let mapper = given;
  // Only an extension that may call tools itself needs to know which calls it runs inside.
  if (ext.process.callsTools) mapper = linked(ext, chain === undefined ? [name] : [...chain, name], requestOptions, mapper);
  if (ctx.tracer !== undefined) return ctx.tracer.tool(ext, name, args, requestOptions, mapper, options);
  requestOptions.map = mapper;
  return ext.process.request(toolCallFrame(name, args, options), requestOptions) as Promise<unknown> as Promise<ToolResult>;
}

/**
 * A call of an interactive tool (zot's `register_tool.interactive`): no default deadline while the
 * user decides. It ends with its answer, the caller's signal or explicit `timeoutMs`, the
 * extension's exit, stop() / reload(), or `timeouts.interactiveGrace` after the user closed the
 * panels it opened (panels.ts InteractiveCall).
 */
function interactiveCall(ctx: HostContext, ext: LoadedExtension, name: string, args: Record<string, unknown>, options: HostCallOptions | undefined, chain: readonly string[] | undefined): Promise<ToolResult> {
  const call = new InteractiveCall(name, ext);
  ext.interactive.add(call);
  let signal: AbortSignal = call.controller.signal;
  if (options?.signal !== undefined) {
    try {
      signal = AbortSignal.any([options.signal, signal]);
    } catch {
      // Not an AbortSignal: the request refuses it (INVALID_ARGUMENT), as for any call.
      signal = options.signal;
    }
  }
  const mapper = toolMapper(ctx, ext);
  const settled: ResponseMapper<ToolResultFrame, ToolResult> = {
    frame: (frame) => (call.end(), mapper.frame(frame)),
    error: (error) => (call.end(), call.failure !== undefined ? failedResult(call.failure, ext.name) : mapper.error(error)),
  };
  return sendToolCall(ctx, ext, name, args, options, options?.timeoutMs ?? Infinity, signal, settled, chain);
}

/**
 * A tool call to an extension that declared zot's "call_tool": recorded by its wire id (its
 * `parent_id` for the calls it makes meanwhile) with its chain, until it settles; then the calls it
 * made inside it are aborted (call-tool.ts), as zot ends them with their parent's context.
 */
function linked(
  ext: LoadedExtension,
  chain: readonly string[],
  options: RequestOptions,
  mapper: ResponseMapper<ToolResultFrame, ToolResult>,
): ResponseMapper<ToolResultFrame, ToolResult> {
  const links = (ext.toolLinks ??= new Map());
  const ended = new AbortController();
  let id: string | undefined;
  const end = (): void => {
    if (id !== undefined) links.delete(id);
    ended.abort();
  };
  // `options` is this call's own (sendToolCall makes it): told in place.
  options.onId = (wire) => {
    id = wire;
    links.set(wire, { chain, ended: ended.signal });
  };
  return { frame: (frame) => (end(), mapper.frame(frame)), error: (error) => (end(), mapper.error(error)) };
}

/** What the answer of a tool call (or its failure) becomes: a ToolResult, built as the response settles. */
function toolMapper(ctx: HostContext, ext: LoadedExtension): ResponseMapper<ToolResultFrame, ToolResult> {
  return {
    frame: (frame) => toolResult(ctx, ext, frame),
    error: (err) => failedResult(toHostError(err, ErrorCode.BAD_RESPONSE, { extension: ext.name, logPath: ext.logPath }), ext.name),
  };
}

function toolResult(ctx: HostContext, ext: LoadedExtension, frame: ToolResultFrame): ToolResult {
  const { content, broken } = toolContent(frame.content);
  const names = frame.activate_tools;
  // A reload may have happened while waiting: a stale extension must not activate anything (looked
  // up only for a result that activates: the usual one needs no lookup by name).
  const activatedTools = names !== undefined && names.length > 0 && ctx.byName.get(ext.name) === ext ? activate(ctx, names) : [];
  const result: ToolResult = { content, isError: broken || (frame.is_error ?? false), extension: ext.name, activatedTools, failure: undefined };
  if (frame.structured_content !== undefined) result.structuredContent = frame.structured_content;
  return result;
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
  options: Pick<HostCallOptions, 'timeoutMs' | 'maxTotalTimeoutMs' | 'operationKey' | 'reconcile'> | undefined,
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
  const { operationKey, reconcile } = options ?? {};
  if (problem === undefined && operationKey !== undefined && !(typeof operationKey === 'string' && operationKey.length > 0)) problem = 'operationKey must be a non-empty string';
  if (problem === undefined && reconcile !== undefined && (typeof reconcile !== 'boolean' || (reconcile && operationKey === undefined))) problem = 'reconcile must be a boolean, and needs an operationKey';
  return problem === undefined ? undefined : new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `tool ${name}: ${problem}`, { extension });
}

/**
 * The `tool_call` frame: zot's `operation_key` and `reconcile` (experimental, docs/protocol.md "zot
 * versions") only when the caller passes them, so an ordinary call's bytes stay the snapshot's.
 */
export function toolCallFrame(name: string, args: Record<string, unknown>, options: HostCallOptions | undefined): RequestFrame<'tool_call'> {
  const frame: RequestFrame<'tool_call'> = { type: 'tool_call', name, args };
  if (options?.operationKey !== undefined) frame.operation_key = options.operationKey;
  if (options?.reconcile === true) frame.reconcile = true;
  return frame;
}

// tool_result content as the model gets it, with zot's leniency: a block of an unknown type becomes a
// text placeholder (the others are kept), an empty text block is dropped, an image whose data is not
// base64 becomes an error text and makes the result an error (as zot does), and an empty result one
// short text (providers need one).

/** Standard base64 with padding, as zot decodes image data. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `tool_result.content` (validated) as ToolContent; `broken`: an image's data did not decode. */
function toolContent(blocks: readonly ResultBlock[] | undefined): { content: ToolContent[]; broken: boolean } {
  const content: ToolContent[] = [];
  let broken = false;
  for (const block of blocks ?? []) {
    // The schema guarantees that a block typed text or image is a well-formed one.
    if (block.type === 'text') {
      if ((block as TextBlock).text !== '') content.push(block as TextBlock);
    } else if (block.type === 'image') {
      const image = block as ImageBlock;
      if (BASE64.test(image.data)) content.push({ type: 'image', mimeType: image.mime_type, data: image.data });
      else {
        broken = true;
        content.push({ type: 'text', text: `[image block (${image.mime_type.slice(0, 80)}) dropped: its data is not valid base64]` });
      }
    } else content.push({ type: 'text', text: `[unsupported content block: ${block.type}]` });
  }
  if (content.length === 0) content.push({ type: 'text', text: '(extension returned no content)' });
  return { content, broken };
}

// ---------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------

/** ExtensionHost.runCommand: dispatches to the owning extension and applies its answer. */
export async function runCommand(ctx: HostContext, input: string | { name: string; args?: string | undefined }, given: HostCallOptions = {}): Promise<CommandOutcome> {
  const { name, args } = commandInput(input);
  const options = callOptions({ command: name }, given) ?? {};
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

/** `/name args` or `{ name, args }` as name and args; anything else is INVALID_ARGUMENT. */
function commandInput(input: unknown): { name: string; args: string } {
  if (typeof input === 'string') {
    const text = input.trimStart().replace(/^\//, '');
    const space = text.search(/\s/);
    return { name: space === -1 ? text : text.slice(0, space), args: space === -1 ? '' : text.slice(space).trim() };
  }
  if (typeof input !== 'object' || input === null) throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `runCommand: the input must be "/name args" or { name, args? }, got ${describeValue(input)}`);
  const { name, args } = read('runCommand: the input', () => ({ name: (input as { name?: unknown }).name, args: (input as { args?: unknown }).args }));
  if (typeof name !== 'string') throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `runCommand: the command name must be a string, got ${describeValue(name)}`);
  // A number or boolean is taken as its text (as before); a Symbol or an object is no text.
  if (args !== undefined && !['string', 'number', 'boolean', 'bigint'].includes(typeof args)) throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `runCommand /${name}: args must be a string, got ${describeValue(args)}`);
  return { name: name.replace(/^\//, ''), args: String(args ?? '').trim() };
}

/**
 * The embedder's call options read once into a plain object: what is not an object, or whose
 * getters (or a Proxy's traps) throw, is INVALID_ARGUMENT, never a TypeError later.
 */
function callOptions(call: CallLabel, options: unknown): HostCallOptions | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `${labelOf(call)}: options must be an object, got ${describeValue(options)}`);
  const o = options as HostCallOptions;
  const out: HostCallOptions = {};
  try {
    for (const key of CALL_OPTION_KEYS) {
      const value = o[key];
      if (value !== undefined) (out as Record<string, unknown>)[key] = value;
    }
  } catch (err) {
    throw readError(`${labelOf(call)}: options`, err);
  }
  return out;
}

/** Which call an options object is for: worded only when it is wrong (`tool x`, `/x`). */
type CallLabel = { readonly tool: string } | { readonly command: string };

function labelOf(call: CallLabel): string {
  return 'tool' in call ? `tool ${call.tool}` : `/${call.command}`;
}

// Every key of HostCallOptions, checked by the compiler: an option added to the type is read here too.
const CALL_OPTION_KEYS = Object.keys({
  signal: true,
  timeoutMs: true,
  onProgress: true,
  resetTimeoutOnProgress: true,
  maxTotalTimeoutMs: true,
  toolCallId: true,
  operationKey: true,
  reconcile: true,
} satisfies Record<keyof HostCallOptions, true>) as (keyof HostCallOptions)[];

/** `get()` of an embedder's value; a getter or trap that throws is INVALID_ARGUMENT. */
function read<T>(what: string, get: () => T): T {
  try {
    return get();
  } catch (err) {
    throw readError(what, err);
  }
}

function readError(what: string, err: unknown): ExtensionHostError {
  return new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `${what} could not be read: ${err instanceof Error ? err.message : describeValue(err)}`, { cause: err });
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
    case 'tool_prompt': {
      const { prompt, tool_name: toolName, tool_args: toolArgs } = r;
      if (prompt === undefined || prompt.trim().length === 0) missing('prompt');
      else if (toolName === undefined || toolName.length === 0) missing('tool_name');
      else if (toolArgs === undefined) missing('tool_args');
      else {
        const handled = ctx.options.callbacks?.toolPrompt !== undefined;
        outcome.text = prompt;
        (outcome as CommandOutcome & { handled: true }).toolPrompt = { toolName, toolArgs, handled };
        if (!handled) ctx.out.warn({ message: `${ext.name}: /${command} answered tool_prompt (run ${toolName}, then "${prompt.slice(0, 80)}"), but the agent has no toolPrompt callback; nothing ran`, extension: ext.name, logPath: ext.logPath, code: 'TOOL_PROMPT_UNHANDLED' });
        ctx.out.call('toolPrompt', { extension: ext.name, command, prompt, toolName, toolArgs });
      }
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
