// Run by test/call-path.test.ts under tsx (real ES modules: vitest's transform adds a function per
// export, which would count as code run): starts a host over the kitchen fixture, makes one
// warm-up tool call, then prints the src files whose functions ran during each of three more calls
// (the test takes the files all three ran: a log write or a timer of the start may land in one).
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExtensionHost } from '../../src/host/host.js';

const [fixtureDir, tempDir] = process.argv.slice(2) as [string, string];
const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src') + path.sep;
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

/** The src files with a function (not a module body) that ran since the last take, which resets the counts. */
async function filesRun(): Promise<Record<string, string[]>> {
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files: Record<string, string[]> = {};
  for (const script of result) {
    if (!script.url.startsWith('file://')) continue;
    const file = fileURLToPath(script.url);
    if (!file.startsWith(SRC)) continue;
    const ran = script.functions.filter((f) => f.ranges[0]!.count > 0 && f.ranges[0]!.startOffset > 0);
    if (ran.length > 0) files[path.relative(SRC, file).split(path.sep).join('/')] = ran.map((f) => f.functionName || '(anonymous)');
  }
  return files;
}

const host = new ExtensionHost({ cwd: tempDir, home: tempDir, logDir: tempDir, discover: false, explicit: [fixtureDir], callbacks: {} });
try {
  await host.start();
  await host.callTool('echo', { warm: true });
  const calls: { isError: boolean; files: Record<string, string[]> }[] = [];
  for (let i = 0; i < 3; i++) {
    await filesRun();
    const result = await host.callTool('echo', { a: i });
    calls.push({ isError: result.isError, files: await filesRun() });
  }
  process.stdout.write(JSON.stringify(calls));
} finally {
  await host.stop();
  session.disconnect();
}
