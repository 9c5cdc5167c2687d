// Entry point: `node --import tsx ./main.ts` (see extension.json). Tests import extension.ts instead.
import guard from './extension.js';

await guard.run();
