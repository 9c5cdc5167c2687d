// Start-time warnings (a refused tool name, garbage on stdout): run prints them as doctor does, and
// doctor --strict fails on them.
import { describe, expect, it } from 'vitest';
import { fixture } from '../helpers/fixtures.js';
import { runCli, useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-warnings-');
const GARBAGE = fixture('faults/garbage');
const BAD_NAMES = fixture('faults/bad-tool-names');
const HELLO = fixture('extensions/hello-sh');

describe('start-time warnings', { timeout: 30_000 }, () => {
  it('run prints them under the extension they belong to, and still exits 0', async () => {
    const r = await runCli(['run', BAD_NAMES, GARBAGE, '--home', sandbox.home, '--cwd', sandbox.project], { input: '/still-works\n' });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n');
    const at = (prefix: string) => lines.findIndex((l) => l.startsWith(prefix));
    expect(at('loaded bad-tool-names')).toBeGreaterThanOrEqual(0);
    expect(lines[at('loaded bad-tool-names') + 1]).toBe(
      '    warning: bad-tool-names: tool "get weather" refused: model providers accept tool names of 1 to 64 characters a-z, A-Z, 0-9, _ and - only, and one such name would fail every model request that lists the tools',
    );
    expect(lines[at('loaded garbage') + 1]).toMatch(/^ {4}warning: not JSON \(.*\): "this is not json" \(log: .*ext-garbage\.log\)$/);
    expect(lines.filter((l) => l.startsWith('    warning: ')).length).toBe(4 + 6);
    expect(r.stdout).toBe('[garbage] display: ok\n');
  });

  it('doctor --strict exits 1 on warnings, doctor without it 0; --strict with none exits 0', async () => {
    const common = ['--no-discover', '--home', sandbox.home, '--cwd', sandbox.project];
    const [plain, strict, clean, json] = await Promise.all([
      runCli(['doctor', GARBAGE, ...common]),
      runCli(['doctor', '--strict', GARBAGE, ...common]),
      runCli(['doctor', '--strict', HELLO, ...common]),
      runCli(['doctor', '--strict', '--json', GARBAGE, ...common]),
    ]);
    expect(plain.code).toBe(0);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/^--strict: 6 warnings$/m);
    expect(clean.code, clean.stdout).toBe(0);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, strict: true, warningCount: 6 });
  });
});
