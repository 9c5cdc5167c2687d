// The only seam between bytes and frames: what a Connection needs from "something that carries
// newline-delimited JSON to an extension and back" (a child's pipes, in-memory streams, later a
// WebSocket). A new transport is one file implementing this, plus a line in create.ts.

/** How the peer ended. `code`/`signal` are the process's exit status where there is one. */
export interface TransportExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** How a peer that is not a local process ended, in words (WebSocket: `connection closed (1001 server shutting down)`). */
  status?: string | undefined;
}

/**
 * Something went wrong that ends the connection; the owner decides what it means in its state
 * (during the handshake, or after it).
 * - `failed`: the peer could not be started or failed (`message` says why, as a person reads it).
 * - `frame_too_large`: a line exceeded the frame cap; nothing more is read.
 * - `input_closed` / `output_closed`: the peer stays alive but can no longer receive / send.
 */
export type TransportFault =
  | { kind: 'failed'; message: string; cause: unknown }
  | { kind: 'frame_too_large'; bytes: number; limit: number }
  /** A remote peer sent a binary message: the transport closes the connection itself (1003). */
  | { kind: 'binary_message'; bytes: number }
  | { kind: 'input_closed' }
  | { kind: 'output_closed' };

export interface TransportEvents {
  /** One frame, without its newline (empty lines are skipped); unless start() was given a receiver. */
  line: [line: string];
  /** After send() returned false: more may be sent. */
  drain: [];
  error: [fault: TransportFault];
  /** The peer is gone (exited, disconnected); its last lines may still follow, then `close`. */
  exit: [exit: TransportExit];
  /** Emitted once: the connection is over and every line of the peer was delivered. */
  close: [exit: TransportExit];
}

/** What a transport's owner is told by method calls (Transport.watch): no listener record per event per extension. */
export interface TransportWatcher {
  transportFault(fault: TransportFault): void;
  transportExit(exit: TransportExit): void;
  transportClose(exit: TransportExit): void;
}

export interface TransportCloseOptions {
  /**
   * Graceful: `last` is written, the input ended, and the peer given the transport's shutdown
   * grace before it is forced. `false`: the input is dropped and the peer forced at once. @default true
   */
  graceful?: boolean | undefined;
  /** What still has to reach the peer before its input ends (the in-band goodbye and anything queued). */
  last?: string | undefined;
}

/**
 * Writes come in two shapes: `send(line)` for one frame, and `write(chunk, done)` for a batch of
 * LF-terminated lines in one call. The Connection uses `write`: one syscall and one wake-up of the
 * extension per batch, and the chunk stays in the Connection's queue (where it can be taken back)
 * until the previous write completed, which `done` reports. A chunk is a piece of the LF-delimited
 * stream: a line longer than one write (WRITE_CHUNK_CHARS) spans chunks, so a message-based
 * transport reassembles at LF.
 */
export interface Transport {
  /** Process id, where there is a local process (what `extensions()` shows). */
  readonly pid?: number | undefined;
  /** Where a remote peer lives. */
  readonly url?: string | undefined;
  /** Something can still be written (the input is open). */
  readonly writable: boolean;
  /** A write has not completed yet (the peer has not taken it). */
  readonly writing: boolean;
  /**
   * Loads what start() needs (lazily imported modules), so the owner can load its own meanwhile.
   * Optional; start() works without it.
   */
  prepare?(): Promise<void>;
  /**
   * Spawns / connects. Rejects with an ExtensionHostError (SPAWN_FAILED) when there is no peer.
   * `receiver` gets every line by a direct call instead of a 'line' event: every response is a
   * line, and an emit per line cost a measurable part of a small round trip. `context` is `this`
   * for `receiver` (a prototype method needs no closure).
   */
  start(receiver?: (line: string) => void, context?: unknown): Promise<void>;
  /** One frame without its LF. False: backpressure ('drain' follows), or not writable. */
  send(line: string): boolean;
  /**
   * Writes `chunk` (LF-terminated lines, or a piece of a long one); `done` runs once it is taken, in
   * order, with `context` as `this` (a prototype method needs no closure). `true`: it was taken at
   * once, and `done` is not called.
   */
  write(chunk: string, done: () => void, context?: unknown): boolean | void;
  /** Drops the input at once: nothing more can be written (the peer sees its input end). */
  closeInput(): void;
  /**
   * Ends the connection (see TransportCloseOptions); resolves once the peer and everything it
   * started are gone. After `close`, resolves at once (after a last check that nothing lingers).
   * `reason` is for transports that tell their peer why.
   */
  close(reason?: string, options?: TransportCloseOptions): Promise<void>;
  /**
   * The owner decoded the peer's `shutdown_ack` (the frames are the owner's, the bytes the
   * transport's). Optional: a transport whose close() waits for the acknowledgement (WebSocket,
   * whose peer has no exit to wait for) goes on at once instead of waiting out the grace.
   */
  shutdownAcked?(): void;
  /** Forces the peer to end now (stdio: SIGTERM, then SIGKILL after the kill grace); resolves at `close`, or gives up. */
  terminate(): Promise<void>;
  /** Tells `watcher` of every `error`, `exit` and `close`, before the events' listeners (one watcher). */
  watch(watcher: TransportWatcher): void;
  /** `context` is `this` for the listener (a prototype method needs no closure per listener). */
  on<E extends keyof TransportEvents>(event: E, listener: (...args: TransportEvents[E]) => void, context?: unknown): this;
  off<E extends keyof TransportEvents>(event: E, listener: (...args: TransportEvents[E]) => void, context?: unknown): this;
}
