// The OS sandbox (issue 32), with real bubblewrap: three extensions (TypeScript SDK, Python SDK,
// plain sh) try every escape inside `sandbox: 'required'` and are refused by the OS, while their
// normal work (a tool, a notify, their data dir) goes on. Skipped, loudly, only where this machine
// cannot make user namespaces; with ZOT_EXT_REQUIRE_SANDBOX=1 (CI) that is a failure instead.
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../src/transport/sandbox.js';
import { fixture, ROOT } from '../helpers/fixtures.js';
import { hostKit, textOf } from '../helpers/host.js';
import { pollUntil } from '../helpers/wait.js';

const backend = await detectSandbox();
const available = backend.kind === 'bwrap';
const required = process.env.ZOT_EXT_REQUIRE_SANDBOX === '1';
if (!available && !required) {
  console.warn(`\n!!! SKIPPING the sandbox tests: this machine cannot run bubblewrap sandboxes (${backend.reason}).\n!!! Set ZOT_EXT_REQUIRE_SANDBOX=1 to make this a failure.\n`);
}

const kit = hostKit();

/** Live processes whose command line is exactly `sleep <token>` (the probes' daemons). */
async function daemons(token: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if ((await readFile(`/proc/${entry}/cmdline`, 'utf8')) !== `sleep\0${token}\0`) continue;
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z' && state !== 'X') found.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return found;
}

describe('sandbox backend', () => {
  it.runIf(process.platform === 'linux')('bubblewrap works on this machine (required on CI: ZOT_EXT_REQUIRE_SANDBOX=1)', () => {
    if (required) expect(backend, 'ZOT_EXT_REQUIRE_SANDBOX=1 but no sandbox here').toMatchObject({ kind: 'bwrap' });
  });
});

describe.skipIf(!available)("sandbox: 'required' with bubblewrap", () => {
  let server: Server;
  let port = 0;
  let accepted = 0;
  const fakeHome = path.join(kit.dir, 'fake-home');
  // Not under /tmp: the sandbox's /tmp is a private tmpfs, where any write "works" and stays inside.
  const outside = path.join(ROOT, `.sandbox-outside-${process.pid}.txt`);
  // A directory of the real home: the project's own cache dir there (node-lts keeps Node binaries in
  // it). When the tests run on such a Node, its install prefix under $HOME is mounted read-only (the
  // interpreter must run), so $HOME itself exists in the sandbox; this sibling must not.
  const realHome = path.join(homedir(), '.cache', 'zot-extension-host', `sandbox-probe-${process.pid}`);

  beforeAll(async () => {
    mkdirSync(realHome, { recursive: true });
    writeFileSync(path.join(realHome, 'secret.txt'), 'real home');
    mkdirSync(path.join(fakeHome, '.ssh'), { recursive: true });
    writeFileSync(path.join(fakeHome, '.ssh', 'id_ed25519'), 'FAKE PRIVATE KEY');
    writeFileSync(path.join(fakeHome, 'notes.txt'), 'private notes');
    server = createServer((socket) => {
      accepted++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    rmSync(realHome, { recursive: true, force: true });
    rmSync(outside, { force: true });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each(['probe-ts', 'probe-py', 'probe-sh'])('%s: every escape is refused by the OS; its tool, notify and data dir work', { timeout: 20_000 }, async (name) => {
    const dir = fixture(`sandbox/${name}`);
    const token = `${900 + Math.floor(Math.random() * 99)}.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    // The host's environment holds a secret the extension must not read through /proc.
    const { host, report, rec } = await kit.start({
      explicit: [dir],
      env: { ...process.env, HOME: fakeHome, SANDBOX_TEST_SECRET: 'sk-host-only' },
      sandbox: { mode: 'required', network: 'none', readable: [ROOT] },
      timeouts: { hello: 10_000 },
    });
    expect(report.failed).toEqual([]);
    // Its directory (its code) is read-only; its data dir is <home>/data/<name> (hello_ack's data_dir), made 0700.
    const dataDir = path.join(kit.dir, 'home', 'data', name);
    expect(host.extensions()[0]!.sandbox).toEqual({ mode: 'required', active: true, backend: 'bwrap', network: 'none', writable: [dataDir] });
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const dataFile = path.join(dataDir, `probe-${token}.txt`);
    try {
      const result = await host.callTool('probe', { home: fakeHome, realHome, hostPid: String(process.pid), port: String(port), outside, token });
      const probed = JSON.parse(textOf(result)) as Record<string, string>;
      expect(probed).toMatchObject({ dataWrite: 'ok', tmpWrite: 'ok', daemon: 'started' });
      if (name === 'probe-sh') expect(probed.codeWrite, 'its own code is read-only').toBe('denied');
      for (const escape of ['ssh', 'homeFile', 'realHome', 'writeOutside', 'procEnviron', 'loopback', 'external']) {
        expect(probed[escape], `${name}: ${escape}`).toMatch(/^denied/);
      }
      // The network is refused before anything leaves: no route at all (not a timeout).
      if (name !== 'probe-sh') expect(probed.external).toBe('denied: ENETUNREACH');
      expect(accepted).toBe(0);
      expect(existsSync(outside)).toBe(false);
      expect(readFileSync(dataFile, 'utf8')).toBe('mine');
      await rec.waitFor('notify', (note) => note.message === `${name} probed`);
      expect(await daemons(token)).toHaveLength(1);
      await host.stop();
      // The daemon (setsid, outside the extension's process group) died with the sandbox.
      expect(await pollUntil(async () => (await daemons(token)).length === 0, 5000, 20)).toBe(true);
    } finally {
      await host.stop();
      rmSync(dataFile, { force: true });
    }
  });

  it("the control: the same probe without a sandbox reaches all of it (the probes do detect an escape)", { timeout: 20_000 }, async () => {
    const dir = fixture('sandbox/probe-sh');
    const token = `${900 + Math.floor(Math.random() * 99)}.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    const controlOutside = path.join(kit.dir, 'control-outside.txt');
    const { host } = await kit.start({ explicit: [dir], env: { ...process.env, HOME: fakeHome } });
    expect(host.extensions()[0]!.sandbox).toEqual({ mode: 'off', active: false, backend: 'none', network: 'all', writable: [] });
    try {
      const probed = JSON.parse(textOf(await host.callTool('probe', { home: fakeHome, realHome, hostPid: String(process.pid), port: String(port), outside: controlOutside, token }))) as Record<string, string>;
      expect(probed).toMatchObject({ ssh: 'ok', homeFile: 'ok', realHome: 'ok', writeOutside: 'ok', procEnviron: 'ok', loopback: 'ok', dataWrite: 'ok', codeWrite: 'ok' });
    } finally {
      await host.stop();
      rmSync(path.join(dir, `probe-${token}.txt`), { force: true });
    }
    // The host's own descendants shutdown ends the setsid daemon of an unsandboxed extension too.
    expect(await pollUntil(async () => (await daemons(token)).length === 0, 5000, 20)).toBe(true);
  });

  it("network 'all' shares the host's network: its loopback listener is reached", { timeout: 20_000 }, async () => {
    const before = accepted;
    const { host } = await kit.start({
      explicit: [fixture('sandbox/probe-sh')],
      sandbox: { mode: 'required', network: 'all' },
    });
    expect(host.extensions()[0]!.sandbox).toMatchObject({ active: true, network: 'all' });
    const token = `${900 + Math.floor(Math.random() * 99)}.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    try {
      const probed = JSON.parse(textOf(await host.callTool('probe', { home: '/nonexistent', realHome, hostPid: String(process.pid), port: String(port), outside, token }))) as Record<string, string>;
      expect(probed).toMatchObject({ loopback: 'ok', ssh: 'denied', realHome: 'denied', dataWrite: 'ok' });
      expect(accepted).toBe(before + 1);
    } finally {
      await host.stop();
    }
  });

  it("a grant through a symlink is refused (SANDBOX_GRANT_REFUSED naming the extension), not followed", { timeout: 20_000 }, async () => {
    // A cloned repository ships `out -> <home>`; the embedder grants `writable: ['./out']`.
    const project = path.join(kit.dir, 'project');
    mkdirSync(project, { recursive: true });
    symlinkSync(fakeHome, path.join(project, 'out'));
    const token = `${900 + Math.floor(Math.random() * 99)}.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    const { host, report } = await kit.start({ cwd: project, explicit: [fixture('sandbox/probe-sh')], sandbox: { mode: 'required', writable: ['./out'] } });
    expect(report.diagnostics).toContainEqual(expect.objectContaining({ code: 'SANDBOX_GRANT_REFUSED', severity: 'warning', extension: 'probe-sh', path: path.join(project, 'out') }));
    expect(host.extensions()[0]!.sandbox.writable).toEqual([path.join(kit.dir, 'home', 'data', 'probe-sh')]);
    try {
      const probed = JSON.parse(textOf(await host.callTool('probe', { home: path.join(project, 'out'), realHome, hostPid: String(process.pid), port: String(port), outside: path.join(project, 'out', 'written.txt'), token }))) as Record<string, string>;
      expect(probed).toMatchObject({ ssh: 'denied', writeOutside: 'denied' });
      expect(existsSync(path.join(fakeHome, 'written.txt'))).toBe(false);
    } finally {
      await host.stop();
    }
  });

  it('a data dir that cannot be made: SPAWN_FAILED naming the extension, the data dir and its log', { timeout: 20_000 }, async () => {
    const home = path.join(kit.dir, 'file-home');
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(home, 'data'), 'a file where the data dirs go');
    const { host, report } = await kit.start({ home, explicit: [fixture('sandbox/caller-sh')], sandbox: { mode: 'required' } });
    const failure = report.failed[0]!;
    expect(failure.error).toMatchObject({ code: 'SPAWN_FAILED', extension: 'caller-sh', message: expect.stringContaining(path.join(home, 'data', 'caller-sh')) });
    await host.stop();
    expect(readFileSync(failure.logPath!, 'utf8')).toContain('cannot prepare its sandbox');
  });

  it("a sandboxed extension cannot call_tool the agent's built-in tools (they run unsandboxed) unless granted call_tool explicitly", { timeout: 20_000 }, async () => {
    const ran: string[] = [];
    const answers: string[] = [];
    const options = {
      explicit: [fixture('sandbox/caller-sh')],
      builtinTools: ['bash'],
      callbacks: { callBuiltinTool: async ({ toolName }: { toolName: string }) => (ran.push(toolName), { content: [{ type: 'text' as const, text: 'ran unsandboxed' }] }) },
      frameTap: (entry: { direction: 'in' | 'out'; line: string }) => {
        if (entry.direction === 'out' && entry.line.includes('"id":"c-')) answers.push(entry.line);
      },
      sandbox: { mode: 'required' as const },
    };
    // The default permissions (everything, zot's behaviour) are not an explicit grant.
    const first = await kit.start(options);
    try {
      expect(textOf(await first.host.callTool('relay', { tool: 'bash' }))).toBe('relayed');
      expect(ran).toEqual([]);
      expect(answers).toHaveLength(1);
      expect(JSON.parse(answers[0]!)).toMatchObject({ type: 'tool_result', name: 'bash', is_error: true, content: [{ type: 'text', text: expect.stringContaining('built-in tools are not available to a sandboxed extension') }] });
    } finally {
      await first.host.stop();
    }
    const second = await kit.start({ ...options, permissions: { byExtension: { 'caller-sh': { tools: true, callTool: true } } } });
    try {
      expect(textOf(await second.host.callTool('relay', { tool: 'bash' }))).toBe('relayed');
      expect(ran).toEqual(['bash']);
      expect(JSON.parse(answers[1]!)).toMatchObject({ type: 'tool_result', name: 'bash', content: [{ type: 'text', text: 'ran unsandboxed' }] });
    } finally {
      await second.host.stop();
    }
  });
});

describe('sandbox: when it cannot be made, and where it does not apply', () => {
  const missing = path.join(kit.dir, 'no-such-dir', 'bwrap');

  it("'required' without a backend: the extension fails with SANDBOX_UNAVAILABLE naming it and its log", async () => {
    const { host, report } = await kit.start({ explicit: [fixture('extensions/hello-sh')], sandbox: { mode: 'required', bwrap: missing } });
    expect(report.loaded).toEqual([]);
    const failure = report.failed[0]!;
    expect(failure.error).toMatchObject({ code: 'SANDBOX_UNAVAILABLE', extension: 'hello-sh', logPath: failure.logPath });
    expect(failure.error.message).toContain(missing);
    expect(failure.error.message).toContain(failure.logPath!);
    expect(host.extensions()[0]!.sandbox).toMatchObject({ mode: 'required', active: false, backend: 'none' });
    await host.stop();
    expect(readFileSync(failure.logPath!, 'utf8')).toContain('sandbox is required but unavailable');
  });

  it("'auto' without a backend: a warning, and it runs unsandboxed", async () => {
    const { host, report, rec } = await kit.start({ explicit: [fixture('extensions/hello-sh')], sandbox: { mode: 'auto', bwrap: missing } });
    expect(report.loaded.map((l) => l.name)).toEqual(['hello-sh']);
    expect(report.diagnostics).toContainEqual(expect.objectContaining({ code: 'SANDBOX_UNAVAILABLE', severity: 'warning', extension: 'hello-sh' }));
    expect(host.extensions()[0]!.sandbox).toMatchObject({ mode: 'auto', active: false, backend: 'none', reason: expect.stringContaining(missing) });
    await rec.waitFor('notify', (note) => note.message === 'hello-sh ready');
    await host.stop();
  });

  it('a manifest asks for a stricter sandbox: the per-extension option is narrowed, never widened', async () => {
    const dir = path.join(kit.dir, 'strict');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'extension.json'), JSON.stringify({ ...JSON.parse(readFileSync(fixture('extensions/hello-sh/extension.json'), 'utf8')), exec: fixture('extensions/hello-sh/hello.sh'), sandbox: 'required' }));
    const { host, report } = await kit.start({ explicit: [dir], sandboxByExtension: { 'HELLO-SH': { mode: 'off', bwrap: missing } } });
    expect(report.failed[0]?.error.code).toBe('SANDBOX_UNAVAILABLE');
    await host.stop();
  });

  it('a remote extension: not applicable', async () => {
    const dir = path.join(kit.dir, 'remote');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'extension.json'), JSON.stringify({ name: 'far', url: 'ws://127.0.0.1:9/x' }));
    const { host } = kit.create({ explicit: [dir], sandbox: 'required', timeouts: { hello: 500 } });
    await host.start();
    expect(host.extensions()[0]!.sandbox).toEqual({ mode: 'required', active: false, backend: 'none', network: 'all', writable: [], reason: 'not applicable (remote)' });
    await host.stop();
  });
});
