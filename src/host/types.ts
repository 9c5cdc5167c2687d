// The public types of the host: its options, callbacks, events, snapshots and results (types only).
import type { McpServerConfig } from '../manifest/mcp.js';
import type { Readable, Writable } from 'node:stream';
import type { ExtensionHostError } from '../errors.js';
import type { DiscoveryDiagnostic, ExtensionSource } from '../manifest/index.js';
import type { CommandAction, EventFrame, NotifyLevel } from '../protocol/frames.js';
import type { EventName, InterceptEventName } from '../protocol/names.js';
import type { SandboxInfo, SandboxOption } from '../transport/sandbox.js';

export type { PanelKey } from '../protocol/frames.js';

/**
 * Timeouts in milliseconds. Every field is optional; the defaults are the spec's. A request deadline
 * (`command`, `tool`, `intercept`) above 2^31-1 ms, Infinity included, means no deadline; the others
 * must be at most 2^31-1 ms. NaN and negative values throw `INVALID_OPTIONS`.
 */
export interface HostTimeouts {
  /**
   * How long start() (and reload()) waits for an extension's `hello`. One that has not said hello by
   * then is left `starting` (listed in `StartReport.starting`) and may still join, up to `helloJoin`.
   * @default 5000
   */
  hello?: number | undefined;
  /**
   * The hello deadline of an extension start() went on without: it joins when it says hello before
   * this (announced by `extension:state`, `toolsChanged` / `tools:changed` and `commands:changed`),
   * else it fails with HELLO_TIMEOUT (`extension:state` failed, and a warning). Counted from spawn.
   * At or below `hello` there is no late join: no hello within `hello` fails the extension at once.
   * @default 30000
   */
  helloJoin?: number | undefined;
  /** Longest wait for `ready` after hello. @default 3000 */
  ready?: number | undefined;
  /**
   * An extension that sends frames after hello and then none for this long is auto-readied (legacy
   * SDKs never send `ready`). One that sends nothing after hello waits for the `ready` grace. @default 250
   */
  readyIdle?: number | undefined;
  /** `command_invoked` -> `command_response`. @default 30000 */
  command?: number | undefined;
  /** `tool_call` -> `tool_result`. Not applied to an interactive tool's calls (see `interactiveGrace`). @default 60000 */
  tool?: number | undefined;
  /**
   * An interactive tool's call (zot's `register_tool.interactive`) has no default deadline; when the
   * user closes the panel its extension opened during the call (`closePanel()`) and no other panel
   * of the call is open, the call fails (`ABORTED`) unless the extension answers within this grace.
   * @default 5000
   */
  interactiveGrace?: number | undefined;
  /** `event_intercept` -> response, including the request write. @default 5000 */
  intercept?: number | undefined;
  /**
   * An extension's `call_tool` request (zot's), from the frame to the answer, interceptors included;
   * it also bounds a called interactive tool (as zot does). @default 60000
   */
  callTool?: number | undefined;
  /** Grace after `shutdown` before SIGTERM (SIGKILL follows 1 s later). @default 2000 */
  shutdown?: number | undefined;
  /**
   * How long the host waits for the `trust` callback's answer about one project extension; no
   * answer by then is a deny (`TRUST_TIMEOUT` diagnostic). Above 2^31-1 ms there is none.
   * @default 120000
   */
  trust?: number | undefined;
  /**
   * An extension whose stdin takes nothing (not one 64 KiB write completes) for this long is stuck:
   * it is stopped (exit reason `stdin_blocked`; pending calls fail with `WRITE_TIMEOUT`). A busy
   * extension that reads again within it is left alone. Above 2^31-1 ms there is none.
   * @default the `tool` timeout (60000)
   */
  stuck?: number | undefined;
}

/** Who an action came from. */
export interface Origin {
  /** The extension's manifest name. */
  extension: string;
}

/** A panel as the UI should show it. */
export interface PanelView extends Origin {
  /** Unique per extension, not across them: a panel is the pair (`extension`, `panelId`). */
  panelId: string;
  title?: string | undefined;
  lines: string[];
  footer?: string | undefined;
}

export interface NoteView extends Origin {
  level: NotifyLevel;
  message: string;
  /** The level as the extension sent it, when it is none of `NOTIFY_LEVELS` (`level` is then `info`); zot passes any level through. */
  rawLevel?: string | undefined;
}

/** A problem the embedding agent may show (the spec's "host warning"). */
export interface HostWarning {
  message: string;
  extension?: string | undefined;
  logPath?: string | undefined;
  /** What kind of problem: an `ErrorCode`, a host diagnostic code, or discovery's `DiagnosticCode` (`PATH_NOT_FOUND`, `SHADOWED`, ...). */
  code?: string | undefined;
  error?: ExtensionHostError | undefined;
  /** The file or directory concerned (discovery's warnings: a manifest, an explicit path). */
  path?: string | undefined;
}

/**
 * What the host asks the embedding agent to do. All optional; a missing callback means the agent
 * does not support that action (for example no `submit` in print mode: submit frames are ignored).
 * Callbacks are called synchronously from frame handling; a callback that throws is reported as a
 * warning and never breaks the host.
 */
export interface HostCallbacks {
  /** A command answered `prompt`: submit `text` as a fresh user message and run a turn. */
  prompt?: ((action: { text: string; command: string } & Origin) => void) | undefined;
  /** An extension sent `submit`: run it as a user prompt now, or queue it behind the running turn. */
  submit?: ((action: { text: string } & Origin) => void) | undefined;
  /**
   * zot's `submit_slash`: run `text` (trimmed, starts with "/") as a slash command, as if the user
   * typed it; never sent to the model. Without this callback the frame is ignored (logged).
   */
  submitSlash?: ((action: { text: string } & Origin) => void) | undefined;
  /** A command answered `insert`: put `text` into the editor at the cursor, without submitting. */
  insert?: ((action: { text: string; command: string } & Origin) => void) | undefined;
  /** A command answered `display`: show `text` as a one-shot note (not sent to the model). */
  display?: ((action: { text: string; command: string } & Origin) => void) | undefined;
  /** An extension sent `notify` (or a command answered with `error`, as level `error`). */
  notify?: ((note: NoteView) => void) | undefined;
  /** Remove every note this extension pushed. */
  clearNotes?: ((origin: Origin) => void) | undefined;
  /** Show a new panel and give it focus. `extension` + `panelId` identify a panel (two extensions may both open `main`). */
  openPanel?: ((panel: PanelView) => void) | undefined;
  /** Redraw the open panel (`extension`, `panelId`). */
  renderPanel?: ((panel: PanelView) => void) | undefined;
  /** A panel closed: its extension closed it (`by: 'extension'`), or the extension went away / the host stopped (`'exit'`). `host.closePanel()` does not call back. */
  closePanel?: ((panel: { panelId: string; by: 'extension' | 'exit' } & Origin) => void) | undefined;
  /**
   * A command answered `tool_prompt` (zot, after the snapshot): append `prompt` as the user message,
   * run the tool `toolName` with `toolArgs` through the agent's usual guards and confirmation, record
   * the call and its result in the transcript, then run a model turn. Without this callback the
   * action is not handled: a `TOOL_PROMPT_UNHANDLED` warning, and the outcome's `toolPrompt.handled` is false.
   */
  toolPrompt?: ((action: ToolPromptAction) => void) | undefined;
  /** The set of active tools changed: rebuild the model's tool list from `tools`. */
  toolsChanged?: ((tools: ToolInfo[]) => void) | undefined;
  /**
   * An extension's `call_tool` (zot's) names one of the agent's own tools (`builtinTools`): run it
   * and resolve its result. Called after the intercept chain allowed the call (with the args it
   * rewrote); `signal` aborts on `call_tool_cancel`, at the deadline (`timeouts.callTool`), when the
   * extension's tool call it runs inside ends, and when the extension stops: the host answers the
   * extension then without waiting for this promise. A throw or rejection is answered as an error
   * result. Without this callback, built-in tools are unavailable to extensions (an error result).
   */
  callBuiltinTool?: ((call: BuiltinToolCall) => BuiltinToolResult | Promise<BuiltinToolResult>) | undefined;
  /** Something went wrong that a person may want to see (load errors, crashes, bad frames). */
  warning?: ((warning: HostWarning) => void) | undefined;
}

/** A built-in tool an extension asked to run (`callbacks.callBuiltinTool`); `extension` is the caller. */
export interface BuiltinToolCall extends Origin {
  /** One of `builtinTools`. */
  toolName: string;
  /** The args, as the intercept chain left them. */
  args: Record<string, unknown>;
  /** The call's id (`ext-call-<n>`), as the intercept chain saw it. */
  toolId: string;
  /** Aborted when the call is cancelled or reaches its deadline, or the extension stops. */
  signal: AbortSignal;
}

/** What `callBuiltinTool` resolves: the tool's content (text and images, as `ToolResult`'s). */
export interface BuiltinToolResult {
  content: ToolContent[];
  /** @default false */
  isError?: boolean | undefined;
}

/**
 * An extension's `call_tool` (zot's), once answered (`'tool:called'`): who asked, for which tool, inside
 * which of its tool calls, and how it ended.
 */
export interface ExtensionToolCall extends Origin {
  /** The extension's request id. */
  requestId: string;
  toolName: string;
  /** The call's id (`ext-call-<n>`), as the intercept chain saw it; undefined when a check refused the call before. */
  toolId: string | undefined;
  /** The wire id of the host's tool call to `extension` that this call ran inside (zot's `parent_id`). */
  parentId: string | undefined;
  /** The tool names from the outermost call to this one (`parentId`'s chain, then `toolName`). */
  chain: string[];
  /** The extension that ran the tool; `'built-in'` for the agent's own; undefined when it did not run. */
  ranBy: string | undefined;
  isError: boolean;
  /** Whether the answer was cut to its bound (`truncated` on the wire). */
  truncated: boolean;
  /** The error text when `isError`. */
  error: string | undefined;
  /** Milliseconds from the request to the answer. */
  ms: number;
}

/** A command's `tool_prompt` answer: a prompt to submit with a tool call to run first. */
export interface ToolPromptAction extends Origin {
  /** The command that answered it. */
  command: string;
  /** The user message (not empty). */
  prompt: string;
  toolName: string;
  toolArgs: Record<string, unknown>;
}

/** An extension that runs in this process over a pair of streams (see `zot-extension-host/testing`). */
export interface InMemoryExtension {
  name: string;
  /** Directory reported as extension_dir/data_dir. @default the host's cwd */
  dir?: string | undefined;
  /** Called once per start: returns the streams the host writes to and reads from. */
  connect: () => { input: Writable; output: Readable; close?: (() => void) | undefined };
}

export interface ExtensionHostOptions extends SecurityOptions, RemoteOptions, RateLimitOptions, LifecycleEventOptions, TrustOptions {
  /** The user's project directory: sent as hello_ack.cwd; project extensions live in `<cwd>/.<appName>/extensions`. @default process.cwd() */
  cwd?: string | undefined;
  /** Names the project dir (`.zot`) and the home variable (`ZOT_HOME`). @default 'zot' */
  appName?: string | undefined;
  /** Home directory. @default $<APP>_HOME, else the spec's platform rules */
  home?: string | undefined;
  /** Extension directories loaded first (like `--ext`), in this order; remembered by reload(). @default [] */
  explicit?: readonly string[] | undefined;
  /** false = load explicit (and in-memory) extensions only. @default true */
  discover?: boolean | undefined;
  /** Extensions that run in this process (loaded before everything else). @default [] */
  inMemory?: readonly InMemoryExtension[] | undefined;
  /**
   * MCP servers loaded as extensions (docs/mcp.md), by extension name: `{ command, args?, env? }`
   * spawns one (stdio), `{ url, headers? }` reaches one over Streamable HTTP; `prefix` goes before
   * its tool names. Loaded after the in-memory extensions, before the explicit and discovered ones
   * (a discovered extension of the same name is shadowed). Needs the optional peer dependency
   * `@modelcontextprotocol/client`, loaded only when an MCP server is configured. @default {}
   */
  mcpServers?: Readonly<Record<string, McpServerConfig>> | undefined;
  /** Sent as hello_ack.zot_version. @default this package's version */
  hostVersion?: string | undefined;
  /** Sent as hello_ack.provider and in before_agent_start. @default '' */
  provider?: string | undefined;
  /** Sent as hello_ack.model and in before_agent_start. @default '' */
  model?: string | undefined;
  /** Command names the agent owns; they always win (case-insensitive). @default [] */
  builtinCommands?: readonly string[] | undefined;
  /** Tool names the agent owns; they always win. @default ['read','write','edit','bash','skill'] */
  builtinTools?: readonly string[] | undefined;
  /**
   * zot's `call_tool`: how many of one extension's requests may run at once; one over it is answered
   * with an error at once. @default 8
   */
  callToolConcurrency?: number | undefined;
  callbacks?: HostCallbacks | undefined;
  timeouts?: HostTimeouts | undefined;
  /** Where `ext-<name>.log` files go. @default <home>/logs */
  logDir?: string | undefined;
  /** Largest frame accepted from an extension, in bytes. @default 4 MiB */
  maxFrameBytes?: number | undefined;
  /**
   * Bound of what waits to be written to one extension's stdin, in bytes (string length of the
   * encoded lines). Over it, one-way frames (events, panel keys) are dropped and counted in a
   * diagnostic; requests still queue until their deadline. @default 8 MiB (8388608)
   */
  maxOutboundBytes?: number | undefined;
  /**
   * Ask interceptors that allowed a tool call again when a later one rewrote its args; a re-ask that
   * fails (timeout, crash, malformed answer) blocks the call. @default false
   */
  revalidateIntercepts?: boolean | undefined;
  /**
   * Policy of extension interceptors by manifest name, e.g. `{ guard: { onFailure: 'block' } }`.
   * Applied whenever the host builds an extension's interceptor: at start, after `reload()` and
   * after a restart. @default {}
   */
  interceptPolicy?: Readonly<Record<string, InterceptPolicy>> | undefined;
  /**
   * Size in bytes at which an extension's log file is rotated once to `<file>.1` (the previous
   * `.1` is replaced), so each extension keeps at most about twice this much log. @default 5 MiB
   */
  logMaxBytes?: number | undefined;
  /**
   * Restarts of extensions that crash (exit or close stdout without being stopped, also before
   * `hello`): `true` for the defaults, or a policy. Off, a crashed extension stays down until
   * `reload()` (the spec's rule); `host.restart(name)` works either way. See docs/embedding.md.
   * @default false
   */
  restart?: RestartPolicy | boolean | undefined;
  /** OpenTelemetry spans of calls, commands and intercept chains (docs/tracing.md). @default false */
  tracing?: TracingOption | undefined;
  /**
   * Sees every line between the host and each extension (`zot-ext run --trace`): `in` as read from
   * the extension (also lines that are not frames), `out` as queued for it; redacted like the log,
   * without the LF. Called synchronously on the host's read and write paths: keep it cheap. A throw
   * is a `CALLBACK_THREW` diagnostic. `host.on('frame', listener)` gets the same lines. @default undefined
   */
  frameTap?: ((frame: FrameTapEntry) => void) | undefined;
}

/** One line seen by `ExtensionHostOptions.frameTap`. */
export interface FrameTapEntry {
  extension: string;
  /** `in`: from the extension; `out`: to it. */
  direction: 'in' | 'out';
  line: string;
  /** `Date.now()` when it was seen. */
  at: number;
}

/** How the host treats one extension's interceptor steps (see `ExtensionHostOptions.interceptPolicy`). */
export interface InterceptPolicy {
  /** What a failed step (timeout, crash, malformed answer) means; `'block'` makes the guard fail closed. @default 'allow' */
  onFailure?: 'allow' | 'block' | undefined;
}

/**
 * Where an extension is in its lifecycle (src/host/lifecycle.ts holds the allowed transitions):
 * `starting -> ready -> exited | failed | stopped`; with a restart policy (or `host.restart()`) a
 * crashed one goes `restarting -> starting -> ready` again.
 */
export type ExtensionState = 'starting' | 'ready' | 'restarting' | 'failed' | 'exited' | 'stopped';

/** How an extension became ready. */
export type ReadyVia = 'ready' | 'idle' | 'grace';

export interface RegisteredCommand {
  name: string;
  description: string;
  /** False when another registration (built-in or earlier in load order) owns the name. */
  active: boolean;
}

export interface RegisteredTool {
  name: string;
  description: string;
  deferred: boolean;
  active: boolean;
}

/** A snapshot of one loaded (or failed) extension. */
export interface ExtensionInfo {
  name: string;
  dir: string;
  source: ExtensionSource | 'memory';
  state: ExtensionState;
  pid: number | undefined;
  /** Where a remote extension lives (`ws://` / `wss://`, user name and password redacted); it has no `pid`. */
  url?: string | undefined;
  /** A remote extension's manifest headers: each name and the variable its value is read from (`env:NAME`; undefined for a literal). Never a value. */
  headers?: { name: string; variable: string | undefined }[] | undefined;
  logPath: string;
  version: string | undefined;
  capabilities: string[];
  readyVia: ReadyVia | undefined;
  /** Milliseconds from spawn to ready. */
  readyMs: number | undefined;
  commands: RegisteredCommand[];
  tools: RegisteredTool[];
  subscriptions: { events: string[]; intercept: string[] };
  error: ExtensionHostError | undefined;
  /** Position in load order. */
  order: number;
  /**
   * `panel_render` / `panel_close` frames it sent for its own panels after they had closed: dropped
   * quietly, as zot does (a render already on its way when the user closed the panel).
   */
  latePanelFrames: number;
  /** How often it has been restarted (by the `restart` policy or `host.restart()`) since start/reload. */
  restarts: number;
  /** What it may do (permission names, docs/security.md); what its manifest requested, if anything. */
  permissions: { granted: string[]; requested: string[] | undefined };
  /** Its OS sandbox: whether it runs confined, by which backend, what it may reach and write; why not (`'not applicable (remote)'`, a missing backend). */
  sandbox: SandboxInfo;
  /** Workspace trust (the `trust` option): `exempt` unless it is a project extension. */
  trust: TrustState;
}

export interface CommandInfo {
  /** Canonical spelling, as registered. */
  name: string;
  description: string;
  extension: string;
}

export interface ToolInfo {
  name: string;
  description: string;
  /**
   * The JSON Schema exactly as the extension sent it (`{type:'object'}` when it sent none, or a JSON
   * value that is not an object: zot accepts any, the host reports it with a SCHEMA_NORMALISED diagnostic).
   */
  schema: Record<string, unknown>;
  extension: string;
  /**
   * `true` when the extension registered it `interactive` (zot's `register_tool.interactive`): its
   * calls wait for the user, with no default deadline (docs/protocol.md, "zot versions");
   * absent otherwise.
   */
  interactive?: true | undefined;
  // zot's tool metadata (docs/protocol.md "zot versions"), each present only when the extension sent it.
  /** JSON (Schema) describing the result's `structuredContent`, as sent; never validated. */
  outputSchema?: unknown;
  /** Groups tools for discovery (zot defaults it to the extension name). */
  namespace?: string | undefined;
  namespaceDescription?: string | undefined;
  namespaceInstructions?: string | undefined;
  /**
   * zot's exposure: `direct` (as absent), `codemode`, `deferred` (the host's deferred tools: listed
   * once activated), `model-only`. The host lists `codemode` and `model-only` tools like direct ones;
   * the embedder decides what they mean to it.
   */
  exposure?: ToolExposure | undefined;
  /** What a durable host may do with an interrupted call (zot's "continuous" mode); `never` when absent. */
  replay?: ToolReplay | undefined;
  /**
   * Hints about the tool's behaviour (ours, `register_tool.annotations`; an MCP server's tool
   * annotations: `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`, `title`), as
   * sent; hints, not guarantees.
   */
  annotations?: Record<string, unknown> | undefined;
}

export type ToolExposure = 'direct' | 'codemode' | 'deferred' | 'model-only';
export type ToolReplay = 'never' | 'safe' | 'idempotent' | 'reconcile';

export type ToolContent =
  /** `format`: zot's display hint (`"markdown"`), present only when sent; the model gets the text as it is. */
  | { type: 'text'; text: string; format?: string | undefined }
  | { type: 'image'; mimeType: string; data: string };

/** What a tool call produced. Never a thrown error: failures are `isError: true` with a `failure`. */
export interface ToolResult {
  content: ToolContent[];
  isError: boolean;
  /** The extension that ran the tool (undefined for unknown tools). */
  extension: string | undefined;
  /** Deferred tools this result activated (known names only). */
  activatedTools: string[];
  /** Why the call failed on the host side (timeout, crash, abort, unknown tool, malformed result). */
  failure: ExtensionHostError | undefined;
  /** zot's `structured_content`: a JSON value next to `content` (see `ToolInfo.outputSchema`), present only when sent. */
  structuredContent?: unknown;
}

export type CommandOutcome =
  | {
      handled: false;
      name: string;
      args: string;
      /**
       * Why no extension handled it when the host could not ask one: NOT_STARTED before start() has
       * finished, during a reload and after stop() (as `callTool`'s failure). Undefined for a name no
       * extension owns: that is the agent's own command, not a failure.
       */
      failure?: ExtensionHostError | undefined;
    }
  | {
      handled: true;
      name: string;
      args: string;
      extension: string;
      action: CommandAction;
      /** prompt / insert / display text (`tool_prompt`: its prompt). */
      text: string | undefined;
      panel: PanelView | undefined;
      /**
       * `tool_prompt`: the tool to run before the turn, and whether the `toolPrompt` callback took it
       * (absent for the other actions).
       */
      toolPrompt?: { toolName: string; toolArgs: Record<string, unknown>; handled: boolean } | undefined;
      /** The extension's `error` field, reported through `notify` (level error). */
      error: string | undefined;
      /** Host-side failure (timeout, crash, malformed response, refused panel). */
      failure: ExtensionHostError | undefined;
    };

/** Something the host noticed about an extension (bad frames, conflicts, refused panels, ...). */
export interface HostDiagnostic {
  code: string;
  message: string;
  /** The extension concerned, when there is one. */
  extension?: string | undefined;
  /** That extension's stderr log, where the host also wrote this diagnostic. */
  logPath?: string | undefined;
  path?: string | undefined;
  severity: 'error' | 'warning' | 'info';
}

/**
 * The host's events (`host.on(name, listener)`). Besides its own, every callback of `HostCallbacks`
 * is also emitted with the same argument, right after the callback: a logger or a second UI can
 * listen without wrapping the callbacks. A listener that throws is recorded as a `LISTENER_THREW`
 * diagnostic and never breaks the host.
 */
export interface HostEvents {
  /** The `prompt` callback's action. */
  prompt: [action: { text: string; command: string } & Origin];
  /** The `submit` callback's action. */
  submit: [action: { text: string } & Origin];
  /** The `submitSlash` callback's action. */
  'submit:slash': [action: { text: string } & Origin];
  /** The `insert` callback's action. */
  insert: [action: { text: string; command: string } & Origin];
  /** The `display` callback's action. */
  display: [action: { text: string; command: string } & Origin];
  /** The `notify` callback's note. */
  notify: [note: NoteView];
  /** The `clearNotes` callback's origin. */
  'notes:clear': [origin: Origin];
  /** The `openPanel` callback's panel. */
  'panel:open': [panel: PanelView];
  /** The `renderPanel` callback's panel. */
  'panel:render': [panel: PanelView];
  /** The `closePanel` callback's panel. */
  'panel:close': [panel: { panelId: string; by: 'extension' | 'exit' } & Origin];
  /** The `toolPrompt` callback's action. */
  'tool:prompt': [action: ToolPromptAction];
  /**
   * An extension changed state (`previous` is undefined for its first `starting`). `reason` says why
   * on the moves restarts make (`crashed`, `restart`, `manual restart`, `restart limit`); `restarts`
   * (how often it has been restarted since start/reload) is set once it is or has been restarting.
   */
  'extension:state': [change: { name: string; state: ExtensionState; previous: ExtensionState | undefined; reason?: string | undefined; restarts?: number | undefined }];
  'extension:exit': [exit: { name: string; code: number | null; signal: NodeJS.Signals | null; reason: string }];
  'tools:changed': [tools: ToolInfo[]];
  'commands:changed': [commands: CommandInfo[]];
  diagnostic: [diagnostic: HostDiagnostic];
  warning: [warning: HostWarning];
  /** A running tool call's progress report (capability "progress"), whoever made the call. */
  'tool:progress': [progress: ToolProgress];
  /** An extension's `call_tool` (zot's) was answered; the agent may record it, or emit zot's lifecycle events for it. */
  'tool:called': [call: ExtensionToolCall];
  /**
   * Every line between the host and each extension, as `frameTap` sees it (redacted like the log,
   * without the LF): the same tap as a listener, added and removed at any time. Emitted
   * synchronously on the host's read and write paths: keep the listener cheap. Without a listener
   * it costs nothing but a check per line.
   */
  frame: [frame: FrameTapEntry];
}

// ---------------------------------------------------------------------------------------------
// Calls: options and progress
// ---------------------------------------------------------------------------------------------

/** A `progress` frame of an extension for one call (capability "progress"); every field is the extension's. */
export interface CallProgress {
  /** The extension that sent it. */
  extension: string;
  /** The call's request id on the wire (as in the extension's log). */
  requestId: string;
  message?: string | undefined;
  /** Work done so far, in the extension's units. */
  progress?: number | undefined;
  /** The whole, when the extension knows it. */
  total?: number | undefined;
}

/** The `tool:progress` event: a tool call's progress, for a UI that does not own the call. */
export interface ToolProgress extends CallProgress {
  tool: string;
}

/** Options of `callTool` and `runCommand`. */
export interface HostCallOptions {
  /** Aborts the call; the result reports ABORTED. @default undefined */
  signal?: AbortSignal | undefined;
  /** Deadline in ms; above 2^31-1 ms (Infinity included) there is none. @default the host's `timeouts.tool` / `timeouts.command` */
  timeoutMs?: number | undefined;
  /**
   * Called with each progress report the extension sends for this call (only an extension that
   * declared capability "progress" can; `callTool` passes a `ToolProgress`). @default undefined
   */
  onProgress?: ((progress: CallProgress) => void) | undefined;
  /**
   * `callTool` only: each progress report restarts the call's deadline (`timeoutMs`), so a long
   * call that keeps reporting stays alive, up to `maxTotalTimeoutMs` from its start. @default false
   */
  resetTimeoutOnProgress?: boolean | undefined;
  /**
   * `callTool` with `resetTimeoutOnProgress`: the longest the call may take, however often progress
   * restarts its deadline. @default 10 × the call's deadline (10 minutes with the default `timeouts.tool`)
   */
  maxTotalTimeoutMs?: number | undefined;
  /**
   * `callTool` with `tracing` on: the model's id of this tool call, recorded as `gen_ai.tool.call.id`
   * (docs/tracing.md). @default the request id on the wire, once the extension answers
   */
  toolCallId?: string | undefined;
  /**
   * `callTool`, experimental (zot's "continuous" mode): sent as `tool_call.operation_key`, a stable
   * idempotency key across replays of one intent, for a durable embedder. @default not sent
   */
  operationKey?: string | undefined;
  /**
   * `callTool`, experimental: sent as `tool_call.reconcile: true` (needs `operationKey`): the
   * extension must not perform the operation, only answer its state in `structuredContent`
   * (`{state: 'completed' | 'not_started' | 'unknown'}`). @default false
   */
  reconcile?: boolean | undefined;
}

/**
 * Which extension's panel a call means. A panel is identified by the pair (extension, panel id):
 * two extensions may each have a panel `main` open at once.
 */
export interface PanelCallOptions {
  /**
   * The extension that opened the panel (the `extension` of the `openPanel` callback).
   * @default the one extension that has the panel id open; when several have it open the call throws
   * `INVALID_ARGUMENT` naming them, and the caller must pass `extension`.
   */
  extension?: string | undefined;
}

// ---------------------------------------------------------------------------------------------
// start() and reload(): the report
// ---------------------------------------------------------------------------------------------

export interface LoadedReport {
  name: string;
  source: ExtensionInfo['source'];
  pid: number | undefined;
  readyVia: ReadyVia;
  readyMs: number;
  logPath: string;
}

export interface FailedReport {
  /** The manifest name; for an explicit path that has no valid manifest, its last path segment (or the URL). */
  name: string;
  source: ExtensionInfo['source'];
  /**
   * Why it failed: its start error (`SPAWN_FAILED`, `EXITED_BEFORE_HELLO`, `HELLO_TIMEOUT`,
   * `BAD_HELLO`, ...), `MANIFEST_INVALID` for an explicit path that does not exist or whose
   * manifest could not be loaded (the message starts with discovery's code: `PATH_NOT_FOUND: ...`),
   * or `UNTRUSTED` for a project extension the `trust` option did not allow (never spawned).
   */
  error: ExtensionHostError;
  /** Its log file; undefined for an extension that never started (an explicit path that could not be loaded, an untrusted one: nothing was spawned, no log). */
  logPath: string | undefined;
  /**
   * An explicit path that could not be loaded: the file or directory concerned. An untrusted project
   * extension that is not in `extensions()` (a global one of its name runs instead): its directory.
   */
  path?: string | undefined;
}

export interface StartingReport {
  name: string;
  source: ExtensionInfo['source'];
  logPath: string;
}

export interface StartReport {
  loaded: LoadedReport[];
  failed: FailedReport[];
  /** Still starting: no hello within `timeouts.hello`; they join later or fail at `timeouts.helloJoin`. */
  starting: StartingReport[];
  /** Discovered but not started: disabled, shadowed, or not a process extension (theme, skills). */
  skipped: { name: string; dir: string; reason: 'disabled' | 'shadowed' | 'theme' | 'skills' }[];
  /**
   * The directories looked in, absolute, in precedence order: the explicit paths, then (unless
   * `discover: false`) `<cwd>/.<appName>/extensions` and `<home>/extensions`. When nothing was found,
   * `diagnostics` also has a `NO_EXTENSIONS` entry naming them.
   */
  searched: string[];
  diagnostics: (HostDiagnostic | DiscoveryDiagnostic)[];
  /** Milliseconds for the whole start. */
  ms: number;
}

// ---------------------------------------------------------------------------------------------
// Options: restarts, tracing, remote extensions, rate limits, security
// ---------------------------------------------------------------------------------------------

/**
 * When and how fast the host restarts a crashed extension (`ExtensionHostOptions.restart`). The delay
 * before the n-th restart in the window (n from 0) is `backoffMs[min(n, backoffMs.length - 1)] *
 * (1 + jitter * r)`, with r uniform in [0, 1), rounded to whole ms.
 */
export interface RestartPolicy {
  /**
   * Restarts allowed within `windowMs` (0 to 100). The crash after them leaves the extension `failed`
   * with one `RESTART_LIMIT` diagnostic and warning; a manual `host.restart()` starts a fresh count.
   * @default 3
   */
  maxRestarts?: number | undefined;
  /** Sliding window in ms over which restarts are counted (> 0, or Infinity: for the host's life). @default 180000 */
  windowMs?: number | undefined;
  /** Delays in ms before the 1st, 2nd, ... restart in the window; the last repeats (1 to 100 entries, each 0 to 2^31-1). @default [250, 1000, 4000] */
  backoffMs?: readonly number[] | undefined;
  /** Fraction (0 to 1) of a delay that may be added at random, so extensions that crashed together do not restart together. @default 0.2 */
  jitter?: number | undefined;
}

/**
 * What the host needs of an OpenTelemetry `TracerProvider`: `getTracer(name, version)`. Declared here
 * so that this package's types never import the optional peer `@opentelemetry/api` (a consumer
 * without it still type-checks); every real provider (`trace.getTracerProvider()`,
 * `BasicTracerProvider`, `NodeTracerProvider`) is one.
 */
export interface TracerProviderLike {
  /** Returns the tracer of `name` (`zot-extension-host`) at `version` (this package's). */
  getTracer(name: string, version?: string): unknown;
}

/** Where the host's spans go when tracing is on. */
export interface TracingSettings {
  /** The provider of the host's tracer (`zot-extension-host`). @default the global provider (`trace.getTracerProvider()`) */
  tracerProvider?: TracerProviderLike | undefined;
}

/**
 * OpenTelemetry traces of tool calls, commands and intercept chains (docs/tracing.md): `true` uses
 * the global tracer provider, `{ tracerProvider }` a given one. Needs the optional peer dependency
 * `@opentelemetry/api`, loaded at `start()` (a start without it rejects with TRACING_UNAVAILABLE).
 * Off, the package is never loaded. @default false
 */
export type TracingOption = boolean | TracingSettings;

/** Ping/pong on every remote connection: a peer that stops answering is dead, not waited on. */
export interface KeepAliveOptions {
  /** How often the host pings a remote extension. @default 15000 */
  intervalMs?: number | undefined;
  /**
   * A remote extension that sends nothing (no pong, no frame) for this long after a ping is dead:
   * the connection is dropped, which is its exit (PROCESS_EXITED; the `restart` policy reconnects).
   * @default 10000
   */
  timeoutMs?: number | undefined;
}

export interface RemoteOptions {
  /** Keep-alive of remote (`url`) extensions. @default { intervalMs: 15000, timeoutMs: 10000 } */
  keepAlive?: KeepAliveOptions | undefined;
}

/**
 * How many `submit`, `notify`, `clear_notes` and `panel_render` frames of one extension reach the
 * callbacks per window; the rest of a window's `submit` / `notify` / `clear_notes` are dropped, and
 * `panel_render`s are coalesced to the latest per panel, delivered at the window's end (so the panel
 * ends up right); each window that dropped or coalesced any is one `RATE_LIMITED` diagnostic per
 * kind. `Infinity` = no bound for that kind.
 */
export interface RateLimits {
  /** `submit` frames (each starts or queues a turn) per window. @default 10 */
  submit?: number | undefined;
  /** `notify` frames per window. @default 100 */
  notify?: number | undefined;
  /** Spontaneous `open_panel` frames (zot's, not a command's answer) per window. @default 5 */
  openPanel?: number | undefined;
  /** `clear_notes` frames per window. @default 100 */
  clearNotes?: number | undefined;
  /** `panel_render` frames per window passed as they come; later ones are coalesced (the latest per panel, at the window's end). @default 60 */
  panelRender?: number | undefined;
  /** The window, in ms (fixed windows, each from the first frame after the last one ended). @default 1000 */
  windowMs?: number | undefined;
}

export interface RateLimitOptions {
  /** Per-extension bound of `submit`, `notify`, `clear_notes`, `panel_render` and spontaneous `open_panel` frames. @default { submit: 10, notify: 100, clearNotes: 100, panelRender: 60, openPanel: 5, windowMs: 1000 } */
  rateLimits?: RateLimits | undefined;
}

export interface SecurityOptions {
  /**
   * Environment of extension processes: `'inherit'` passes the host's whole environment (API keys
   * included, as zot does); `'minimal'` passes only PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG,
   * LC_*, TMPDIR, TZ (on Windows also SYSTEMROOT, COMSPEC, PATHEXT, APPDATA, LOCALAPPDATA,
   * USERPROFILE, TEMP, TMP, WINDIR), the variables a manifest declares (`"env": [...]`) that
   * `envAllow` allows, and `envByExtension`; an object is the exact environment of every extension.
   * Left unset, an extension that runs sandboxed (`sandbox` / `sandboxByExtension` / its manifest's
   * `"sandbox"` not `'off'` for it, a spawned process: remote ones are not sandboxed) and has no
   * `envByExtension` entry gets `'minimal'`: turning the sandbox on keeps the host's API keys out
   * of it. Set `'inherit'` explicitly to pass them anyway.
   * @default 'inherit'; 'minimal' for an extension that runs sandboxed
   */
  env?: EnvOption | undefined;
  /**
   * Under `env: 'minimal'`: the variables (names, or `PREFIX*`) a manifest may ask for with
   * `"env": [...]`. A declared variable that is not allowed, or not set, is not passed and is a
   * warning (ENV_MISSING, shown by `zot-ext doctor`). @default []
   */
  envAllow?: readonly string[] | undefined;
  /** Variables set (or, with `undefined`, removed) for one extension, by manifest name, in every mode. */
  envByExtension?: Readonly<Record<string, NodeJS.ProcessEnv>> | undefined;
  /**
   * Permission scopes, enforced on the frames the host receives. Without this option every
   * extension may do everything (the spec's default). See docs/security.md. @default undefined
   */
  permissions?: PermissionPolicy | undefined;
  /**
   * The OS sandbox of every spawned extension (docs/security.md#the-sandbox): `'off'` (zot's
   * behaviour), `'auto'` (sandboxed where the platform can, a SANDBOX_UNAVAILABLE warning where it
   * cannot), `'required'` (an extension that cannot be sandboxed fails with SANDBOX_UNAVAILABLE), or
   * a policy `{ mode, network?: 'none' | 'loopback' | 'all' (default 'none'), writable?, readable?, bwrap? }`.
   * A manifest's `"sandbox"` may only make it stricter. Remote and in-memory extensions are not
   * sandboxed. @default 'off'
   */
  sandbox?: SandboxOption | undefined;
  /** The `sandbox` option for one extension, by manifest name: replaces the host-wide one for it. */
  sandboxByExtension?: Readonly<Record<string, SandboxOption>> | undefined;
}

/** The `env` option: a mode, or (as before) the exact environment of every extension. */
export type EnvOption = 'inherit' | 'minimal' | NodeJS.ProcessEnv;

/** Events an extension may be allowed to intercept. */
export type InterceptScope = InterceptEventName;

/**
 * What one extension may do. In a Scope object a missing field is NOT granted: `{ tools: true }`
 * allows registering tools and nothing else. `'all'` and `'none'` are shorthands.
 */
export interface PermissionScope {
  /** `register_command` (and so the actions of its command responses). */
  commands?: boolean | undefined;
  /** `register_tool`. */
  tools?: boolean | undefined;
  /** `subscribe` to lifecycle events: all, or the named ones. */
  events?: boolean | readonly string[] | undefined;
  /**
   * `subscribe` to intercepts: all, or the named ones. `before_agent_start` sees (and may rewrite)
   * the entire system prompt.
   */
  intercept?: boolean | readonly InterceptScope[] | undefined;
  /** `submit` frames (prompts sent to the agent as if the user typed them). */
  submit?: boolean | undefined;
  /** `open_panel` command responses and frames, `panel_render`, `panel_close`. */
  panels?: boolean | undefined;
  /** `notify` and `clear_notes`. */
  notes?: boolean | undefined;
  /**
   * zot's `call_tool`: run tools (another extension's, or the agent's own through
   * `callbacks.callBuiltinTool`) from inside its handlers. Permission name `call_tool`.
   */
  callTool?: boolean | undefined;
}

export type Scope = PermissionScope | 'all' | 'none';

/** The `permissions` option. */
export interface PermissionPolicy {
  /** Scope of every extension not named in `byExtension`. @default 'all' */
  default?: Scope | undefined;
  /** Scope per manifest name; replaces `default` for that extension (it does not add to it). */
  byExtension?: Readonly<Record<string, Scope>> | undefined;
}

// ---------------------------------------------------------------------------------------------
// Lifecycle events the agent sends to extensions (`sendEvent`, `emit({ event })`)
// ---------------------------------------------------------------------------------------------

/**
 * The fields of known event `N`, as its frame schema has them (wire names, without `type`). An
 * event name of `EVENT_NAMES` that has no schema of its own yet takes any fields.
 */
type KnownEventOf<N extends EventName> = [Extract<EventFrame, { event: N }>] extends [never]
  ? { event: N; [field: string]: unknown }
  : Omit<Extract<EventFrame, { event: N }>, 'type'>;

/**
 * A lifecycle event for `sendEvent()` / `emit({ event })`, with the wire's field names: for a known
 * event (`EVENT_NAMES`) exactly its fields (`{ event: 'turn_start', step: 1 }`); any other name is a
 * custom event whose fields pass through.
 */
export type LifecycleEvent<N extends string = string> = N extends EventName ? KnownEventOf<N> : { event: N; [field: string]: unknown };

/** Every known lifecycle event, one member per name of `EVENT_NAMES`. */
export type KnownLifecycleEvent = { [N in EventName]: KnownEventOf<N> }[EventName];

/** What `emit()` / `sendEvent()` take for the event named `E` (the same as `{ event: E } & LifecycleEvent<E>`). */
export type EmittedEvent<E extends string> = { event: E } & LifecycleEvent<E>;

/** How the host fills zot's fields of every event (`session_id`, `cwd`, `sequence`). */
export interface LifecycleEventOptions {
  /**
   * The conversation's id, sent as `session_id` on every event to an extension that declared a
   * capability (not to a snapshot-era one: docs/protocol.md "zot versions") unless the event names
   * its own. @default a random id per host (zot: a process-local one when not persisted)
   */
  sessionId?: string | undefined;
}

// ---------------------------------------------------------------------------------------------
// Workspace trust: project extensions (`<cwd>/.<appName>/extensions`) come with the repository
// ---------------------------------------------------------------------------------------------

/**
 * An embedder's answer about one project extension: `'once'` starts it for this host (its
 * `reload()`s and restarts included, while its content hash stays the same), `'always'` also
 * stores the decision for this project in `<home>/trust.json` (not asked again until the hash
 * changes), `'deny'` leaves it unstarted (`UNTRUSTED` in `report.failed`).
 */
export type TrustDecision = 'once' | 'always' | 'deny';

/** What the `trust` callback is asked about: one project extension, before anything of it runs. */
export interface TrustRequest {
  /** The manifest name. */
  name: string;
  /** Its directory (real path). */
  dir: string;
  /** Always `'project'`: explicit paths, the global directory and in-memory extensions are not asked about. */
  source: 'project';
  /** The project: the real path of the host's `cwd` (decisions are stored per project). */
  project: string;
  /** What would run: the manifest's `exec` resolved (`command`) and its `args`, or its MCP server's `mcp.command` and `mcp.args`; undefined for a remote (`url`, `mcp.url`) extension. */
  exec: { command: string; args: string[] } | undefined;
  /** A remote extension's URL (`url` or `mcp.url`; user name and password redacted): its manifest headers may send environment variables there. */
  url?: string | undefined;
  /** The permission scopes its manifest requests (`"permissions"`); undefined when it requests none (it then gets the host's `permissions` policy, by default everything). */
  permissions: string[] | undefined;
  /**
   * `sha256:<hex>` over the manifest and the program files it names (its `exec` or `mcp.command` when
   * it is a path, and `args` / `mcp.args` that are files inside its directory or the project). Taken
   * again right before the spawn: a change while the question was asked is asked about again.
   */
  hash: string;
  /** True when an `'always'` decision is stored for it with another hash: it changed since it was trusted. */
  changed: boolean;
  /** Aborted when the host stops waiting (`timeouts.trust`, or `stop()`): dismiss the question. */
  signal: AbortSignal;
}

/**
 * The `trust` option: `'all'` starts project extensions as zot does, `'none'` never starts them,
 * a function decides per extension (throwing, rejecting, an answer that is none of the three, or no
 * answer within `timeouts.trust` is a deny with a diagnostic).
 */
export type TrustOption = 'all' | 'none' | ((request: TrustRequest) => TrustDecision | Promise<TrustDecision>);

/**
 * An extension's workspace trust (`ExtensionInfo.trust`): `exempt` (not a project extension:
 * explicit, global, in-memory), `all` (a project extension started under `trust: 'all'`), `once`
 * / `always` (allowed by the callback, `always` also by a stored decision), `denied` (not started).
 */
export type TrustState = 'exempt' | 'all' | 'once' | 'always' | 'denied';

export interface TrustOptions {
  /**
   * Whether extensions found in the project directory (`<cwd>/.<appName>/extensions`, code that came
   * with the repository) may start; decided before anything of them runs. Explicit paths, the
   * global directory and in-memory extensions are not affected. See docs/security.md, "Workspace trust".
   * @default 'all'
   */
  trust?: TrustOption | undefined;
}
