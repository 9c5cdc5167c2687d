// The one exec check: discovery's warnings and the spawn's refusal come from the same verdict.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiagnosticCode } from '../../src/manifest/diagnostics.js';
import { checkExecutable, execDiagnostics, execProblem, resolveExec } from '../../src/manifest/exec.js';
import { tree } from './tree.js';

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'zot-exec-'));
  await tree(base, {
    'run.sh': { mode: 0o755, content: '#!/bin/sh\n' },
    'plain.sh': { mode: 0o644, content: '#!/bin/sh\n' },
    'bin/x': '',
  });
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe('resolveExec', () => {
  it('keeps absolute paths, resolves paths with a separator against the extension, leaves bare names to PATH', () => {
    expect(resolveExec('/usr/bin/env', '/ext')).toEqual({ command: '/usr/bin/env', onPath: false });
    expect(resolveExec('./run.sh', '/ext')).toEqual({ command: path.resolve('/ext', 'run.sh'), onPath: false });
    expect(resolveExec('bin/x', '/ext')).toEqual({ command: path.resolve('/ext', 'bin/x'), onPath: false });
    expect(resolveExec('node', '/ext')).toEqual({ command: 'node', onPath: true });
  });
});

describe.skipIf(process.platform === 'win32')('one verdict, two wordings', () => {
  const cases = [
    ['./run.sh', undefined, undefined, undefined],
    ['./missing', 'not_found', DiagnosticCode.EXEC_NOT_FOUND, /^executable not found: /],
    ['./plain.sh', 'not_executable', DiagnosticCode.EXEC_NOT_EXECUTABLE, /^not executable \(chmod \+x\?\): /],
    ['./bin', 'not_a_file', DiagnosticCode.EXEC_NOT_EXECUTABLE, /^not a program \(a directory\): /],
  ] as const;

  it.each(cases)('%s', async (exec, kind, code, spawnMessage) => {
    const { command } = resolveExec(exec, base);
    expect((await execProblem(command))?.kind).toBe(kind);
    const diagnostics = await execDiagnostics(exec, base, path.join(base, 'extension.json'), 'x');
    expect(diagnostics.map((d) => d.code)).toEqual(code === undefined ? [] : [code]);
    const refusal = await checkExecutable(command);
    if (spawnMessage === undefined) expect(refusal).toBeUndefined();
    else expect(refusal).toMatch(spawnMessage);
  });

  it('does not check a bare name (PATH is searched at spawn time)', async () => {
    expect(await execDiagnostics('definitely-not-a-program', base, path.join(base, 'extension.json'), 'x')).toEqual([]);
  });
});
