// zot-ext doctor shows what an extension requested against what it was granted, and declared
// environment variables that are missing.
import { mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { copyFixture } from '../helpers/fixtures.js';
import { runCli, useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-doctor-security-');

describe('doctor and security', { timeout: 30_000 }, () => {
  it('prints requested vs granted permissions and missing declared variables', async () => {
    mkdirSync(sandbox.globalDir(''), { recursive: true });
    copyFixture('faults/env-dump', sandbox.globalDir('env-dump'), (m) => ({ ...m, permissions: ['tools', 'intercept:tool_call'] }));
    const r = await runCli(['doctor', '--home', sandbox.home, '--cwd', sandbox.project], { env: { ZOT_TEST_TOKEN: 'x', ZOT_TEST_UNSET: undefined } });
    expect(r.stdout).toMatch(/^✓ env-dump 1\.0\.0 \(global\)/m);
    expect(r.stdout).toContain('    permissions: tools, intercept:tool_call (requested: tools, intercept:tool_call)\n');
    expect(r.stdout).toContain('warning: env-dump declares the environment variable ZOT_TEST_UNSET, not set in the host environment');
    // The command was refused (not requested): it is not listed.
    expect(r.stdout).not.toContain('/leak');
  });
});
