// The public shape of the `restart` option (types.ts re-exports it; supervisor.ts applies it).

/**
 * When and how fast the host restarts a crashed extension (`ExtensionHostOptions.restart`). The delay
 * before the n-th restart in the window (n from 0) is `backoffMs[min(n, backoffMs.length - 1)] *
 * (1 + jitter * r)`, with r uniform in [0, 1), rounded to whole ms.
 */
export interface RestartPolicy {
  /**
   * Restarts allowed within `windowMs` (0 to 100). The crash after them leaves the extension `failed`
   * with one `RESTART_LIMIT` diagnostic and warning; a manual `host.restart()` starts a fresh count.
   * @default 3
   */
  maxRestarts?: number | undefined;
  /** Sliding window in ms over which restarts are counted (> 0, or Infinity: for the host's life). @default 180000 */
  windowMs?: number | undefined;
  /** Delays in ms before the 1st, 2nd, ... restart in the window; the last repeats (1 to 100 entries, each 0 to 2^31-1). @default [250, 1000, 4000] */
  backoffMs?: readonly number[] | undefined;
  /** Fraction (0 to 1) of a delay that may be added at random, so extensions that crashed together do not restart together. @default 0.2 */
  jitter?: number | undefined;
}
