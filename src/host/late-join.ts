// zot has no hello deadline; launchers on a cold cache (`npx -y tsx`) can take seconds. start() waits
// for hello only up to `timeouts.hello`: an extension still silent then is left `starting` and joins
// later, up to `timeouts.helloJoin` (the process layer's hello deadline).

/**
 * Resolves when `started` does, or, when `helloJoinMs` is longer than `helloMs`, at `helloMs` if the
 * extension has not said hello by then (`onLate` is called; `started` goes on in the background).
 * `started` must never reject.
 */
export function startBound(started: Promise<void>, saidHello: () => boolean, helloMs: number, helloJoinMs: number, onLate: () => void): Promise<void> {
  if (helloJoinMs <= helloMs) return started;
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      if (saidHello()) return;
      onLate();
      resolve();
    }, helloMs);
    void started.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The process layer's hello deadline: the longer of the two. */
export function processHelloTimeout(helloMs: number, helloJoinMs: number): number {
  return Math.max(helloMs, helloJoinMs);
}
