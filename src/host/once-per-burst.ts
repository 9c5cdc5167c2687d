/**
 * A trigger that runs `fn` once, in a microtask, however often it is pulled before that: frames
 * parsed from one stdout chunk are handled synchronously, so their effects become one call.
 */
export function oncePerBurst(fn: () => void): () => void {
  let scheduled = false;
  const run = (): void => {
    scheduled = false;
    fn();
  };
  return () => {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(run);
  };
}
