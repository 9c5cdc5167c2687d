// The embedder's bound of the frames an extension pushes to the callbacks unasked (docs/embedding.md).

/**
 * How many `submit` and `notify` frames of one extension reach the callbacks per window; the rest of
 * a window's are dropped, and counted in one `RATE_LIMITED` diagnostic per window. `Infinity` = no
 * bound for that kind.
 */
export interface RateLimits {
  /** `submit` frames (each starts or queues a turn) per window. @default 10 */
  submit?: number | undefined;
  /** `notify` frames per window. @default 100 */
  notify?: number | undefined;
  /** The window, in ms (fixed windows, each from the first frame after the last one ended). @default 1000 */
  windowMs?: number | undefined;
}

export interface RateLimitOptions {
  /** Per-extension bound of `submit` and `notify` frames. @default { submit: 10, notify: 100, windowMs: 1000 } */
  rateLimits?: RateLimits | undefined;
}
