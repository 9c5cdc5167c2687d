// The short soak (the full one is `npm run soak`): 1,000 calls at mixed concurrency across three
// extensions with seeded crashes, 10 reloads, 3 stop/start cycles; fds, child processes and heap
// back near their start, no unhandled rejection.
import { expect, it } from 'vitest';
import { checkSoak, runSoak } from '../bench/soak.js';

it('1,000 calls, 10 reloads, 3 stop/start cycles leave nothing behind', async () => {
  const result = await runSoak({ calls: 1000, reloads: 10, cycles: 3, crashRate: 0.01, seed: 7 });
  expect(result.calls).toBe(1000);
  expect(result.errors.PROCESS_EXITED ?? 0).toBeGreaterThan(0); // the seeded crashes happened
  checkSoak(result);
}, 60_000);
