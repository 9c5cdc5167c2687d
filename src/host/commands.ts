import { ErrorCode, ExtensionHostError, toHostError } from '../errors.js';
import type { CommandResponseFrame } from '../protocol/frames.js';
import type { HostContext } from './context.js';
import type { LoadedExtension } from './loaded-extension.js';
import { openPanel } from './panels.js';
import { progressOptions } from './progress.js';
import { restartingError } from './restart-error.js';
import type { CommandInfo, CommandOutcome, HostCallOptions, PanelView } from './types.js';
import { panelRefusal, permits } from './permission-check.js';

/** Registered extension commands (active ones of ready extensions), in load order. */
export function listCommands(ctx: HostContext): CommandInfo[] {
  const list: CommandInfo[] = [];
  // One look-up per run of one owner's commands, and none per command of a ready one (the usual case).
  let owner: string | undefined;
  let ext: LoadedExtension | undefined;
  let ready = false;
  for (const r of ctx.commandRegistry.active()) {
    if (r.extension !== owner) {
      owner = r.extension;
      ext = ctx.byName.get(owner);
      ready = ext?.state === 'ready';
    }
    if (ready || ext?.lists('commands', r.name.toLowerCase()) === true) list.push({ name: r.name, description: r.value.description, extension: r.extension });
  }
  return list;
}

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
