// The options of one call (callTool, runCommand) and the progress an extension reports for it.

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
}
