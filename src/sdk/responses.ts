/** What a command handler returns, and the helpers that build it. */
import type { CommandResponseFrame, JsonObject, PanelRenderFrame } from '../protocol/frames.js';
import { KNOWN_ACTIONS } from '../protocol/names.js';

/** Options every command response accepts. */
export interface ResponseOptions {
  /** Shown by the host as an error status line, whatever the action. */
  error?: string | undefined;
}

/** Content of an extension-owned panel. */
export interface PanelView {
  title?: string | undefined;
  lines?: readonly string[] | undefined;
  footer?: string | undefined;
}

/** A panel to open: its id (used by later renders, keys and close) plus its content. */
export interface PanelSpec extends PanelView {
  id: string;
}

/** The answer to a `command_invoked`, discriminated by `action`. */
export type CommandResponse =
  | { action: 'prompt'; prompt: string; error?: string | undefined }
  | { action: 'insert'; insert: string; error?: string | undefined }
  | { action: 'display'; display: string; error?: string | undefined }
  | { action: 'open_panel'; panel: PanelSpec; error?: string | undefined }
  | { action: 'noop'; error?: string | undefined }
  | { action: 'tool_prompt'; prompt: string; toolName: string; toolArgs: JsonObject; error?: string | undefined };

/** Submit `text` as a fresh user message: the agent runs a turn against it. */
export function prompt(text: string, options: ResponseOptions = {}): CommandResponse {
  return withError({ action: 'prompt', prompt: text }, options);
}

/** Insert `text` into the editor at the cursor without submitting it. */
export function insert(text: string, options: ResponseOptions = {}): CommandResponse {
  return withError({ action: 'insert', insert: text }, options);
}

/** Append `text` to the chat as a one-shot note; no model call, nothing in the transcript. */
export function display(text: string, options: ResponseOptions = {}): CommandResponse {
  return withError({ action: 'display', display: text }, options);
}

/** Open an extension-owned interactive panel. */
export function openPanel(panel: PanelSpec, options: ResponseOptions = {}): CommandResponse {
  return withError({ action: 'open_panel', panel }, options);
}

/**
 * Run tool `toolName` with `toolArgs` (through the agent's usual guards), then submit `text` as the
 * user message; the call and its result stay in the transcript (zot's `tool_prompt` action). A host
 * without it answers with a warning and runs nothing.
 */
export function toolPrompt(text: string, toolName: string, toolArgs: JsonObject, options: ResponseOptions = {}): CommandResponse {
  return withError({ action: 'tool_prompt', prompt: text, toolName, toolArgs }, options);
}

/** The command was handled here (e.g. through `notify`); the host changes nothing. */
export function noop(options: ResponseOptions = {}): CommandResponse {
  return withError({ action: 'noop' }, options);
}

function withError<T extends CommandResponse>(response: T, options: ResponseOptions): T {
  return options.error === undefined ? response : { ...response, error: options.error };
}

/**
 * The wire frame for a handler's return value. `undefined` means noop; anything that is not a
 * command response (JavaScript callers) becomes an error answer instead of a malformed frame.
 */
export function commandResponseFrame(id: string, response: CommandResponse | undefined): CommandResponseFrame {
  if (response === undefined) return { type: 'command_response', id, action: 'noop' };
  const action = (response as { action?: unknown } | null)?.action;
  if (typeof action !== 'string' || !KNOWN_ACTIONS.has(action)) {
    return {
      type: 'command_response',
      id,
      action: 'noop',
      error: `command handler returned an invalid response (action ${JSON.stringify(action ?? null)})`,
    };
  }
  const error = response.error === undefined ? {} : { error: response.error };
  switch (response.action) {
    case 'prompt':
      return { type: 'command_response', id, action: 'prompt', prompt: response.prompt, ...error };
    case 'insert':
      return { type: 'command_response', id, action: 'insert', insert: response.insert, ...error };
    case 'display':
      return { type: 'command_response', id, action: 'display', display: response.display, ...error };
    case 'open_panel':
      return { type: 'command_response', id, action: 'open_panel', open_panel: panelFrame(response.panel), ...error };
    case 'noop':
      return { type: 'command_response', id, action: 'noop', ...error };
    case 'tool_prompt':
      return { type: 'command_response', id, action: 'tool_prompt', prompt: response.prompt, tool_name: response.toolName, tool_args: response.toolArgs, ...error };
  }
}

/** Panel content as sent on the wire (absent fields left out). */
export function panelFrame(panel: PanelSpec): { id: string; title?: string; lines?: string[]; footer?: string } {
  return {
    id: panel.id,
    ...(panel.title === undefined ? {} : { title: panel.title }),
    ...(panel.lines === undefined ? {} : { lines: [...panel.lines] }),
    ...(panel.footer === undefined ? {} : { footer: panel.footer }),
  };
}

/** The `panel_render` frame pushing `view` to panel `id`. */
export function panelRenderFrame(id: string, view: PanelView): PanelRenderFrame {
  const { id: _id, ...content } = panelFrame({ ...view, id });
  return { type: 'panel_render', panel_id: id, ...content };
}
