// `await host.stop()` keeps Node alive until it resolves, also while it waits for the process tree
// of an extension that left setsid() descendants: the built package (ESM and CJS), in a child Node
// process with nothing else to keep its event loop busy, prints a marker after stop().
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, ROOT, tempDir } from '../helpers/fixtures.js';
import { runCli } from '../cli/cli.js';

const tmp = tempDir('zot-stop-alive-');
afterAll(() => tmp.cleanup());

const SETSID = fixture('faults/setsid-grandchild');
const MARKER = 'after-stop-resolved';
const RUNS = 5;

// The whole script: start, stop, marker. No timer or handle of its own.
const program = (load: string) => `
${load}
const host = new ExtensionHost({ discover: false, explicit: [${JSON.stringify(SETSID)}], home: ${JSON.stringify(tmp.dir)}, timeouts: { shutdown: 300 } });
host.start().then(async (report) => {
  if (report.failed.length > 0) throw new Error('failed to start: ' + JSON.stringify(report.failed));
  await host.stop();
  process.stdout.write(${JSON.stringify(MARKER)} + '\\n');
});
`;

const BUILDS = [
  { build: 'ESM', file: 'dist/index.js', args: ['--input-type=module', '-e'], load: `import { ExtensionHost } from ${JSON.stringify(path.join(ROOT, 'dist/index.js'))};` },
  { build: 'CJS', file: 'dist/index.cjs', args: ['-e'], load: `const { ExtensionHost } = require(${JSON.stringify(path.join(ROOT, 'dist/index.cjs'))});` },
];

function runNode(args: string[], timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: tmp.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe.each(BUILDS)('$build build: await host.stop() resolves before Node exits', ({ file, args, load }) => {
  it(`prints the marker after stop() and exits 0 (${RUNS} runs)`, { timeout: 60_000 }, async () => {
    expect(existsSync(path.join(ROOT, file)), 'run npm run build first').toBe(true);
    for (let i = 0; i < RUNS; i++) {
      const r = await runNode([...args, program(load)], 15_000);
      expect({ run: i, code: r.code, signal: r.signal, stdout: r.stdout, stderr: r.stderr }).toEqual({ run: i, code: 0, signal: null, stdout: `${MARKER}\n`, stderr: '' });
    }
  });
});

describe('zot-ext doctor --json with an extension that leaves setsid descendants', () => {
  it(`prints its report and exits by it (${RUNS} runs)`, { timeout: 60_000 }, async () => {
    for (let i = 0; i < RUNS; i++) {
      const r = await runCli(['doctor', '--json', '--no-discover', SETSID, '--home', tmp.dir], { timeoutMs: 15_000 });
      expect({ run: i, code: r.code, stderr: r.stderr }).toEqual({ run: i, code: 0, stderr: '' });
      expect((JSON.parse(r.stdout) as { extensions: { name: string; state: string }[] }).extensions.map((e) => [e.name, e.state])).toEqual([['setsid-grandchild', 'ready']]);
    }
  });
});

// Other awaited waits of the same kind: nothing but the wait's own timer keeps Node alive.
const AWAITED = [
  {
    what: 'start() with an in-memory extension that never says hello (the hello deadline)',
    code: `
import { PassThrough, Writable } from 'node:stream';
import { ExtensionHost } from ${JSON.stringify(path.join(ROOT, 'dist/index.js'))};
const mute = { name: 'mute', connect: () => ({ input: new Writable({ write: (_c, _e, done) => done() }), output: new PassThrough() }) };
const host = new ExtensionHost({ discover: false, inMemory: [mute], home: ${JSON.stringify(tmp.dir)}, timeouts: { hello: 300, helloJoin: 300 } });
const report = await host.start();
process.stdout.write(report.failed.map((f) => f.error.code).join(',') + ' ${MARKER}\\n');
`,
    expected: `HELLO_TIMEOUT ${MARKER}\n`,
  },
  {
    what: "an SDK extension's run() whose output never drains (the stop's flush deadline)",
    code: `
import { PassThrough, Writable } from 'node:stream';
import { defineExtension } from ${JSON.stringify(path.join(ROOT, 'dist/sdk.js'))};
const input = new PassThrough();
// Takes the first write and never completes it: the flush at the stop waits for its deadline.
const output = new Writable({ write: () => undefined });
const run = defineExtension({ name: 'stuck-output' }).run({ input, output, stderr: new PassThrough(), exit: () => undefined });
input.end();
await run;
process.stdout.write('${MARKER}\\n');
`,
    expected: `${MARKER}\n`,
  },
];

describe.each(AWAITED)('$what', ({ code, expected }) => {
  it('keeps Node alive until it resolves', { timeout: 30_000 }, async () => {
    expect(existsSync(path.join(ROOT, 'dist/sdk.js')), 'run npm run build first').toBe(true);
    const r = await runNode(['--input-type=module', '-e', code], 15_000);
    expect({ code: r.code, signal: r.signal, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, signal: null, stdout: expected, stderr: '' });
  });
});
