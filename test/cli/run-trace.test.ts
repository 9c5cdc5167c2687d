// `zot-ext run --trace` / `--trace-file`: every line between the host and the extensions,
// timestamped, through the real binary against a fixture extension.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture } from '../helpers/fixtures.js';
import { runCli, useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-run-trace-');
const TIME = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`;

describe('run --trace', { timeout: 30_000 }, () => {
  it('prints each frame both ways on stderr: time, extension, direction, the line', async () => {
    const r = await runCli(['run', fixture('extensions/weather'), '--trace', '--home', sandbox.home, '--cwd', sandbox.project], { input: '!weather {"city":"Oslo"}\n' });
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n');
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${TIME} weather <- \\{"type": ?"hello"`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${TIME} weather -> \\{"type":"hello_ack"`)));
    const call = lines.find((l) => / weather -> \{"type":"tool_call"/.test(l));
    expect(call).toContain('"args":{"city":"Oslo"}');
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${TIME} weather <- \\{"type": ?"tool_result"`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${TIME} weather -> \\{"type":"shutdown"`)));
    // The trace is on stderr only: the result is printed as without it.
    expect(r.stdout).toContain('[weather] weather: Oslo');
  });

  it('--trace-file appends the same lines to a file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'zot-trace-'));
    try {
      const file = path.join(dir, 'trace.log');
      const r = await runCli(['run', fixture('extensions/weather'), '--trace-file', file, '--home', sandbox.home, '--cwd', sandbox.project], { input: '!weather {"city":"Oslo"}\n' });
      expect(r.code).toBe(0);
      expect(r.stderr).not.toMatch(/ weather -> /);
      const text = readFileSync(file, 'utf8');
      expect(text).toMatch(new RegExp(`^${TIME} weather <- \\{"type": ?"hello"`, 'm'));
      expect(text).toMatch(/ weather -> \{"type":"tool_call".*"city":"Oslo"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
