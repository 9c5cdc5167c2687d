// The public API of zot-extension-host. Every export is listed by name; everything else is internal.

// Errors
export { ErrorCode, ExtensionHostError, isExtensionHostError } from './errors.js';
export type { ExtensionHostErrorJSON, ExtensionHostErrorOptions } from './errors.js';

// The host
export { ExtensionHost } from './host/host.js';
export type { HostCallOptions } from './host/host.js';
export type {
  CallProgress,
  ToolProgress,
  TracingOption,
  TracingSettings,
  TracerProviderLike,
  LifecycleEvent,
  KnownLifecycleEvent,
  CommandInfo,
  CommandOutcome,
  ExtensionHostOptions,
  FrameTapEntry,
  ExtensionInfo,
  ExtensionState,
  FailedReport,
  HostCallbacks,
  HostDiagnostic,
  HostEvents,
  HostTimeouts,
  HostWarning,
  InMemoryExtension,
  InterceptPolicy,
  LoadedReport,
  NoteView,
  Origin,
  PanelCallOptions,
  PanelKey,
  PanelView,
  ReadyVia,
  RegisteredCommand,
  RegisteredTool,
  RestartPolicy,
  StartReport,
  StartingReport,
  ToolContent,
  ToolInfo,
  ToolPromptAction,
  BuiltinToolCall,
  BuiltinToolResult,
  ExtensionToolCall,
  ToolResult,
  EnvOption,
  InterceptScope,
  PermissionPolicy,
  PermissionScope,
  Scope,
  SecurityOptions,
  KeepAliveOptions,
  RemoteOptions,
  RateLimitOptions,
  RateLimits,
  // zot's lifecycle events (issue 30)
  EmittedEvent,
  LifecycleEventOptions,
  ToolExposure,
  ToolReplay,
  // Workspace trust (issue 32)
  TrustDecision,
  TrustOption,
  TrustOptions,
  TrustRequest,
  TrustState,
} from './host/types.js';
// The OS sandbox of spawned extensions (issue 32, docs/security.md#the-sandbox)
export type { ManifestSandbox, SandboxInfo, SandboxMode, SandboxNetwork, SandboxOption, SandboxPolicy } from './transport/sandbox.js';

// Provider shapes: the host's tools and tool results for the Anthropic and OpenAI APIs
export { toAnthropicToolResult, toAnthropicTools } from './providers/anthropic.js';
export type { AnthropicImageBlock, AnthropicTextBlock, AnthropicTool, AnthropicToolResult } from './providers/anthropic.js';
export { toOpenAIToolResult, toOpenAITools } from './providers/openai.js';
export type {
  OpenAIApi,
  OpenAIChatTool,
  OpenAIChatToolMessage,
  OpenAIChatToolResult,
  OpenAIChatToolResultOptions,
  OpenAIChatUserMessage,
  OpenAIFunctionCallOutput,
  OpenAIResponsesOutputContent,
  OpenAIResponsesTool,
  OpenAIResponsesToolResultOptions,
  OpenAIToolsOptions,
} from './providers/openai.js';
export type { ProviderImageType } from './providers/content.js';

// Discovery
export { ManifestDiscovery, isSpawnable } from './manifest/discovery.js';
export type {
  DiscoveredExtension,
  DiscoveryResult,
  ExtensionKind,
  ExtensionSource,
  ManifestDiscoveryOptions,
  ShadowingExtension,
} from './manifest/discovery.js';
export { resolveHome, homeEnvVar } from './manifest/home.js';
export type { ResolveHomeOptions } from './manifest/home.js';
export { DiagnosticCode } from './manifest/diagnostics.js';
export type { DiagnosticSeverity, DiscoveryDiagnostic } from './manifest/diagnostics.js';
export { MANIFEST_FILE, nameProblem } from './manifest/limits.js';
// The Manifest schema itself is exported by zot-extension-host/schemas (it needs zod).
export type { Manifest } from './manifest/schema.js';
export type { SkillInfo } from './manifest/skills.js';
export type { McpHttpServer, McpServerConfig, McpStdioServer } from './manifest/mcp.js';

// Interception
export { InterceptChain } from './intercept/chain.js';
export type {
  AssistantMessageResult,
  CallOptions as InterceptCallOptions,
  InterceptChainOptions,
  InterceptDiagnostic,
  InterceptEvent,
  ToolCallResult,
  TraceStep,
  TurnStartResult,
  AssistantMessageDecision,
  AssistantMessageInput,
  BeforeAgentStartDecision,
  BeforeAgentStartInput,
  FailureKind,
  InterceptContext,
  Interceptor,
  ToolCallDecision,
  ToolCallInput,
  TurnStartDecision,
  TurnStartInput,
} from './intercept/types.js';
export type { PreparedSystemPrompt, PrepareSystemPromptOptions } from './intercept/system-prompt.js';

// The wire protocol (for tools that speak it directly). The zod schemas (ExtensionFrame, HostFrame)
// and decodeExtensionFrame are exported by zot-extension-host/schemas: this entry does not load zod.
export { EVENT_NAMES, INTERCEPT_NAMES, NOTIFY_LEVELS, PANEL_KEYS } from './protocol/names.js';
export type {
  CommandAction,
  ContentBlock,
  EventName,
  ExtensionFrame,
  HostFrame,
  InterceptName,
  NotifyLevel,
  PanelKeyName,
} from './protocol/frames.js';
export { LineDecoder } from './protocol/decoder.js';
export type { LineDecoderOptions } from './protocol/decoder.js';
export { encodeFrame } from './protocol/frame-check.js';
export type { DecodedFrame, FrameProblem } from './protocol/frame-check.js';
export { DEFAULT_MAX_FRAME_BYTES, MAX_SYSTEM_PROMPT_BYTES, PROTOCOL_VERSION } from './protocol/limits.js';

export { VERSION } from './version.js';
