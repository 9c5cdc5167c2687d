// The options, events and diagnostics of one extension connection (ExtensionProcess).
import type { ProtocolCapability } from '../protocol/names.js';
import type { RequestFrame, RequestType } from '../connection/requests.js';
import type { ExtensionFrame, ProgressFrame, UnregisterToolFrame } from '../protocol/frames.js';
import type { Launch } from '../transport/create.js';

export interface ProcessTimeouts {
  /** Time allowed for the first frame (`hello`). @default 5000 */
  hello?: number | undefined;
  /** Grace after `shutdown` before SIGTERM. @default 2000 */
  shutdown?: number | undefined;
  /** Grace after SIGTERM before SIGKILL. @default 1000 */
  kill?: number | undefined;
  /**
   * A write to stdin that makes no progress for this long means the extension is stuck: it is
   * stopped (reason `stdin_blocked`, pending requests fail with WRITE_TIMEOUT). No deadline above
   * 2^31-1 ms. @default 60000
   */
  stuck?: number | undefined;
}

export interface HostInfo {
  hostVersion: string;
  provider: string;
  model: string;
  cwd: string;
}

export interface ExtensionProcessOptions {
  /** The manifest name; used for the log file and in every message. */
  name: string;
  /** The extension directory: the child's cwd, and extension_dir (and by default data_dir) in hello_ack. */
  dir: string;
  /** hello_ack's data_dir (a sandboxed extension's own writable dir). @default dir */
  dataDir?: string | undefined;
  launch: Launch;
  /** Directory of `ext-<name>.log`. */
  logDir: string;
  host: HostInfo;
  timeouts?: ProcessTimeouts | undefined;
  /** @default 4 MiB */
  maxFrameBytes?: number | undefined;
  /** Log rotation size (see ExtensionLog). @default 5 MiB */
  logMaxBytes?: number | undefined;
  /** Values never written to the log's `[host]` lines (replaced by `***`): the declared secrets. */
  secrets?: readonly string[] | undefined;
  /** Bound of the outbound buffer: over it, one-way frames are dropped. @default 8 MiB */
  maxOutboundBytes?: number | undefined;
  /** Prefix of correlation ids. @default the name */
  idPrefix?: string | undefined;
  /** The protocol extensions offered in the handshake (negotiation.ts). @default HOST_CAPABILITIES */
  capabilities?: readonly ProtocolCapability[] | undefined;
  /** Sees every line: `in` as read from the extension (before decoding), `out` as queued for it. @default undefined */
  frameTap?: ((direction: 'in' | 'out', line: string) => void) | undefined;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why the connection ended. */
  reason: 'exited' | 'stdout_closed' | 'frame_too_large' | 'stdin_blocked' | 'stopped';
  /** How a remote extension's connection ended, in words (`connection closed (1001 server shutting down)`); absent for a process. */
  status?: string | undefined;
}

export interface ProcessDiagnostic {
  extension: string;
  code:
    | 'NOT_JSON'
    | 'NOT_OBJECT'
    | 'UNKNOWN_TYPE'
    | 'INVALID_FRAME'
    | 'UNKNOWN_ID'
    | 'FRAME_TOO_LARGE'
    | 'BINARY_MESSAGE'
    | 'HELLO_NAME_MISMATCH'
    | 'STDOUT_CLOSED'
    | 'OUTBOUND_DROPPED'
    | 'STDIN_STUCK'
    | 'STDIN_WRITE_FAILED'
    | 'PROGRESS_REFUSED'
    | 'CALLBACK_THREW';
  message: string;
  logPath: string;
}

export interface ProcessEvents {
  /** Every frame after `hello` that is not a response to a request. */
  frame: [frame: ExtensionFrame];
  diagnostic: [diagnostic: ProcessDiagnostic];
  /** A `progress` frame for a pending request (capability "progress"), after the request's own onProgress. */
  progress: [frame: ProgressFrame, request: RequestFrame<RequestType>];
  /** Emitted once, when the connection is over (pending requests are settled before). */
  exit: [info: ExitInfo];
}

/**
 * The owner of a process (the host's record of it), told what ProcessEvents says by method calls,
 * before the events' listeners: no listener record per event per extension.
 */
export interface ProcessWatcher {
  /** Also the negotiated `unregister_tool` (not a 'frame' event: ProcessEvents lists zot's frames only). */
  processFrame(frame: ExtensionFrame | UnregisterToolFrame): void;
  processDiagnostic(diagnostic: ProcessDiagnostic): void;
  processProgress(frame: ProgressFrame, request: RequestFrame<RequestType>): void;
  processExit(info: ExitInfo): void;
}

export interface ProcessStats {
  framesIn: number;
  framesOut: number;
  badLines: number;
}
