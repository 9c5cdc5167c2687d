/**
 * The test kit's stand-in for the host side of the protocol extensions (cancel, progress, trace)
 * until the host speaks them (issue 15): it sits between the host and one in-process extension,
 * grants the capabilities in `hello_ack`, sends `cancel` when a call was aborted or timed out,
 * takes `progress` frames for pending calls, and adds `_meta` trace context to tagged calls.
 * Lines it does not need to change pass through as they are.
 */
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { LineDecoder } from '../protocol/decoder.js';

/** A protocol extension the test host can grant. */
import type { ProtocolCapability } from '../protocol/names.js';

export type { ProtocolCapability };

/** A `progress` frame an extension sent for one of its pending calls. */
export interface ProgressRecord {
  extension: string;
  requestId: string;
  message?: string | undefined;
  progress?: number | undefined;
  total?: number | undefined;
}

/** What the test asked for one call. */
export interface CallTag {
  onProgress?: ((progress: ProgressRecord) => void) | undefined;
  traceparent?: string | undefined;
  tracestate?: string | undefined;
}

/** The args key that tags a call on its way to the shim, which removes it. */
export const CALL_TAG_KEY = '__zotTestCall';

type Streams = { input: Writable; output: Readable; close?: (() => void) | undefined };
type Json = Record<string, unknown>;

interface Pending {
  tag: CallTag;
  id: string | undefined;
  cancelled: boolean;
}

function parse(line: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export class ProtocolShim {
  private negotiated: ReadonlySet<string> = new Set();
  private declared: readonly string[] = [];
  private sawHello = false;
  /** By tag key; only calls in flight (each leaves on its answer or when its call settled). */
  private readonly byKey = new Map<string, Pending>();
  private readonly byId = new Map<string, Pending>();
  private nextKey = 1;

  constructor(
    readonly extension: string,
    private readonly granted: readonly ProtocolCapability[],
    private readonly record: (progress: ProgressRecord) => void,
  ) {}

  /** Tags a call; put `{ [CALL_TAG_KEY]: key }` into its args. */
  track(tag: CallTag): string {
    const key = `k${this.nextKey++}`;
    this.byKey.set(key, { tag, id: undefined, cancelled: false });
    return key;
  }

  /** The call settled on the host side; an aborted or timed-out one gets its `cancel`. */
  settle(key: string, reason: 'aborted' | 'timeout' | undefined, send: (line: string) => void): void {
    const pending = this.byKey.get(key);
    this.byKey.delete(key);
    if (pending?.id === undefined || !this.byId.has(pending.id)) return;
    if (reason !== undefined && this.negotiated.has('cancel')) {
      pending.cancelled = true; // its late answer is dropped
      send(`${JSON.stringify({ type: 'cancel', id: pending.id, reason })}\n`);
    } else {
      this.byId.delete(pending.id);
    }
  }

  /** The streams the host uses instead of the extension's own. */
  wrap(streams: Streams): Streams & { send: (line: string) => void } {
    const toExtension = streams.input;
    const hostInput = new PassThrough();
    const hostOutput = new PassThrough();
    const send = (line: string) => {
      if (!toExtension.writableEnded) toExtension.write(line);
    };
    const down = new LineDecoder(
      (line) => send(`${this.fromHost(line)}\n`),
      () => undefined,
    );
    hostInput.on('data', (chunk: Buffer) => down.push(chunk));
    hostInput.on('end', () => toExtension.end());
    const up = new LineDecoder(
      (line) => {
        const out = this.fromExtension(line);
        if (out !== undefined) hostOutput.write(`${out}\n`);
      },
      () => undefined,
    );
    streams.output.on('data', (chunk: Buffer | string) => up.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    streams.output.on('end', () => hostOutput.end());
    return { input: hostInput, output: hostOutput, close: streams.close, send };
  }

  private fromHost(line: string): string {
    // Cheap checks first: most lines are neither a hello_ack nor a tagged call.
    if (!line.includes('"hello_ack"') && !line.includes(CALL_TAG_KEY)) return line;
    const frame = parse(line);
    if (frame === undefined) return line;
    if (frame.type === 'hello_ack') {
      const caps = this.granted.filter((c) => this.declared.includes(c));
      this.negotiated = new Set(caps);
      return caps.length === 0 ? line : JSON.stringify({ ...frame, capabilities: caps });
    }
    const args = frame.args as Json | undefined;
    const key = args?.[CALL_TAG_KEY];
    if (frame.type !== 'tool_call' || typeof key !== 'string' || typeof frame.id !== 'string') return line;
    const { [CALL_TAG_KEY]: _key, ...rest } = args as Json;
    const out: Json = { ...frame, args: rest };
    const pending = this.byKey.get(key);
    if (pending !== undefined) {
      pending.id = frame.id;
      this.byId.set(frame.id, pending);
      const { traceparent, tracestate } = pending.tag;
      if (traceparent !== undefined && this.negotiated.has('trace')) {
        out._meta = { traceparent, ...(tracestate === undefined ? {} : { tracestate }) };
      }
    }
    return JSON.stringify(out);
  }

  /** The line for the host, or undefined when the shim took it. */
  private fromExtension(line: string): string | undefined {
    if (!this.sawHello) {
      // The extension's first line is its hello.
      this.sawHello = true;
      const caps = parse(line)?.capabilities;
      if (Array.isArray(caps)) this.declared = caps.filter((c): c is string => typeof c === 'string');
      return line;
    }
    if (this.byId.size === 0 && !this.negotiated.has('progress')) return line;
    if (this.byId.size === 0 && !line.includes('"progress"')) return line;
    const frame = parse(line);
    const id = frame?.id;
    if (frame === undefined || typeof id !== 'string') return line;
    const pending = this.byId.get(id);
    if (frame.type === 'progress' && this.negotiated.has('progress')) {
      // Untagged calls (commands, intercepts) are recorded too; a cancelled call's are not.
      if (pending === undefined || !pending.cancelled) this.progress(id, frame, pending);
      return undefined;
    }
    if (pending === undefined) return line;
    this.byId.delete(id);
    // After a cancel the host has settled the call: the late answer goes nowhere.
    return pending.cancelled ? undefined : line;
  }

  private progress(id: string, frame: Json, pending: Pending | undefined): void {
    const record: ProgressRecord = { extension: this.extension, requestId: id };
    if (typeof frame.message === 'string') record.message = frame.message;
    if (finite(frame.progress)) record.progress = frame.progress;
    if (finite(frame.total)) record.total = frame.total;
    this.record(record);
    pending?.tag.onProgress?.(record);
  }
}
