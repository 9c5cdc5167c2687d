// The embedder's options for remote extensions (docs/remote.md): the WebSocket keep-alive.

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
