// What the inspector's server and its page say to each other over the WebSocket (JSON text
// messages). Types only: the page (ui/) imports them too.

/** An error as the page shows it. */
export interface WireError {
  code: string;
  message: string;
}

/** One frame seen by the host's frame tap: [sequence, Date.now(), extension, direction, line, full length]. */
export type FrameRow = [seq: number, at: number, extension: string, direction: 'in' | 'out', line: string, bytes: number];

/** `ExtensionInfo` as JSON (the error as code + message); fields the page does not know are shown as they are. */
export type ExtensionJson = Record<string, unknown> & { name: string; state: string; pid?: number | undefined; error?: WireError | undefined };

export interface ToolJson {
  name: string;
  description: string;
  schema: Record<string, unknown>;
  extension: string;
  interactive?: true | undefined;
  [field: string]: unknown;
}

export interface CommandJson {
  name: string;
  description: string;
  extension: string;
}

export interface PanelJson {
  extension: string;
  panelId: string;
  title?: string | undefined;
  lines: string[];
  footer?: string | undefined;
}

/** Notes, submits, prompts, inserts, displays and the other things an agent would do. */
export interface ActivityJson {
  at: number;
  kind: 'note' | 'notes_cleared' | 'prompt' | 'insert' | 'display' | 'submit' | 'submit_slash' | 'tool_prompt';
  extension: string;
  level?: string | undefined;
  text: string;
}

export interface ProblemJson {
  at: number;
  kind: 'diagnostic' | 'warning';
  severity: 'error' | 'warning' | 'info';
  code?: string | undefined;
  message: string;
  extension?: string | undefined;
  logPath?: string | undefined;
}

/** What the server pushes. Sent in batches: each WebSocket message is a JSON array of these. */
export type Push =
  | {
      t: 'hello';
      version: string;
      extensions: ExtensionJson[];
      tools: ToolJson[];
      commands: CommandJson[];
      panels: PanelJson[];
      activity: ActivityJson[];
      problems: ProblemJson[];
      /** The most frames a page keeps (older ones are dropped and counted). */
      frameLimit: number;
      /** Activity entries, problems and panels the server no longer keeps (past its bounds), since it started. */
      dropped?: { activity: number; problems: number; panels: number } | undefined;
    }
  | { t: 'extensions'; extensions: ExtensionJson[] }
  | { t: 'tools'; tools: ToolJson[] }
  | { t: 'commands'; commands: CommandJson[] }
  | { t: 'frames'; frames: FrameRow[]; /** Frames the server dropped for this page since the last push (it could not keep up). */ dropped: number }
  | { t: 'activity'; item: ActivityJson }
  | { t: 'panel'; event: 'open' | 'render' | 'close'; panel: PanelJson; by?: string | undefined }
  | { t: 'problem'; item: ProblemJson }
  | { t: 'progress'; callId: string; message?: string | undefined; progress?: number | undefined; total?: number | undefined }
  | { t: 'reply'; id: number; ok: true; result: unknown }
  | { t: 'reply'; id: number; ok: false; error: WireError };

export type InterceptEvent = 'tool_call' | 'turn_start' | 'assistant_message' | 'before_agent_start';

/** What the page asks; each gets one `reply` with the same id. */
export type Request = { id: number } & (
  | { op: 'callTool'; name: string; args: Record<string, unknown>; callId: string }
  | { op: 'cancel'; callId: string }
  | { op: 'runCommand'; input: string }
  | { op: 'panelKey'; extension: string; panelId: string; key: string; text?: string | undefined }
  | { op: 'closePanel'; extension: string; panelId: string }
  | { op: 'restart'; name: string }
  | { op: 'reload' }
  | { op: 'intercept'; event: InterceptEvent; input: Record<string, unknown> }
  | { op: 'log'; name: string }
);

export interface ToolResultJson {
  /** As `ToolResult.content` (an image's type in `mimeType`). */
  content: ({ type: string; text?: string; format?: string; mimeType?: string; data?: string } & Record<string, unknown>)[];
  isError: boolean;
  extension: string | undefined;
  failure: WireError | undefined;
  structuredContent?: unknown;
  ms: number;
}

export interface TraceStepJson {
  interceptor: string;
  decision: string;
  ms: number;
  failure?: string | undefined;
  message?: string | undefined;
  revalidation?: boolean | undefined;
  /**
   * What the extension answered in this step (its `event_intercept_response` without `type` and
   * `id`: `block`, `reason`, `modified_args`, `replace_text`, `system_prompt`), as the wire saw it.
   */
  answer?: Record<string, unknown> | undefined;
}

export interface InterceptResultJson {
  block: boolean;
  blockedBy?: string | undefined;
  reason?: string | undefined;
  modified: boolean;
  /** tool_call: the args after every rewrite. */
  args?: Record<string, unknown> | undefined;
  /** assistant_message: the text after every replacement; before_agent_start: the system prompt. */
  text?: string | undefined;
  trace: TraceStepJson[];
  ms: number;
}
