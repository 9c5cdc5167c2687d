// zot-ext and workspace trust (issue 32): project extensions start on a terminal only when the user
// says so (y = once, a = always), elsewhere only with --trust or a stored 'always'; --no-project
// skips them. In process (main()), with a fake terminal where one is needed.
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { tempDir } from '../helpers/fixtures.js';
import { FakeTty } from '../helpers/terminal.js';

let tmp: { dir: string; cleanup: () => void };
const home = () => path.join(tmp.dir, 'home');
const project = () => path.join(tmp.dir, 'project');
const extDir = () => path.join(project(), '.zot', 'extensions', 'repo-ext');
/** How often the project extension ran (each run appends a line to `ran` in its directory). */
const ran = () => (existsSync(path.join(extDir(), 'ran')) ? readFileSync(path.join(extDir(), 'ran'), 'utf8').trim().split('\n').length : 0);

beforeEach(() => {
  tmp = tempDir('zot-cli-trust-');
  mkdirSync(extDir(), { recursive: true });
  writeFileSync(path.join(extDir(), 'extension.json'), JSON.stringify({ name: 'repo-ext', version: '1.0.0', exec: './run.sh' }));
  writeFileSync(
    path.join(extDir(), 'run.sh'),
    `#!/bin/sh
echo "$$" >> "$(dirname "$0")/ran"
printf '%s\\n' '{"type":"hello","name":"repo-ext","version":"1.0.0","capabilities":["commands"]}'
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in
    *'"hello_ack"'*) printf '%s\\n' '{"type":"register_command","name":"repo","description":"r"}' '{"type":"ready"}' ;;
    *'"shutdown"'*) printf '%s\\n' '{"type":"shutdown_ack"}'; exit 0 ;;
  esac
done
`,
  );
  chmodSync(path.join(extDir(), 'run.sh'), 0o755);
});
afterEach(() => tmp.cleanup());

/** A stream that keeps what is written to it. */
function sink(): Writable & { text: string } {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      stream.text += chunk.toString('utf8');
      callback();
    },
  }) as Writable & { text: string };
  stream.text = '';
  return stream;
}

/** `zot-ext <args>` not on a terminal: stdin is `input` (then EOF). */
async function piped(args: string[], input = '') {
  const stdout = sink();
  const stderr = sink();
  const code = await main([...args, '--home', home(), '--cwd', project()], { stdin: new PassThrough().end(input), stdout, stderr, env: { ...process.env, NO_COLOR: '1' }, cwd: tmp.dir });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** `zot-ext <args>` on a fake terminal; finish() stops it (for the leak check). */
function onTerminal(args: string[]) {
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
  const stdout = new FakeTty(240, 60);
  const stderr = new FakeTty(240, 60);
  const stop = new AbortController();
  const exit = main([...args, '--home', home(), '--cwd', project()], { stdin, stdout, stderr, env: { ...process.env, NO_COLOR: '1' }, cwd: tmp.dir, signal: stop.signal });
  return { stdin, stdout, stderr, exit, finish: () => (stop.abort(), exit) };
}

/** An extension `name` outside the project, to install: it appends to `ran` in its directory when it runs. */
function source(name: string): string {
  const dir = path.join(tmp.dir, 'sources', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'extension.json'), JSON.stringify({ name, version: '2.0.0', exec: './run.sh' }));
  writeFileSync(path.join(dir, 'run.sh'), readFileSync(path.join(extDir(), 'run.sh'), 'utf8').replace('"name":"repo-ext"', `"name":"${name}"`));
  chmodSync(path.join(dir, 'run.sh'), 0o755);
  return dir;
}

const PROMPT = 'start repo-ext? [y] this once, [a] always in this project, [N] no:';

describe('zot-ext and project extensions', { timeout: 15_000 }, () => {
  it('not on a terminal: starts none without --trust and says how; --trust starts it; --no-project skips it', async () => {
    const doctor = await piped(['doctor']);
    expect(doctor.stdout).toContain(`! repo-ext (project) untrusted: not started: not trusted; pass --trust to start the project's extensions for this run (or answer "a" on a terminal to remember it for this project)\n    dir: ${extDir()}\n`);
    expect(doctor.stdout).toMatch(/^1 untrusted \(\d+ ms\)$/m);
    expect(doctor.code).toBe(0);
    const run = await piped(['run'], '/repo\n');
    expect(run.stderr).toContain('untrusted repo-ext (project): not started: not trusted; pass --trust');
    expect(ran()).toBe(0);

    const trusted = await piped(['doctor', '--trust', '--json']);
    expect(trusted.code).toBe(0);
    expect((JSON.parse(trusted.stdout) as { extensions: unknown[] }).extensions).toEqual([expect.objectContaining({ name: 'repo-ext', state: 'ready', trust: 'all' })]);
    expect(ran()).toBe(1);

    const skipped = await piped(['doctor', '--no-project', '--strict']);
    expect(skipped.stdout).toContain('! repo-ext (project) untrusted: not started: project extensions are skipped (--no-project)\n');
    expect(skipped.code).toBe(1);
    expect(ran()).toBe(1);
    const both = await piped(['doctor', '--trust', '--no-project']);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('zot-ext: error: --trust and --no-project contradict each other; give one\n');
  });

  it("on a terminal run asks before it starts one; 'a' is remembered for the project, also where nothing can ask", async () => {
    const t = onTerminal(['run']);
    try {
      await t.stderr.waitFor(PROMPT);
      expect(t.stderr.all()).toContain(`    runs: ${path.join(extDir(), 'run.sh')}`);
      expect(ran()).toBe(0);
      t.stdin.write('a\n');
      await t.stdout.waitFor('zot-ext>');
      expect(ran()).toBe(1);
      // (A real terminal echoes the answer and its newline.)
      expect(t.stderr.all().join('\n')).toContain('loaded repo-ext 1.0.0 (project, always allowed in this project): /repo');
      t.stdin.write(':quit\r');
      expect(await t.exit).toBe(0);
    } finally {
      await t.finish();
    }
    const later = await piped(['doctor']);
    expect(later.stdout).toMatch(/^✓ repo-ext 1\.0\.0 \(project\) ready in \d+ ms\n(.*\n)*?    trust: always allowed in this project\n/m);
    expect(ran()).toBe(2);
  });

  it('install --project records the extension as trusted ("always") for the project; a change to its files asks again (issue 32 follow-up)', async () => {
    const installed = await piped(['install', '--project', source('picked')]);
    const target = path.join(project(), '.zot', 'extensions', 'picked');
    expect(installed.stdout).toBe(`installed picked 2.0.0 (project) at ${target}; trusted in this project ("always", until its files change)\n`);
    const store = JSON.parse(readFileSync(path.join(home(), 'trust.json'), 'utf8')) as { projects: Record<string, { extensions: Record<string, { hash: string; dir: string }> }> };
    expect(store.projects[realpathSync(project())]!.extensions.picked).toMatchObject({ hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), dir: realpathSync(target) });

    // Off a terminal, only a stored 'always' starts a project extension: the installed one starts.
    const doctor = await piped(['doctor', '--json']);
    const trustOf = (out: string) => Object.fromEntries((JSON.parse(out) as { extensions: { name: string; state: string; trust: string }[] }).extensions.map((e) => [e.name, [e.state, e.trust]]));
    expect(trustOf(doctor.stdout)).toEqual({ picked: ['ready', 'always'], 'repo-ext': ['failed', 'denied'] });

    writeFileSync(path.join(target, 'run.sh'), `${readFileSync(path.join(target, 'run.sh'), 'utf8')}\n# edited\n`);
    expect(trustOf((await piped(['doctor', '--json'])).stdout).picked).toEqual(['failed', 'denied']);
  });

  it('a global extension named like an untrusted project one runs; doctor lists the project one as untrusted (issue 32 follow-up)', async () => {
    expect((await piped(['install', source('repo-ext')])).code).toBe(0);
    const doctor = await piped(['doctor']);
    expect(doctor.stdout).toMatch(/^✓ repo-ext 1\.0\.0 \(global\) ready in \d+ ms$/m);
    expect(doctor.stdout).toContain(`! repo-ext (project) untrusted: not started (the global one of its name runs instead): not trusted; pass --trust to start the project's extensions for this run (or answer "a" on a terminal to remember it for this project)\n    dir: ${realpathSync(extDir())}\n`);
    expect(doctor.stdout).toMatch(/^1 ready, 1 untrusted \(\d+ ms\)$/m);
    expect(doctor.code).toBe(0);
    const json = JSON.parse((await piped(['doctor', '--json'])).stdout) as { extensions: { name: string; source: string; state: string; trust: string; error: { code: string } | null }[] };
    expect(json.extensions.map((e) => [e.name, e.source, e.state, e.trust, e.error?.code ?? null])).toEqual([
      ['repo-ext', 'global', 'ready', 'exempt', null],
      ['repo-ext', 'project', 'failed', 'denied', 'UNTRUSTED'],
    ]);
    expect(ran()).toBe(0);
    const trusted = await piped(['doctor', '--trust']);
    expect(trusted.stdout).toMatch(/^✓ repo-ext 1\.0\.0 \(project\) ready in \d+ ms$/m);
    expect(trusted.stdout).toMatch(/^1 ready, 1 shadowed \(\d+ ms\)$/m);
    expect(ran()).toBe(1);
  });

  it("on a terminal doctor starts nothing of it on 'n'", async () => {
    const t = onTerminal(['doctor']);
    try {
      await t.stderr.waitFor(PROMPT);
      t.stdin.write('n\n');
      expect(await t.exit).toBe(0);
      expect(t.stdout.all()).toContain('! repo-ext (project) untrusted: not started: not trusted; pass --trust to start the project\'s extensions for this run (or answer "a" on a terminal to remember it for this project)');
      expect(ran()).toBe(0);
    } finally {
      await t.finish();
    }
  });
});
