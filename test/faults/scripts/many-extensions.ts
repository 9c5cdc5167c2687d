// Starts COUNT copies of the hello-sh fixture in one host, calls each, stops: run under a low
// `ulimit -n` by fd-exhaustion.test.ts. Prints one JSON report line; exit 0 unless something
// escaped (an unhandled rejection or an uncaught exception).
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ExtensionHost } from '../../../src/index.js';
import { tempDir } from '../../helpers/fixtures.js';

const [fixtureDir, countArg] = process.argv.slice(2);
const count = Number(countArg);
const escaped: string[] = [];
process.on('unhandledRejection', (reason) => escaped.push(`unhandledRejection: ${String(reason)}`));
process.on('uncaughtException', (error) => escaped.push(`uncaughtException: ${String(error)}`));

const temp = tempDir('zot-fd-');
const root = temp.dir;
const dirs: string[] = [];
for (let i = 0; i < count; i++) {
  const dir = path.join(root, `ext-${i}`);
  cpSync(fixtureDir!, dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(dir, 'extension.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(path.join(dir, 'extension.json'), JSON.stringify({ ...manifest, name: `many-${i}` }));
  dirs.push(dir);
}
const host = new ExtensionHost({ discover: false, explicit: dirs, logDir: path.join(root, 'logs'), timeouts: { shutdown: 500 } });
let stopError: string | undefined;
try {
  const report = await host.start();
  const failures = report.failed.map((f) => ({ code: f.error.code, message: f.error.message }));
  // The extensions that did start still answer.
  const outcome = await host.runCommand({ name: 'hello-sh' });
  const answered = outcome.handled ? outcome.text : undefined;
  try {
    await host.stop();
  } catch (err) {
    stopError = String(err);
  }
  // Let anything left unhandled surface before reporting.
  await new Promise((resolve) => setTimeout(resolve, 100));
  process.stdout.write(`${JSON.stringify({ loaded: report.loaded.length, answered, failures, stopError, escaped })}\n`);
} finally {
  temp.cleanup();
}
process.exitCode = escaped.length > 0 || stopError !== undefined ? 3 : 0;
