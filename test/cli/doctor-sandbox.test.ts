// zot-ext doctor / run --sandbox: each extension's sandbox in the report (issue 32), with real bubblewrap.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../../src/transport/sandbox.js';
import { useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-doctor-sandbox-');
const available = (await detectSandbox()).kind === 'bwrap' || process.env.ZOT_EXT_REQUIRE_SANDBOX === '1';

describe('doctor --sandbox', { timeout: 30_000 }, () => {
  it.skipIf(!available)('says how each extension is confined (doctor, run, --json), and that a remote one is not', async () => {
    const local = sandbox.source('extensions/hello-sh');
    const remote = path.join(sandbox.dir, 'far');
    mkdirSync(remote, { recursive: true });
    writeFileSync(path.join(remote, 'extension.json'), JSON.stringify({ name: 'far', url: 'ws://127.0.0.1:9/x' }));
    // Its directory is read-only in the sandbox: it writes its data dir, <home>/data/<name>.
    const data = path.join(sandbox.home, 'data', 'hello-sh');
    const r = await sandbox.cli('doctor', '--no-discover', '--sandbox', 'required', local, remote);
    expect(r.stdout).toMatch(/^✓ hello-sh 1\.0\.0 \(explicit\) ready in/m);
    expect(r.stdout).toContain(`    sandbox: bwrap (required), network none, writes ${data}, a private /tmp\n`);
    expect(r.stdout).toContain('    sandbox: not applicable (remote)\n');
    const run = await sandbox.cli('run', '--sandbox', 'required', local);
    expect(run.stderr).toContain(`    sandbox: bwrap (required), network none, writes ${data}, a private /tmp\n`);
    const json = JSON.parse((await sandbox.cli('doctor', '--no-discover', '--json', '--sandbox', 'auto', local)).stdout) as { extensions: { sandbox: unknown }[] };
    expect(json.extensions[0]!.sandbox).toEqual({ mode: 'auto', active: true, backend: 'bwrap', network: 'none', writable: [data] });
  });

  it('refuses a mode it does not know', async () => {
    const r = await sandbox.cli('doctor', '--sandbox', 'on');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--sandbox "on": use off, auto or required');
  });
});
