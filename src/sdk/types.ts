/** Handler and context types of the SDK's public surface. */
import type { InterceptName, JsonObject, NotifyLevel, PanelKeyName } from '../protocol/frames.js';
import type { EventPayload, InterceptDecisions, InterceptInputs } from './events.js';
import type { CommandResponse, PanelView } from './responses.js';
import type { ToolReturn } from './results.js';

/** What the host said about itself in `hello_ack`. */
export interface HostInfo {
  protocolVersion: number;
  zotVersion: string;
  provider: string;
  model: string;
  /** The user's project directory (the extension itself runs from its own directory). */
  cwd: string;
  /** The extension's own directory. */
  extensionDir: string;
  /** Where the extension should keep its state. */
  dataDir: string;
  /** The whole `hello_ack` frame, including fields this SDK does not know. */
  raw: JsonObject;
}

/** An extension-owned panel, by id. */
export interface PanelHandle {
  readonly id: string;
  /** Pushes fresh content for the open panel (`panel_render`). */
  render(view: PanelView): void;
  /** Closes the panel (`panel_close`). */
  close(): void;
}

/** What every handler can do besides answering. */
export interface ExtensionContext {
  /** The host's `hello_ack` information. */
  readonly host: HostInfo;
  /** Aborted when the extension stops (shutdown, end of input): long work should give up. */
  readonly signal: AbortSignal;
  /** Shows a one-shot note with this extension's name. */
  notify(level: NotifyLevel, message: string): void;
  /** Removes every note this extension pushed. */
  clearNotes(): void;
  /** Submits `text` as a user prompt (queued behind a running turn). */
  submit(text: string): void;
  /** A handle on an extension-owned panel. */
  panel(id: string): PanelHandle;
}

/** Context of a handler that answers a host request. */
export interface RequestContext extends ExtensionContext {
  /** The id of the request being answered. */
  readonly requestId: string;
}

type MaybePromise<T> = T | Promise<T>;

export type HelloHandler = (host: HostInfo) => MaybePromise<void>;

/** Returns the command's response; returning nothing means `noop()`, throwing answers with an error. */
export type CommandHandler = (args: string, ctx: RequestContext) => MaybePromise<CommandResponse | undefined | void>;

/** Returns the tool result; throwing answers with `is_error`. */
export type ToolHandler<Args> = (args: Args, ctx: RequestContext) => MaybePromise<ToolReturn>;

export type EventHandler<E extends string> = (event: EventPayload<E>, ctx: ExtensionContext) => MaybePromise<void>;

/** Returns a decision; returning nothing (or throwing) allows the event unchanged. */
export type InterceptHandler<K extends InterceptName> = (
  input: InterceptInputs[K],
  ctx: RequestContext,
) => MaybePromise<InterceptDecisions[K] | undefined | void>;

/** Keys of one panel reach its handler strictly in order, each after the previous one settled. */
export type PanelKeyHandler = (
  key: PanelKeyName,
  /** The typed character, for `key === 'rune'`. */
  text: string | undefined,
  panel: PanelHandle,
  ctx: ExtensionContext,
) => MaybePromise<void>;

/** The user closed the panel in the host; stop rendering it. */
export type PanelCloseHandler = (panel: PanelHandle, ctx: ExtensionContext) => MaybePromise<void>;
