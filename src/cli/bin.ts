import { main } from './main.js';

// SIGINT/SIGTERM abort the running command, which stops every extension it started; a second
// signal exits at once.
const controller = new AbortController();
let signals = 0;
const onSignal = (signal: NodeJS.Signals) => {
  if (++signals > 1) process.exit(signal === 'SIGINT' ? 130 : 143);
  controller.abort();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// A closed pipe (`zot-ext list | head`) is not an error; the command still finishes and stops what it started.
const ignoreEpipe = (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
};
process.stdout.on('error', ignoreEpipe);
process.stderr.on('error', ignoreEpipe);

main(process.argv.slice(2), { signal: controller.signal }).then(
  (code) => {
    process.exitCode = code;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  },
  (error: unknown) => {
    process.stderr.write(`zot-ext: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
