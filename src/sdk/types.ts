/** Handler and context types of the SDK's public surface. */
import type { InterceptName, JsonObject, NotifyLevel, PanelKey } from '../protocol/frames.js';
import type { EventPayload, InterceptDecisions, InterceptInputs } from './events.js';
import type { CommandResponse, PanelView } from './responses.js';
import type { ToolReturn } from './results.js';
import type { CallToolOptions, CallToolResult } from './call-tool.js';

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

/** A panel the extension opens by itself (`ctx.openPanel`): `id` may be left to the SDK. */
export interface OpenPanelSpec extends PanelView {
  /** The panel's id; must not be open through `openPanel` already. @default a fresh `panel-<n>` */
  id?: string | undefined;
}

/** What the user does in a panel opened with `ctx.openPanel`: registered before the panel opens. */
export interface OpenPanelHandlers {
  /** Each key, in order, each after the previous one settled (as `onPanelKey`). */
  onKey?: PanelKeyHandler | undefined;
  /** The user closed the panel in the host (not called for `panel.close()`). */
  onClose?: PanelCloseHandler | undefined;
}

/**
 * The key handler of `ctx.ask`: return the answer to finish (the panel closes), `undefined` to go
 * on (e.g. after `panel.render()`); `panel.close()` finishes with `undefined`.
 */
export type AskKeyHandler<T> = (key: PanelKey, text: string | undefined, panel: PanelHandle) => MaybePromise<T | undefined>;

/** What every handler can do besides answering. */
export interface ExtensionContext {
  /** The host's `hello_ack` information. */
  readonly host: HostInfo;
  /** Aborted when the extension stops (shutdown, end of input): long work should give up. */
  readonly signal: AbortSignal;
  /** Shows a one-shot note with this extension's name. The level comes first (Python's SDK: `notify(message, level="info")`). */
  notify(level: NotifyLevel, message: string): void;
  /** Removes every note this extension pushed. */
  clearNotes(): void;
  /** Submits `text` as a user prompt (queued behind a running turn). */
  submit(text: string): void;
  /** A handle on an extension-owned panel. */
  panel(id: string): PanelHandle;
  /**
   * Opens a panel now (zot's `open_panel` frame: also from inside a tool call or command), with its
   * key and close handlers registered first, so no key arrives unhandled. The handlers go once the
   * panel closes. Throws `INVALID_DEFINITION` when a panel of that id is open through this already.
   * A host without the frame (before zot's 2026-06 additions) ignores it.
   */
  openPanel(panel: OpenPanelSpec, handlers?: OpenPanelHandlers): PanelHandle;
  /**
   * Opens a panel and resolves with the first answer `onKey` returns (the panel then closes), or
   * `undefined` when the panel closes otherwise: the user closed it, `onKey` called `panel.close()`,
   * or this context's `signal` aborted (the panel is closed then). For a tool that waits for the
   * user, register it `interactive: true`.
   */
  ask<T>(panel: OpenPanelSpec, onKey: AskKeyHandler<T>): Promise<T | undefined>;
  /**
   * Runs a tool through the host (zot's `call_tool`): another extension's, or one of the agent's own
   * the host offers. Inside a tool handler the call runs inside that tool call (its `parent_id`):
   * it ends when that call ends. Needs `defineExtension({ callTools: true })` and a host that offers
   * `call_tool` in hello_ack. Resolves the answer (a failing tool, or a call the host refuses, with
   * `isError`); rejects with `ExtensionSdkError` `CALL_TOOL_UNAVAILABLE`, `INVALID_ARGUMENT`,
   * `ABORTED` (`options.signal`, by default this context's `signal`), `TIMEOUT` (default 60 s) or
   * `STOPPED`; on abort and timeout the host is told (`call_tool_cancel`).
   */
  callTool(name: string, args: JsonObject, options?: CallToolOptions): Promise<CallToolResult>;
}

/** One `ctx.progress()` update; every field is optional. */
export interface ProgressUpdate {
  /** A short status line; cut to 1,000 characters. */
  message?: string | undefined;
  /** How far the work got (a finite number, in units of `total`). */
  progress?: number | undefined;
  /** The amount of work in all, when known (a finite number). */
  total?: number | undefined;
}

/** Context of a handler that answers a host request (a tool call, a command, an interceptor). */
export interface RequestContext extends ExtensionContext {
  /** The id of the request being answered. */
  readonly requestId: string;
  /**
   * Aborted when the extension stops, and also when the host cancels this request (capability
   * `"cancel"`): its reason is a `DOMException` named `TimeoutError` when the request reached its
   * deadline, `AbortError` otherwise. After a cancel the host no longer waits: a handler that then
   * throws gets no answer sent; one that still returns is answered (the host drops it).
   */
  readonly signal: AbortSignal;
  /**
   * Reports how far a tool call or a command got (frame `progress`). Sent only when the host
   * negotiated `"progress"` and the request is still pending; returns whether it was sent.
   * Always false in an interceptor, and when the output is backed up (progress is lossy).
   * Throws a TypeError when `progress`/`total` are not finite numbers or `message` is not a string.
   */
  progress(update: ProgressUpdate): boolean;
  /**
   * The W3C `traceparent` of the host's span for this request (capability `"trace"`), to continue
   * the trace. @default undefined (not negotiated, not sent, or malformed)
   */
  readonly traceparent: string | undefined;
  /** The W3C `tracestate` that came with `traceparent`. @default undefined */
  readonly tracestate: string | undefined;
}

type MaybePromise<T> = T | Promise<T>;

export type HelloHandler = (host: HostInfo) => MaybePromise<void>;

/** Returns the command's response; returning nothing means `noop()`, throwing answers with an error. */
export type CommandHandler = (args: string, ctx: RequestContext) => MaybePromise<CommandResponse | undefined | void>;

/** Context of a tool handler: a request context, with zot's continuous-mode fields of the call. */
export interface ToolContext extends RequestContext {
  /**
   * zot's `tool_call.operation_key` (experimental "continuous" mode): a stable idempotency key of
   * this intent across replays; pass it on to whatever performs the operation. @default undefined (not sent)
   */
  operationKey?: string | undefined;
  /**
   * zot's `tool_call.reconcile`: do NOT perform the operation; answer its state in
   * `structuredContent`: `{ state: 'completed' | 'not_started' | 'unknown' }`. @default undefined (not sent)
   */
  reconcile?: true | undefined;
}

/** Returns the tool result; throwing answers with `is_error`. */
export type ToolHandler<Args> = (args: Args, ctx: ToolContext) => MaybePromise<ToolReturn>;

export type EventHandler<E extends string> = (event: EventPayload<E>, ctx: ExtensionContext) => MaybePromise<void>;

/** Returns a decision; returning nothing (or throwing) allows the event unchanged. */
export type InterceptHandler<K extends InterceptName> = (
  input: InterceptInputs[K],
  ctx: RequestContext,
) => MaybePromise<InterceptDecisions[K] | undefined | void>;

/** Keys of one panel reach its handler strictly in order, each after the previous one settled. */
export type PanelKeyHandler = (
  /** One of the spec's names (`PanelKeyName`), or another name the host forwarded as it is. */
  key: PanelKey,
  /** The typed character, for `key === 'rune'`. */
  text: string | undefined,
  panel: PanelHandle,
  ctx: ExtensionContext,
) => MaybePromise<void>;

/** The user closed the panel in the host; stop rendering it. */
export type PanelCloseHandler = (panel: PanelHandle, ctx: ExtensionContext) => MaybePromise<void>;
