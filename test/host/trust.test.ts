// Workspace trust (issue 32): a project extension (code that came with the repository) is not
// spawned until the `trust` option allows it; 'always' is stored per project and asked again when
// the manifest or the program changes; a denied one is in report.failed as UNTRUSTED.
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/errors.js';
import type { TrustDecision, TrustRequest } from '../../src/host/types.js';
import { MAX_TRUST_PROJECTS } from '../../src/host/trust.js';
import { fixture } from '../helpers/fixtures.js';
import { constructionError, hostKit } from '../helpers/host.js';

const kit = hostKit();
let projects = 0;

/** A sh extension that appends its pid to `<dir>/ran` when it runs: the proof it was spawned. */
const SCRIPT = (name: string, extra = '') => `#!/bin/sh
echo "$$" >> "$(dirname "$0")/ran"
${extra}
printf '%s\\n' '{"type":"hello","name":"${name}","version":"1.0.0","capabilities":[]}'
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in
    *'"hello_ack"'*) printf '%s\\n' '{"type":"ready"}' ;;
    *'"shutdown"'*) printf '%s\\n' '{"type":"shutdown_ack"}'; exit 0 ;;
  esac
done
`;

/** A fresh project with one extension `repo-ext` in `.zot/extensions`, and a home beside it. */
function project(manifest: Record<string, unknown> = {}) {
  const root = path.join(kit.dir, `p${++projects}`);
  const cwd = path.join(root, 'project');
  const dir = path.join(cwd, '.zot', 'extensions', 'repo-ext');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'extension.json'), JSON.stringify({ name: 'repo-ext', exec: './run.sh', ...manifest }));
  writeFileSync(path.join(dir, 'run.sh'), SCRIPT('repo-ext'));
  chmodSync(path.join(dir, 'run.sh'), 0o755);
  const home = path.join(root, 'home');
  const ran = () => (existsSync(path.join(dir, 'ran')) ? readFileSync(path.join(dir, 'ran'), 'utf8').trim().split('\n').length : 0);
  return { cwd: realpathSync(cwd), dir: realpathSync(dir), home, ran, store: path.join(home, 'trust.json') };
}

/** A trust callback that records each request (and what `ran()` said while it was asked). */
function asker(answer: TrustDecision | ((r: TrustRequest) => TrustDecision | Promise<TrustDecision>), ran?: () => number) {
  const requests: TrustRequest[] = [];
  const spawnedWhileAsked: number[] = [];
  const trust = (r: TrustRequest) => {
    requests.push(r);
    if (ran !== undefined) spawnedWhileAsked.push(ran());
    return typeof answer === 'function' ? answer(r) : answer;
  };
  return { trust, requests, spawnedWhileAsked };
}

describe('workspace trust', { timeout: 15_000 }, () => {
  it("spawns nothing of a project extension until the callback answers; 'once' holds across reload() and restart()", async () => {
    const p = project({ args: ['--flag'], permissions: ['commands'] });
    const ask = asker('once', p.ran);
    const { host, report } = await kit.start({ cwd: p.cwd, home: p.home, discover: true, trust: ask.trust });
    expect(ask.spawnedWhileAsked).toEqual([0]);
    expect(ask.requests).toHaveLength(1);
    const request = ask.requests[0]!;
    expect(request).toMatchObject({ name: 'repo-ext', dir: p.dir, source: 'project', project: p.cwd, exec: { command: path.join(p.dir, 'run.sh'), args: ['--flag'] }, permissions: ['commands'], changed: false });
    expect(request.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(request.signal.aborted).toBe(false);
    expect(report.loaded.map((l) => l.name)).toEqual(['repo-ext']);
    expect(p.ran()).toBe(1);
    expect(host.extensions()[0]).toMatchObject({ name: 'repo-ext', state: 'ready', trust: 'once' });
    // The same content: neither reload() nor restart() asks again.
    expect((await host.reload()).loaded.map((l) => l.name)).toEqual(['repo-ext']);
    expect((await host.restart('repo-ext')).state).toBe('ready');
    expect(ask.requests).toHaveLength(1);
    expect(p.ran()).toBe(3);
    expect(existsSync(p.store)).toBe(false);
  });

  it("stores 'always' per project: a new host does not ask; a changed program is asked again, and a deny is in the report", async () => {
    const p = project();
    const first = asker('always');
    const { host: a } = await kit.start({ cwd: p.cwd, home: p.home, discover: true, trust: first.trust });
    expect(a.extensions()[0]).toMatchObject({ state: 'ready', trust: 'always' });
    const stored = JSON.parse(readFileSync(p.store, 'utf8')) as { version: number; projects: Record<string, { extensions: Record<string, { hash: string; dir: string }> }> };
    expect(stored.version).toBe(1);
    expect(stored.projects[p.cwd]!.extensions['repo-ext']).toMatchObject({ hash: first.requests[0]!.hash, dir: p.dir });
    await a.stop();

    const never = asker(() => {
      throw new Error('asked again');
    });
    const { host: b, report: again } = await kit.start({ cwd: p.cwd, home: p.home, discover: true, trust: never.trust });
    expect(never.requests).toEqual([]);
    expect(again.loaded.map((l) => l.name)).toEqual(['repo-ext']);
    expect(b.extensions()[0]!.trust).toBe('always');
    expect(p.ran()).toBe(2);

    // The program changes under the running host: its restart asks again, and the deny stops it.
    writeFileSync(path.join(p.dir, 'run.sh'), SCRIPT('repo-ext', 'echo changed >&2'));
    const denying = asker('deny', p.ran);
    await b.stop();
    const { host: c, report } = await kit.start({ cwd: p.cwd, home: p.home, discover: true, trust: denying.trust });
    expect(denying.requests).toHaveLength(1);
    expect(denying.requests[0]).toMatchObject({ changed: true });
    expect(denying.requests[0]!.hash).not.toBe(first.requests[0]!.hash);
    expect(report.loaded).toEqual([]);
    expect(report.failed).toHaveLength(1);
    const failed = report.failed[0]!;
    expect(failed).toMatchObject({ name: 'repo-ext', source: 'project', logPath: undefined });
    expect(failed.error.code).toBe(ErrorCode.UNTRUSTED);
    expect(failed.error.message).toBe(`project extension repo-ext (${p.dir}) was not started: the trust callback answered 'deny'`);
    expect(c.extensions()[0]).toMatchObject({ state: 'failed', trust: 'denied', pid: undefined });
    expect(p.ran()).toBe(2);
    // A deny holds for the host's life: restart() does not spawn it either.
    await expect(c.restart('repo-ext')).rejects.toMatchObject({ code: ErrorCode.UNTRUSTED });
    expect(denying.requests).toHaveLength(1);
    expect(p.ran()).toBe(2);
    // The stored 'always' of the old content is kept (a deny is not stored).
    expect((JSON.parse(readFileSync(p.store, 'utf8')) as typeof stored).projects[p.cwd]!.extensions['repo-ext']!.hash).toBe(first.requests[0]!.hash);
  });

  it('restart() of an allowed extension re-checks its hash and asks again when the program changed', async () => {
    const p = project();
    const answers: TrustDecision[] = ['once', 'deny'];
    const ask = asker(() => answers.shift()!);
    const { host } = await kit.start({ cwd: p.cwd, home: p.home, discover: true, trust: ask.trust });
    expect(host.extensions()[0]!.state).toBe('ready');
    writeFileSync(path.join(p.dir, 'extension.json'), JSON.stringify({ name: 'repo-ext', exec: './run.sh', description: 'changed' }));
    await expect(host.restart('repo-ext')).rejects.toMatchObject({ code: ErrorCode.UNTRUSTED });
    expect(ask.requests.map((r) => r.changed)).toEqual([false, true]);
    expect(host.extensions()[0]).toMatchObject({ state: 'failed', trust: 'denied' });
    expect(p.ran()).toBe(1);
  });

  it('a callback that throws, rejects, answers nonsense or never answers is a deny with a diagnostic', async () => {
    type Callback = (r: TrustRequest) => TrustDecision | Promise<TrustDecision>;
    const cases: [Callback, string, RegExp][] = [
      [() => { throw new Error('no terminal'); }, 'CALLBACK_THREW', /the trust callback threw \(no terminal\)$/],
      [() => Promise.reject(new Error('gone')), 'CALLBACK_THREW', /the trust callback threw \(gone\)$/],
      [() => 'yes' as TrustDecision, 'TRUST_INVALID_ANSWER', /the trust callback answered "yes"$/],
      [(r) => new Promise<TrustDecision>((resolve) => r.signal.addEventListener('abort', () => resolve('once'))), 'TRUST_TIMEOUT', /no answer from the trust callback within 50 ms$/],
    ];
    for (const [trust, code, reason] of cases) {
      const p = project();
      const { host, report } = await kit.start({ cwd: p.cwd, home: p.home, discover: true, trust, timeouts: { trust: 50 } });
      expect(report.failed[0]!.error.code).toBe(ErrorCode.UNTRUSTED);
      expect(report.failed[0]!.error.message).toMatch(reason);
      expect(report.diagnostics.filter((d) => d.code === code)).toEqual([expect.objectContaining({ extension: 'repo-ext', severity: 'error' })]);
      expect(host.extensions()[0]!.trust).toBe('denied');
      expect(p.ran()).toBe(0);
      await host.stop();
    }
  });

  it("'none' starts no project extension; 'all' (the default) starts it unasked; explicit and global ones are exempt", async () => {
    const p = project();
    const global = path.join(p.home, 'extensions', 'hello-sh');
    cpSync(fixture('extensions/hello-sh'), global, { recursive: true });
    const { host, report } = await kit.start({ cwd: p.cwd, home: p.home, discover: true, trust: 'none', explicit: [fixture('extensions/weather')] });
    expect(report.failed.map((f) => [f.name, f.error.code, f.error.message])).toEqual([['repo-ext', 'UNTRUSTED', `project extension repo-ext (${p.dir}) was not started: the host's trust option is 'none'`]]);
    expect(Object.fromEntries(host.extensions().map((e) => [e.name, e.trust]))).toEqual({ weather: 'exempt', 'repo-ext': 'denied', 'hello-sh': 'exempt' });
    expect(p.ran()).toBe(0);
    await host.stop();
    const { host: open } = await kit.start({ cwd: p.cwd, home: p.home, discover: true });
    expect(Object.fromEntries(open.extensions().map((e) => [e.name, [e.state, e.trust]]))).toEqual({ 'repo-ext': ['ready', 'all'], 'hello-sh': ['ready', 'exempt'] });
    expect(p.ran()).toBe(1);
    expect(constructionError({ trust: 'some' }).message).toContain("ExtensionHost option trust must be 'all', 'none' or a function");
  });

  it('a project extension kept out by trust does not shadow the global one of its name: that one runs, the project one is UNTRUSTED (issue 32 follow-up)', async () => {
    const p = project();
    const globalDir = path.join(p.home, 'extensions', 'repo-ext');
    mkdirSync(globalDir, { recursive: true });
    writeFileSync(path.join(globalDir, 'extension.json'), JSON.stringify({ name: 'repo-ext', exec: './run.sh' }));
    writeFileSync(path.join(globalDir, 'run.sh'), SCRIPT('repo-ext'));
    chmodSync(path.join(globalDir, 'run.sh'), 0o755);
    const g = realpathSync(globalDir);
    const globalRan = () => (existsSync(path.join(g, 'ran')) ? readFileSync(path.join(g, 'ran'), 'utf8').trim().split('\n').length : 0);
    const shadowed = (r: { diagnostics: { code: string; message: string }[] }) => r.diagnostics.filter((d) => d.code === 'SHADOWED').map((d) => d.message);

    for (const trust of [asker('deny').trust, 'none' as const]) {
      const { host, report } = await kit.start({ cwd: p.cwd, home: p.home, discover: true, trust });
      expect(report.loaded.map((l) => [l.name, l.source])).toEqual([['repo-ext', 'global']]);
      expect(report.failed.map((f) => [f.name, f.source, f.error.code, f.logPath, f.path])).toEqual([['repo-ext', 'project', ErrorCode.UNTRUSTED, undefined, p.dir]]);
      expect(report.skipped).toEqual([]);
      expect(shadowed(report)).toEqual([`global extension "repo-ext" in ${g} is not shadowed: the project one of its name in ${p.dir} is untrusted (UNTRUSTED, not started), so the global one runs in its place; trust the project one to run it instead`]);
      expect(host.extensions().map((e) => [e.name, e.source, e.state, e.trust])).toEqual([['repo-ext', 'global', 'ready', 'exempt']]);
      await host.stop();
    }
    expect([p.ran(), globalRan()]).toEqual([0, 2]);

    // Trusted, the project one shadows the global one as before.
    const { host, report } = await kit.start({ cwd: p.cwd, home: p.home, discover: true, trust: asker('once').trust });
    expect(report.loaded.map((l) => [l.name, l.source])).toEqual([['repo-ext', 'project']]);
    expect(report.skipped).toEqual([{ name: 'repo-ext', dir: g, reason: 'shadowed' }]);
    expect(shadowed(report)[0]).toContain('is shadowed by the project one');
    expect(host.extensions()).toHaveLength(1);
    expect([p.ran(), globalRan()]).toEqual([1, 2]);
  });

  it('a remote project extension is asked about too (its headers could send variables to its URL); nothing connects on a deny', async () => {
    const p = project({ exec: undefined, url: 'ws://user:secret@127.0.0.1:9/ext', headers: { Authorization: 'env:HOME' } });
    const ask = asker('deny');
    const { host, report } = await kit.start({ cwd: p.cwd, home: p.home, discover: true, trust: ask.trust });
    expect(ask.requests[0]).toMatchObject({ name: 'repo-ext', exec: undefined, url: 'ws://***:***@127.0.0.1:9/ext' });
    expect(report.failed.map((f) => f.error.code)).toEqual([ErrorCode.UNTRUSTED]);
    expect(host.extensions()[0]).toMatchObject({ trust: 'denied', state: 'failed' });
  });

  it('stop() while the callback is asked dismisses the question and starts nothing', async () => {
    const p = project();
    let asked!: (r: TrustRequest) => void;
    const question = new Promise<TrustRequest>((resolve) => (asked = resolve));
    const { host } = kit.create({ cwd: p.cwd, home: p.home, discover: true, explicit: [fixture('extensions/hello-sh')], trust: (r) => (asked(r), new Promise<TrustDecision>(() => undefined)) });
    const states: string[] = [];
    host.on('extension:state', (c) => states.push(`${c.name}:${c.previous ?? '-'}->${c.state}`));
    const started = host.start();
    const request = await question;
    await host.stop();
    const report = await started;
    expect(request.signal.aborted).toBe(true);
    expect(report.loaded).toEqual([]);
    expect(report.failed.map((f) => f.error.message)).toEqual([`project extension repo-ext (${p.dir}) was not started: the host stopped before the trust callback answered`]);
    // The explicit one never started either (no `starting`, no spawn).
    expect(states).toEqual(['repo-ext:starting->failed', 'hello-sh:starting->stopped']);
    expect(p.ran()).toBe(0);
  });

  it('a corrupt store is read as empty with a diagnostic and left as it is', async () => {
    const p = project();
    mkdirSync(p.home, { recursive: true });
    writeFileSync(p.store, '{"version": 1, "projects": ');
    const ask = asker('always');
    const { host, report } = await kit.start({ cwd: p.cwd, home: p.home, discover: true, trust: ask.trust });
    expect(report.loaded.map((l) => l.name)).toEqual(['repo-ext']);
    expect(host.extensions()[0]!.trust).toBe('always');
    expect(report.diagnostics.filter((d) => d.code === 'TRUST_STORE_INVALID').map((d) => d.message)).toEqual([
      `the trust store ${p.store} is not valid JSON; it is left as it is and not written: decisions hold for this host only (fix or remove the file to store 'always' again)`,
    ]);
    expect(readFileSync(p.store, 'utf8')).toBe('{"version": 1, "projects": ');
  });

  it('keeps the store bounded and other projects as they were; a home inside the project stores nothing', async () => {
    const p = project();
    mkdirSync(p.home, { recursive: true });
    const projectsIn: Record<string, unknown> = {};
    for (let i = 0; i < MAX_TRUST_PROJECTS + 5; i++) projectsIn[`/old/${i}`] = { extensions: { x: { hash: 'sha256:0', dir: '/x', at: new Date(Date.UTC(2020, 0, 1, 0, 0, i)).toISOString() } }, note: i };
    writeFileSync(p.store, JSON.stringify({ version: 1, projects: projectsIn }));
    const { host } = await kit.start({ cwd: p.cwd, home: p.home, discover: true, trust: () => 'always' });
    const kept = (JSON.parse(readFileSync(p.store, 'utf8')) as { projects: Record<string, { note?: number }> }).projects;
    expect(Object.keys(kept)).toHaveLength(MAX_TRUST_PROJECTS);
    expect(kept[p.cwd]).toBeDefined();
    // The least recently trusted went first; the rest are as they were.
    expect(kept['/old/5']).toBeUndefined();
    expect(kept['/old/6']!.note).toBe(6);
    await host.stop();

    const inside = project();
    const home = path.join(inside.cwd, '.zot');
    const { report } = await kit.start({ cwd: inside.cwd, home, discover: true, trust: () => 'always' });
    expect(report.loaded.map((l) => l.name)).toEqual(['repo-ext']);
    expect(report.diagnostics.map((d) => d.code)).toContain('TRUST_STORE_IN_PROJECT');
    expect(existsSync(path.join(home, 'trust.json'))).toBe(false);
  });
});

describe('workspace trust: what the hash covers, and when it is taken (hardening)', { timeout: 15_000 }, () => {
  /** The request of one host start that denies (nothing is spawned). */
  async function requestOf(p: ReturnType<typeof project>): Promise<TrustRequest> {
    const ask = asker('deny');
    const { host } = await kit.start({ cwd: p.cwd, home: p.home, discover: true, trust: ask.trust });
    await host.stop();
    expect(ask.requests).toHaveLength(1);
    return ask.requests[0]!;
  }

  it('an MCP stdio extension shows its command and args, and its server file (in or out of its directory, under the project) is hashed', async () => {
    const p = project({ exec: undefined, mcp: { command: 'node', args: ['server.mjs', '../../../tools/helper.mjs', '--verbose'] } });
    writeFileSync(path.join(p.dir, 'server.mjs'), '// v1\n');
    mkdirSync(path.join(p.cwd, 'tools'));
    writeFileSync(path.join(p.cwd, 'tools', 'helper.mjs'), '// v1\n');
    const first = await requestOf(p);
    expect(first.exec).toEqual({ command: 'node', args: ['server.mjs', '../../../tools/helper.mjs', '--verbose'] });
    expect(await requestOf(p)).toMatchObject({ hash: first.hash });
    writeFileSync(path.join(p.dir, 'server.mjs'), '// v2\n');
    const second = await requestOf(p);
    expect(second.hash).not.toBe(first.hash);
    writeFileSync(path.join(p.cwd, 'tools', 'helper.mjs'), '// v2\n');
    expect((await requestOf(p)).hash).not.toBe(second.hash);
  });

  it('an arg file elsewhere in the project is hashed for an exec extension too', async () => {
    const p = project({ args: ['../../../lib/conf.json'] });
    mkdirSync(path.join(p.cwd, 'lib'));
    writeFileSync(path.join(p.cwd, 'lib', 'conf.json'), '{}');
    const first = await requestOf(p);
    writeFileSync(path.join(p.cwd, 'lib', 'conf.json'), '{"evil":true}');
    expect((await requestOf(p)).hash).not.toBe(first.hash);
  });

  it('an MCP HTTP extension shows its URL with the password masked', async () => {
    const p = project({ exec: undefined, mcp: { url: 'http://user:secret@127.0.0.1:9/mcp' } });
    expect(await requestOf(p)).toMatchObject({ exec: undefined, url: 'http://***:***@127.0.0.1:9/mcp' });
  });

  it('a program that changes while the question is asked is asked about again before the spawn; changed again, it is denied', async () => {
    const p = project();
    const script = path.join(p.dir, 'run.sh');
    let edits = 1;
    const ask = asker((r) => {
      if (edits-- > 0) writeFileSync(script, SCRIPT('repo-ext', `echo edited-${r.hash.slice(7, 15)} >&2`));
      return 'once';
    }, p.ran);
    const { host } = await kit.start({ cwd: p.cwd, home: p.home, discover: true, trust: ask.trust });
    expect(ask.requests.map((r) => r.changed)).toEqual([false, true]);
    expect(ask.requests[1]!.hash).not.toBe(ask.requests[0]!.hash);
    expect(host.extensions()[0]).toMatchObject({ state: 'ready', trust: 'once' });
    expect(p.ran()).toBe(1);
    await host.stop();

    const p2 = project();
    let n = 0;
    const always = asker(() => {
      writeFileSync(path.join(p2.dir, 'run.sh'), SCRIPT('repo-ext', `echo edit-${++n} >&2`));
      return 'always';
    }, p2.ran);
    const { host: h2, report } = await kit.start({ cwd: p2.cwd, home: p2.home, discover: true, trust: always.trust });
    expect(always.requests).toHaveLength(2);
    expect(report.failed.map((f) => f.error.message)).toEqual([`project extension repo-ext (${p2.dir}) was not started: its files changed while the trust question was asked`]);
    expect(h2.extensions()[0]).toMatchObject({ state: 'failed', trust: 'denied' });
    expect(p2.ran()).toBe(0);
  });
});
