// Entry point, started by the host through extension.json: `node --import tsx ./main.ts`.
import ext from './extension.js';

await ext.run();
