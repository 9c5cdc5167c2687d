import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from './helpers/fixtures.js';

const tsx = path.join(ROOT, 'node_modules/.bin/tsx');

function run(file: string) {
  return spawnSync(tsx, [path.join(ROOT, file)], { cwd: ROOT, encoding: 'utf8', timeout: 30_000, env: { ...process.env, NO_COLOR: '1' } });
}

describe('examples that the docs use', () => {
  it('the demo agent runs a whole scripted session and exits 0', { timeout: 40_000 }, () => {
    const r = run('examples/demo-agent.ts');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    for (const line of [
      /loaded +weather 1\.0\.0 pid \d+ ready via ready/,
      /loaded +hello-sh/,
      /prompt +\[weather\] user message for the model: "Show today's weather for Berlin in one line\."/,
      /display +\[hello-sh\] hello from sh/,
      /insert +\[kitchen\] into the editor: "some text at the cursor"/,
      /submit +\[kitchen\] queued as a user prompt: "index the repo"/,
      /note +\[kitchen\] error: something failed/,
      /\/help is not an extension command/,
      /enable_forecast -> activated \["forecast"\]/,
      /forecast -> Lisbon: tomorrow 18°C, sun/,
      /bash "rm -rf \/" blocked by guard/,
      /panel +render todos-main/,
      /panel +closed todos-main \(by extension\)/,
      /turn_start sent to 1 subscriber/,
      /weather answered in \d+ ms while hang was pending: Oslo: 16°C, fog/,
      /hang -> TIMEOUT after \d+ ms \(its deadline\): kitchen did not answer tool_call within 300 ms/,
      /crash -> PROCESS_EXITED in \d+ ms: kitchen exited with code 7/,
      /weather still answers \(\d+ ms\): Rome: 16°C, fog/,
      /state +weather ready, todo ready, hello-sh ready, kitchen exited, guard ready/,
      /every extension process is gone/,
    ]) {
      expect(r.stdout).toMatch(line);
    }
    // A crash or a hang is contained: answered within its deadline, not at the 60 s default.
    const crashMs = Number(/crash -> PROCESS_EXITED in (\d+) ms/.exec(r.stdout)?.[1]);
    expect(crashMs).toBeLessThan(5000);
    // The loaded lines come before any tool list, and no tool list offers the fault-injection tools.
    const lines = r.stdout.split('\n');
    const lastLoaded = lines.findLastIndex((l) => /^loaded /.test(l));
    const firstToolList = lines.findIndex((l) => /^tools +model tool list/.test(l));
    expect(lastLoaded).toBeGreaterThan(-1);
    expect(firstToolList).toBeGreaterThan(lastLoaded);
    for (const list of lines.filter((l) => /^tools +model tool list/.test(l))) {
      expect(list).not.toMatch(/\b(?:hang|crash|slow|bad_result|closeout)\b/);
    }
    expect(lines.find((l) => /^tools +model tool list:/.test(l))).toMatch(/weather, enable_forecast, echo, image$/);
  });

  it('the embedding recipe maps tools, routes commands and guards tool calls', { timeout: 40_000 }, () => {
    const r = run('examples/embed-tools.ts');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('anthropic tools: ["weather","enable_forecast"]');
    expect(r.stdout).toContain('agent built-in command: /help');
    expect(r.stdout).toContain('guarded: error: refused: matches danger pattern "rm -rf"');
    expect(r.stdout).toContain('anthropic tools after activation: ["weather","forecast","enable_forecast"]');
    expect(r.stdout).toContain('openai responses tools: ["weather","enable_forecast"]');
    expect(r.stdout).toContain('anthropic tool_result: {"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"Paris: 16°C, fog"}]}');
    expect(r.stdout).toContain('openai tool message: {"role":"tool","tool_call_id":"call-1","content":"Paris: 16°C, fog"}');
    expect(r.stdout).toContain('openai function_call_output: {"type":"function_call_output","call_id":"call-1","output":"Paris: 16°C, fog"}');
  });

  // Each asserts what its doc promises (node:assert) and exits non-zero on the first mismatch.
  it('the README quick start runs', { timeout: 40_000 }, () => {
    const r = run('examples/quickstart.ts');
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('quickstart: ok');
    expect(r.status).toBe(0);
  });

  it('the README quick start runs as pasted, against the built package, from the repository root', { timeout: 40_000 }, () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const block = readme.split('<!-- snippet: examples/quickstart.ts -->\n```ts\n')[1]?.split('\n```\n')[0];
    expect(block).toContain("from 'zot-extension-host'");
    const temp = tempDir('zot-readme-');
    try {
      // A project that installed the package (the build of this repository).
      mkdirSync(path.join(temp.dir, 'node_modules'));
      symlinkSync(ROOT, path.join(temp.dir, 'node_modules/zot-extension-host'), 'dir');
      writeFileSync(path.join(temp.dir, 'quickstart.mts'), block!);
      const r = spawnSync(tsx, [path.join(temp.dir, 'quickstart.mts')], { cwd: ROOT, encoding: 'utf8', timeout: 30_000, env: { ...process.env, NO_COLOR: '1', ZOT_HOME: path.join(temp.dir, 'home') } });
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('tools: weather, enable_forecast\nloaded: weather, guard; searched: ');
      expect(r.stdout).toContain("prompt: Show today's weather for Berlin in one line.");
      expect(r.stdout).toContain("Oslo: 16°C, fog");
      expect(r.stdout).toContain("false { command: 'echo GUARDED: ls' }");
      expect(r.status).toBe(0);
    } finally {
      temp.cleanup();
    }
  });

  it('the reference embedding of docs/embedding.md checks every documented behaviour', { timeout: 40_000 }, () => {
    const r = run('examples/embed-reference.ts');
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('embed-reference: every documented behaviour checked');
    expect(r.status).toBe(0);
  });

  it('the stand-alone chain of docs/interception.md runs', { timeout: 40_000 }, () => {
    const r = run('examples/intercept-chain.ts');
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('intercept-chain: ok');
    expect(r.status).toBe(0);
  });

  it('the tracing recipe of docs/tracing.md runs', { timeout: 40_000 }, () => {
    const r = run('examples/tracing.ts');
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('execute_tool trace (parent agent turn)');
    expect(r.stdout).toContain('zot.intercept.step cancellable (parent zot.intercept tool_call)');
    expect(r.stdout).toContain('zot.intercept tool_call (parent agent turn)');
    expect(r.stdout).toContain('gen_ai.tool.call.id=call_1');
    expect(r.stdout).toContain('tracing: ok');
    expect(r.status).toBe(0);
  });

  it('the MCP recipe of docs/mcp.md loads server-everything as an extension', { timeout: 40_000 }, () => {
    const r = run('examples/mcp-server-as-extension.ts');
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^everything: ready, pid \d+$/m);
    expect(r.stdout).toContain('e.g. Echoes back the input string');
    expect(r.stdout).toContain('progress 1/2');
    expect(r.stdout).toContain('Long running operation completed');
    expect(r.stdout).toContain('ev_get-env blocked: true (no env dumps)');
    expect(r.stdout).toContain("prompt for the model: What's weather in Lisbon?");
    expect(r.stdout).toContain('mcp example: ok');
  });

  it('the MCP client of docs/mcp.md uses an extension through zot-ext mcp (the built CLI)', { timeout: 40_000 }, () => {
    const r = run('examples/mcp-client.ts');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        'tools: weather, enable_forecast',
        'weather: [{"type":"text","text":"Oslo: 16°C, fog"}]',
        'tools now: weather, forecast, enable_forecast',
        'prompt: [{"role":"user","content":{"type":"text","text":"Show today\'s weather for Lisbon in one line."}}]',
        '',
      ].join('\n'),
    );
    expect(r.status).toBe(0);
  });
});
