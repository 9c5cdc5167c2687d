/**
 * The test kit's one stand-in left for the host side of the protocol extensions: the host grants
 * them for real (`offerToInMemory`, then cancel and progress as for any extension), but its `_meta`
 * carries the trace context of the host's own span (tracing on), never one a test chooses. This shim
 * sits between the host and one in-process extension and puts the `traceparent`/`tracestate` given
 * to `callTool` into that call's `_meta`, when the extension negotiated "trace". Lines it does not
 * need to change pass through as they are.
 */
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { LineDecoder } from '../protocol/decoder.js';
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

/** The trace context a test gave one call. */
export interface CallTag {
  traceparent: string;
  tracestate?: string | undefined;
}

/** The args key that tags a call on its way to the shim, which removes it. */
export const CALL_TAG_KEY = '__zotTestCall';

type Streams = { input: Writable; output: Readable; close?: (() => void) | undefined };
type Json = Record<string, unknown>;

function parse(line: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

export class ProtocolShim {
  /** By tag key; only calls not yet written to the extension. */
  private readonly byKey = new Map<string, CallTag>();
  private nextKey = 1;
  private trace = false;

  /** Tags a call; put `{ [CALL_TAG_KEY]: key }` into its args. */
  track(tag: CallTag): string {
    const key = `k${this.nextKey++}`;
    this.byKey.set(key, tag);
    return key;
  }

  /** The call settled: its tag goes (it may never have been written). */
  settle(key: string): void {
    this.byKey.delete(key);
  }

  /** The streams the host uses instead of the extension's own. */
  wrap(streams: Streams): Streams {
    const toExtension = streams.input;
    const hostInput = new PassThrough();
    const down = new LineDecoder(
      (line) => {
        if (!toExtension.writableEnded) toExtension.write(`${this.fromHost(line)}\n`);
      },
      () => undefined,
    );
    hostInput.on('data', (chunk: Buffer) => down.push(chunk));
    hostInput.on('end', () => toExtension.end());
    return { input: hostInput, output: streams.output, close: streams.close };
  }

  private fromHost(line: string): string {
    // Cheap checks first: most lines are neither a hello_ack nor a tagged call.
    if (!line.includes('"hello_ack"') && !line.includes(CALL_TAG_KEY)) return line;
    const frame = parse(line);
    if (frame === undefined) return line;
    if (frame.type === 'hello_ack') {
      this.trace = Array.isArray(frame.capabilities) && frame.capabilities.includes('trace');
      return line;
    }
    const args = frame.args as Json | undefined;
    const key = args?.[CALL_TAG_KEY];
    if (frame.type !== 'tool_call' || typeof key !== 'string') return line;
    const { [CALL_TAG_KEY]: _key, ...rest } = args as Json;
    const out: Json = { ...frame, args: rest };
    const tag = this.byKey.get(key);
    this.byKey.delete(key);
    if (tag !== undefined && this.trace) out._meta = { traceparent: tag.traceparent, ...(tag.tracestate === undefined ? {} : { tracestate: tag.tracestate }) };
    return JSON.stringify(out);
  }
}
