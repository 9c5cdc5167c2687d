// The SDK for extension authors: `zot-extension-host/sdk`. Every export is listed by name.
export { defineExtension } from './extension.js';
export type {
  Extension,
  ExtensionOptions,
  CommandOptions,
  ToolOptions,
  ZodToolOptions,
  StandardSchemaToolOptions,
  JsonSchemaToolOptions,
  RunOptions,
} from './extension.js';
export { prompt, insert, display, openPanel, noop, toolPrompt } from './responses.js';
export type { CommandResponse, ResponseOptions, PanelSpec, PanelView } from './responses.js';
export { text, markdown, image, toolError } from './results.js';
export type { ToolContent, ToolResult, ToolReturn } from './results.js';
export type {
  EventPayload,
  EventPayloads,
  UpstreamEventPayloads,
  UpstreamEventName,
  KnownEventName,
  EventBase,
  ObservedResult,
  CustomEventPayload,
  InterceptInputs,
  InterceptDecisions,
} from './events.js';
export type {
  HostInfo,
  PanelHandle,
  OpenPanelSpec,
  OpenPanelHandlers,
  AskKeyHandler,
  ExtensionContext,
  RequestContext,
  ToolContext,
  ProgressUpdate,
  HelloHandler,
  CommandHandler,
  ToolHandler,
  EventHandler,
  InterceptHandler,
  PanelKeyHandler,
  PanelCloseHandler,
} from './types.js';
export type { CallToolOptions, CallToolResult } from './call-tool.js';
export { ExtensionSdkError, SdkErrorCode } from './errors.js';
export type { ZodSchema } from './schema.js';
export type { StandardSchemaV1 } from './standard-schema.js';
export type {
  EventName,
  InterceptName,
  NotifyLevel,
  PanelKeyName,
  PanelKey,
  JsonObject,
  ContentBlock,
  TextBlock,
  ImageBlock,
} from '../protocol/frames.js';
