// The protocol extensions this host speaks (docs/protocol.md, "Extensions to the zot protocol").
import type { Connection } from '../connection/connection.js';
import type { RequestFrame, RequestType } from '../connection/requests.js';
import { type CodecModule, decodeProgress, isLineProblem, needsCodec } from '../protocol/frame-check.js';
import type { HelloAckFrame, ProgressFrame } from '../protocol/frames.js';
import { PROTOCOL_VERSION } from '../protocol/limits.js';
import { PROTOCOL_CAPABILITIES, type ProtocolCapability, UPSTREAM_CAPABILITIES, type UpstreamCapability } from '../protocol/names.js';
import type { HostInfo, ProcessDiagnostic } from './types.js';

export type { ProtocolCapability };

/** What the host grants when asked, unless told otherwise: `trace` only with tracing on (see TRACING_CAPABILITIES). */
export const HOST_CAPABILITIES: readonly ProtocolCapability[] = ['cancel', 'progress', 'unregister'];
/** What a host with tracing on grants. */
export const TRACING_CAPABILITIES: readonly ProtocolCapability[] = ['cancel', 'progress', 'trace', 'unregister'];

/**
 * The negotiated subset of `declared` (hello.capabilities) among `offered`, in the offered order;
 * empty for a plain zot extension.
 */
export function negotiate(declared: readonly string[] | undefined, offered: readonly ProtocolCapability[] = HOST_CAPABILITIES): ProtocolCapability[] {
  if (declared === undefined || declared.length === 0) return [];
  return offered.filter((c) => declared.includes(c));
}

// zot's own capabilities (docs/protocol.md "zot versions"). zot reads two names from
// hello.capabilities and sends hello_ack.capabilities ["call_tool"] to everyone; we keep the snapshot's
// bytes for an extension that declared none of the names the host knows (a snapshot-era extension).

/** Every capability name the host reads from `hello.capabilities`: ours, then zot's. */
const KNOWN_CAPABILITIES: ReadonlySet<string> = new Set<string>([...PROTOCOL_CAPABILITIES, ...UPSTREAM_CAPABILITIES]);

/**
 * Declared none of the capability names the host knows (`["commands","tools"]` counts as none): the
 * extension was written against the spec snapshot and sees exactly the snapshot's frames (no
 * hello_ack.capabilities, no added event fields).
 */
export function isSnapshotEra(declared: readonly string[] | undefined): boolean {
  return declared === undefined || !declared.some((name) => KNOWN_CAPABILITIES.has(name));
}

/** zot's capabilities the host implements, among those declared (exact names, as zot matches them). */
export function upstreamDeclared(declared: readonly string[] | undefined): UpstreamCapability[] {
  return declared === undefined ? [] : UPSTREAM_CAPABILITIES.filter((c) => declared.includes(c));
}

/**
 * The host's `hello_ack`; without a negotiated extension, the bytes stay zot's. `capabilities` lists
 * what was negotiated, then zot's `call_tool` when the extension declared it (zot lists it for every
 * extension; we keep a snapshot-era extension's bytes). `data_dir` is `dir` (zot's) unless the
 * extension runs sandboxed: then its own writable `dataDir` (docs/protocol.md).
 */
export function helloAck(host: HostInfo, dir: string, negotiated: ProtocolCapability[], upstream: readonly UpstreamCapability[] = [], dataDir: string = dir): HelloAckFrame {
  const ack: HelloAckFrame = {
    type: 'hello_ack',
    protocol_version: PROTOCOL_VERSION,
    zot_version: host.hostVersion,
    provider: host.provider,
    model: host.model,
    cwd: host.cwd,
    extension_dir: dir,
    data_dir: dataDir,
  };
  if (upstream.includes('call_tool')) ack.capabilities = [...negotiated, 'call_tool'];
  else if (negotiated.length > 0) ack.capabilities = negotiated;
  return ack;
}

interface ProgressSink {
  readonly stats: { badLines: number; framesIn: number };
  /** Holds `line` until the schemas are loaded; false once they were tried. */
  holdForCodec(line: string): boolean;
  diagnose(code: ProcessDiagnostic['code'], message: string): void;
  progressed(frame: ProgressFrame, request: RequestFrame<RequestType>): void;
}

/**
 * A `progress` line of an extension that negotiated "progress": to its pending request, or a
 * counted diagnostic. `value` is the line as decodeLine() parsed it (parsed here when not given).
 */
export function progressLine(
  line: string,
  codec: CodecModule | undefined,
  connection: Connection,
  sink: ProgressSink,
  value = JSON.parse(line) as Record<string, unknown>,
): void {
  const frame = decodeProgress(value, codec);
  // Only a line off the plain shape needs the schemas (to word the problem): held until they load.
  if (isLineProblem(frame) && needsCodec(frame) && sink.holdForCodec(line)) return;
  sink.stats.framesIn++;
  if (isLineProblem(frame)) {
    sink.stats.badLines++;
    sink.diagnose('INVALID_FRAME', frame.problem.message);
    return;
  }
  const outcome = connection.progress(frame);
  // A request cancelled a moment ago: the extension had not read the cancel yet.
  if (outcome === 'cancelled') return;
  if (outcome === undefined) sink.diagnose('PROGRESS_REFUSED', `progress for unknown or already settled id ${JSON.stringify(frame.id)} dropped`);
  else sink.progressed(frame, outcome.frame);
}
