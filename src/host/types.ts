import type { Readable, Writable } from 'node:stream';
import type { ExtensionHostError } from '../errors.js';
import type { ExtensionSource } from '../manifest/index.js';
import type { CommandAction, NotifyLevel } from '../protocol/frames.js';
import type { ToolProgress } from './call-options.js';
import type { RestartPolicy } from './restart-policy.js';
import type { TracingOption } from './tracing-option.js';
import type { RateLimitOptions } from './rate-limit-options.js';
import type { RemoteOptions } from './remote-options.js';
import type { SecurityOptions } from './security-options.js';

export type { CallProgress, HostCallOptions, ToolProgress } from './call-options.js';
export type { RestartPolicy } from './restart-policy.js';
export type { FailedReport, LoadedReport, StartingReport, StartReport } from './start-report.js';

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
  /** `tool_call` -> `tool_result`. @default 60000 */
  tool?: number | undefined;
  /** `event_intercept` -> response, including the request write. @default 5000 */
  intercept?: number | undefined;
  /** Grace after `shutdown` before SIGTERM (SIGKILL follows 1 s later). @default 2000 */
  shutdown?: number | undefined;
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
}

/** A problem the embedding agent may show (the spec's "host warning"). */
export interface HostWarning {
  message: string;
  extension?: string | undefined;
  logPath?: string | undefined;
  code?: string | undefined;
  error?: ExtensionHostError | undefined;
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
  /** The set of active tools changed: rebuild the model's tool list from `tools`. */
  toolsChanged?: ((tools: ToolInfo[]) => void) | undefined;
  /** Something went wrong that a person may want to see (load errors, crashes, bad frames). */
  warning?: ((warning: HostWarning) => void) | undefined;
}

/** An extension that runs in this process over a pair of streams (see `zot-extension-host/testing`). */
export interface InMemoryExtension {
  name: string;
  /** Directory reported as extension_dir/data_dir. @default the host's cwd */
  dir?: string | undefined;
  /** Called once per start: returns the streams the host writes to and reads from. */
  connect: () => { input: Writable; output: Readable; close?: (() => void) | undefined };
}

export interface ExtensionHostOptions extends SecurityOptions, RemoteOptions, RateLimitOptions {
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
  /** The JSON Schema exactly as the extension sent it (`{type:'object'}` when it sent none). */
  schema: Record<string, unknown>;
  extension: string;
}

export type ToolContent =
  | { type: 'text'; text: string }
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
}

export type CommandOutcome =
  | { handled: false; name: string; args: string }
  | {
      handled: true;
      name: string;
      args: string;
      extension: string;
      action: CommandAction;
      /** prompt / insert / display text. */
      text: string | undefined;
      panel: PanelView | undefined;
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
}

export type { PanelKey } from '../protocol/frames.js';
export type { PanelCallOptions } from './panel-types.js';
