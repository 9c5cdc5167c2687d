import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// vitest's workers run without --expose-gc: the flag can still be set at run time, and a fresh
// context then sees `gc`.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap in use after full garbage collections, in bytes. */
export function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}
