// Starts an extension that ignores shutdown and SIGTERM, prints its pid, and exits WITHOUT stop().
import path from 'node:path';
import { ExtensionProcess } from '../../../src/process/extension-process.js';

const dir = path.resolve(process.argv[2]!);
const p = new ExtensionProcess({
  name: 'ignore-sigterm',
  dir,
  launch: { kind: 'spawn', exec: './run.sh' },
  logDir: process.argv[3]!,
  host: { hostVersion: '0', provider: '', model: '', cwd: dir },
});
await p.start();
process.stdout.write(`${p.pid}\n`);
process.exit(0);
