import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { copyFixture, fixture } from '../helpers/fixtures.js';
import { runCli, useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-doctor-');
const { globalDir } = sandbox;
const logOf = (name: string) => path.join(sandbox.home, 'logs', `ext-${name}.log`);

beforeEach(() => {
  mkdirSync(path.join(sandbox.home, 'extensions'), { recursive: true });
});

/** Good, faulty, disabled, shadowed, invalid and conflicting extensions in one tree. */
function brokenTree(): void {
  copyFixture('extensions/weather', globalDir('weather'));
  copyFixture('extensions/weather', path.join(sandbox.project, '.zot', 'extensions', 'weather'));
  copyFixture('faults/crash-before-hello', globalDir('crash-before-hello'));
  copyFixture('faults/not-hello', globalDir('not-hello'));
  copyFixture('faults/legacy', globalDir('legacy'));
  copyFixture('extensions/todo', globalDir('todo'), (m) => ({ ...m, enabled: false }));
  copyFixture('extensions/hello-sh', globalDir('hello-sh'));
  // Says hello as "hello-sh" and registers /hello-sh again: a name warning and a conflict.
  copyFixture('extensions/hello-sh', globalDir('hello-sh-2'), (m) => ({ ...m, name: 'hello-sh-2' }));
  mkdirSync(globalDir('broken'));
  writeFileSync(path.join(globalDir('broken'), 'extension.json'), '{"name": "broken", "exec": }');
  mkdirSync(globalDir('no-exec'));
  writeFileSync(path.join(globalDir('no-exec'), 'extension.json'), '{"name": "no-exec"}');
}

describe('doctor', { timeout: 30_000 }, () => {
  it('reports every kind of problem, stops everything and exits 1', async () => {
    brokenTree();
    // --trust: the tree has a project extension, which a run that is not on a terminal does not start otherwise.
    const r = await runCli(['doctor', '--trust', '--home', sandbox.home, '--cwd', sandbox.project]);
    expect(r.code).toBe(1);
    const out = r.stdout;
    expect(out).toMatch(/^✓ weather 1\.0\.0 \(project\) ready in \d+ ms$/m);
    expect(out).toContain('    commands: /Weather\n    tools: weather, forecast (deferred), enable_forecast\n');
    expect(out).toContain(`    log: ${logOf('weather')}\n`);
    expect(out).toContain(
      `✗ crash-before-hello (global) failed: crash-before-hello exited with code 3 before sending hello.\nLast stderr:\n  boom: missing config\nSee ${logOf('crash-before-hello')}\n`,
    );
    expect(out).toMatch(/^✗ not-hello \(global\) failed: not-hello: the first frame must be hello.*$/m);
    expect(out).toMatch(/^✓ legacy 1\.0\.0 \(global\) auto-ready after \d+ ms \(no ready frame; went quiet\)$/m);
    expect(out).toContain('conflict: command /hello-sh of hello-sh-2 is shadowed by hello-sh (earlier in load order)');
    expect(out).toContain(`- todo disabled: ${globalDir('todo')}\n`);
    expect(out).toMatch(/^- weather shadowed \(global extension "weather" .* is shadowed by the project one/m);
    expect(out).toMatch(/^✗ broken \(global\) invalid: .*extension\.json:1:28: invalid JSON/m);
    expect(out).toMatch(/^✗ no-exec \(global\) invalid: .*"exec" is required/m);
    expect(out).toMatch(/^4 ready, 2 failed, 2 invalid, 1 disabled, 1 shadowed \(\d+ ms\)$/m);
    expect(out).not.toMatch(/\x1b\[/);
    // The failure is in the log it points to.
    expect(readFileSync(logOf('crash-before-hello'), 'utf8')).toContain('boom: missing config');
  });

  it('--json carries the same report for machines', async () => {
    brokenTree();
    const r = await runCli(['doctor', '--json', '--trust', '--home', sandbox.home, '--cwd', sandbox.project]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as {
      ok: boolean;
      extensions: {
        name: string;
        state: string;
        readyVia: string | null;
        logPath: string;
        error: { code: string; exitCode: number | null } | null;
        commands: { name: string; active: boolean }[];
        tools: { name: string; deferred: boolean; schema: Record<string, unknown> | null }[];
      }[];
      skipped: { name: string; reason: string }[];
      invalid: { name: string; code: string }[];
      diagnostics: { code: string; extension?: string }[];
    };
    expect(report.ok).toBe(false);
    const byName = Object.fromEntries(report.extensions.map((e) => [e.name, e]));
    expect(byName['weather']).toMatchObject({ state: 'ready', readyVia: 'ready', logPath: logOf('weather'), error: null });
    expect(byName['legacy']).toMatchObject({ state: 'ready', readyVia: 'idle' });
    expect(byName['crash-before-hello']).toMatchObject({ state: 'failed', error: { code: 'EXITED_BEFORE_HELLO', exitCode: 3 } });
    expect(byName['not-hello']).toMatchObject({ state: 'failed', error: { code: 'BAD_HELLO' } });
    // Each tool with its JSON schema as the extension sent it; the host lists no schema for a deferred tool before it is activated.
    expect(byName['weather']!.tools.map((t) => [t.name, t.schema])).toEqual([
      ['weather', { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }],
      ['forecast', null],
      ['enable_forecast', { type: 'object', properties: {} }],
    ]);
    expect(byName['hello-sh-2']!.commands).toEqual([{ name: 'hello-sh', description: 'say hi from sh', active: false }]);
    expect(report.skipped.map((s) => [s.name, s.reason])).toEqual([
      ['todo', 'disabled'],
      ['weather', 'shadowed'],
    ]);
    expect(report.invalid.map((i) => [i.name, i.code])).toEqual([
      ['broken', 'MANIFEST_INVALID_JSON'],
      ['no-exec', 'EXEC_MISSING'],
    ]);
    expect(report.diagnostics.some((d) => d.code === 'REGISTRATION_CONFLICT' && d.extension === 'hello-sh-2')).toBe(true);
  });

  it('exits 0 when every extension loads; paths load first with --no-discover', async () => {
    copyFixture('extensions/weather', globalDir('weather'));
    const ok = await runCli(['doctor', '--home', sandbox.home, '--cwd', sandbox.project]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^1 ready \(\d+ ms\)$/m);

    const explicit = await runCli(['doctor', fixture('extensions/hello-sh'), '--no-discover', '--home', sandbox.home, '--cwd', sandbox.project]);
    expect(explicit.code).toBe(0);
    expect(explicit.stdout).toMatch(/^✓ hello-sh 1\.0\.0 \(explicit\) ready in \d+ ms$/m);
    expect(explicit.stdout).not.toContain('weather');
  });

  it('labels a broken path given on the command line "explicit", not "global"', async () => {
    const missing = path.join(sandbox.dir, 'no-such-extension');
    const broken = path.join(sandbox.dir, 'broken');
    mkdirSync(broken);
    writeFileSync(path.join(broken, 'extension.json'), '{"name": "broken"}');
    const args = ['doctor', missing, broken, '--no-discover', '--home', sandbox.home, '--cwd', sandbox.project];
    const text = await runCli(args);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`✗ no-such-extension (explicit) invalid: extension path ${missing} does not exist`);
    expect(text.stdout).toMatch(/^✗ broken \(explicit\) invalid: .*"exec" is required/m);
    expect(text.stdout).not.toContain('(global)');

    const json = JSON.parse((await runCli([...args, '--json'])).stdout) as { invalid: { name: string; scope: string; dir: string }[] };
    expect(json.invalid.map((b) => [b.name, b.scope, b.dir])).toEqual([
      ['no-such-extension', 'explicit', missing],
      ['broken', 'explicit', broken],
    ]);
  });
});
