// Issue 29: a tool call from host.callTool to the extension's stdin and back touches few source
// files. Measured, not listed by hand: V8's precise coverage says which functions one call runs,
// and the files that hold them are the files a reader follows (docs/architecture.md, "A tool call,
// file by file"). A file joining the path fails here: the list there is updated with the reason.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { fixture, ROOT, tempDir } from './helpers/fixtures.js';

const temp = tempDir('zot-call-path-');
afterAll(() => temp.cleanup());

/** The path, in the order a call goes (docs/architecture.md). */
const PATH = [
  'host/host.ts',
  'host/calls.ts',
  'host/context.ts',
  'process/extension-process.ts',
  'connection/connection.ts',
  'protocol/frame-check.ts',
  'connection/writer.ts',
  'transport/streams.ts',
  'protocol/decoder.ts',
];

it('a tool call runs code in the 9 files of docs/architecture.md, out and back', async () => {
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/helpers/call-path-child.ts'), fixture('extensions/kitchen'), temp.dir], { cwd: ROOT, timeout: 20_000 }, (error, out, err) => {
      if (error) reject(new Error(`${error.message}\n${err}`));
      else resolve(out);
    });
  });
  const calls = JSON.parse(stdout) as { isError: boolean; files: Record<string, string[]> }[];
  expect(calls.map((c) => c.isError)).toEqual([false, false, false]);
  const ranInAll = Object.keys(calls[0]!.files).filter((file) => calls.every((c) => c.files[file] !== undefined));
  expect(ranInAll.sort(), JSON.stringify(calls[0]!.files, null, 1)).toEqual([...PATH].sort());
});
