/** Parsing of host -> extension lines, the mirror of protocol/decode-line's decodeLine. */
import { z } from 'zod';
import { describeIssues } from '../protocol/codec.js';
import { preview } from '../protocol/decode-line.js';
import {
  CommandInvokedFrame,
  EventFrame,
  EventInterceptFrame,
  HelloAckFrame,
  type JsonObject,
  PanelCloseFrame,
  PanelKeyFrame,
  ShutdownFrame,
  ToolCallFrame,
} from '../protocol/frames.js';
import type { HostFrameTypeName, NEGOTIATED_HOST_FRAME_TYPE_NAMES } from '../protocol/names.js';
import type { HostInfo } from './types.js';

/** `panel_key` with any key name: the host forwards a name outside the spec's list as it is. */
const AnyPanelKeyFrame = PanelKeyFrame.extend({ key: z.string() });

/** `cancel` (capability "cancel"): the host gave up on request `id`. */
const CancelFrame = z.object({ type: z.literal('cancel'), id: z.string(), reason: z.string().optional() });

const SCHEMAS = {
  hello_ack: HelloAckFrame,
  command_invoked: CommandInvokedFrame,
  tool_call: ToolCallFrame,
  event: EventFrame,
  event_intercept: EventInterceptFrame,
  panel_key: AnyPanelKeyFrame,
  panel_close: PanelCloseFrame,
  shutdown: ShutdownFrame,
  cancel: CancelFrame,
} as const satisfies Record<HostFrameTypeName | (typeof NEGOTIATED_HOST_FRAME_TYPE_NAMES)[number], z.ZodType>;

type Schemas = typeof SCHEMAS;
/** Any frame the host may send, as the SDK sees it. */
export type IncomingFrame = { [K in keyof Schemas]: z.output<Schemas[K]> }[keyof Schemas];

/** Request types: each must get exactly one answer, even when the frame is malformed. */
export const REQUEST_TYPES = ['command_invoked', 'tool_call', 'event_intercept'] as const satisfies readonly HostFrameTypeName[];
export type RequestType = (typeof REQUEST_TYPES)[number];

export type DecodedHostFrame =
  /** `raw` is the line's whole JSON object: the schemas drop fields they do not know. */
  | { ok: true; frame: IncomingFrame; raw: JsonObject }
  /** `request` is set when the bad frame still names a request type and an id to answer. */
  | { ok: false; message: string; request?: { type: RequestType; id: string } | undefined };

function isRequestType(type: string): type is RequestType {
  return (REQUEST_TYPES as readonly string[]).includes(type);
}

/** Parses one line from the host. Never throws. */
export function decodeHostFrame(line: string): DecodedHostFrame {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { ok: false, message: `not JSON (${(err as Error).message}): ${preview(line)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: `not a JSON object: ${preview(line)}` };
  }
  const { type, id } = value as { type?: unknown; id?: unknown };
  if (typeof type !== 'string' || !Object.hasOwn(SCHEMAS, type)) {
    return { ok: false, message: `unknown frame type ${JSON.stringify(type ?? null)}: ${preview(line)}` };
  }
  const parsed = SCHEMAS[type as keyof Schemas].safeParse(value);
  if (parsed.success) return { ok: true, frame: parsed.data as IncomingFrame, raw: value as JsonObject };
  const message = `invalid ${type} frame (${describeIssues(parsed.error)})`;
  if (isRequestType(type) && typeof id === 'string') return { ok: false, message, request: { type, id } };
  return { ok: false, message };
}

/** The handler-facing view of `hello_ack`; `raw` is the whole frame. */
export function toHostInfo(frame: z.output<typeof HelloAckFrame>, raw: JsonObject): HostInfo {
  return {
    protocolVersion: frame.protocol_version,
    zotVersion: frame.zot_version,
    provider: frame.provider,
    model: frame.model,
    cwd: frame.cwd,
    extensionDir: frame.extension_dir,
    dataDir: frame.data_dir,
    raw,
  };
}
