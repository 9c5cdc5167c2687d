// A remote extension end to end through the public API: a url manifest (and an explicit URL), the
// SDK kitchen speaking over a real WebSocket on 127.0.0.1, headers with env:NAME, in-band shutdown.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKitchen } from '../../fixtures/sdk/kitchen-sdk/extension.js';
import { constructionError, hostKit, textOf } from '../helpers/host.js';
import { waitUntil } from '../helpers/wait.js';
import { closedPort, serveExtension, startWsPeer, type WsPeer } from '../helpers/ws-peer.js';

const TEST_MS = 15_000;
const kit = hostKit();
let peers: WsPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.map((p) => p.close()));
  peers = [];
});

async function peer(options: Parameters<typeof startWsPeer>[0]): Promise<WsPeer> {
  const p = await startWsPeer(options);
  peers.push(p);
  return p;
}

let dirs = 0;
/** An extension directory holding only a url manifest. */
function urlManifest(manifest: Record<string, unknown>): string {
  const dir = path.join(kit.dir, `remote-${dirs++}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'extension.json'), JSON.stringify(manifest));
  return dir;
}

describe('a url manifest', () => {
  it('works as over stdio: commands, tools, events, an intercept, a panel, a note', { timeout: TEST_MS }, async () => {
    const server = await peer({ onConnection: serveExtension(createKitchen) });
    const dir = urlManifest({ name: 'kitchen-sdk', url: server.url });
    const { host, report, rec } = await kit.start({ explicit: [dir] });
    expect(report.failed).toEqual([]);
    expect(report.loaded).toMatchObject([{ name: 'kitchen-sdk', pid: undefined }]);
    const [info] = host.extensions();
    expect(info).toMatchObject({ name: 'kitchen-sdk', state: 'ready', url: server.url, pid: undefined, readyVia: 'ready' });

    expect(await host.runCommand('/ask why')).toMatchObject({ handled: true, action: 'prompt', text: 'Q: why' });
    expect(textOf(await host.callTool('echo', { a: 1 }))).toBe('{"a":1}');
    expect(textOf(await host.callTool('add', { a: 2, b: 3 }))).toBe('5');
    // Longer than one write chunk of the connection (64 Ki characters): one message all the same.
    const long = 'y'.repeat(200_000);
    expect(textOf(await host.callTool('echo', { long }))).toBe(JSON.stringify({ long }));
    expect(host.emit({ event: 'custom_thing', n: 1 })).toBe(1);
    await rec.waitFor('notify', (n) => n.message.startsWith('event ') && n.message.includes('custom_thing'));
    expect(await host.intercepts.toolCall({ toolId: 't1', toolName: 'bash', args: { command: 'rm -rf /' } })).toMatchObject({ block: true });
    expect(await host.runCommand('/panel')).toMatchObject({ handled: true, action: 'open_panel' });
    await host.runCommand('/bg remote');
    await rec.waitFor('notify', (n) => n.message === 'working: remote');
    await rec.waitFor('submit', (s) => s.text === 'remote');

    const connection = await server.connection();
    await host.stop();
    // In-band: the goodbye went over the socket, then the host closed it normally.
    expect(connection.frames.some((f) => f.type === 'shutdown')).toBe(true);
    expect((await connection.closed).code).toBe(1000);
    const log = () => readFileSync(info!.logPath, 'utf8');
    expect(log()).toContain(`connect kitchen-sdk: ${server.url}`);
    await waitUntil('the close in the log', () => /connection closed: code 1000/.test(log()));
  });

  it('sends headers, env:NAME replaced by the variable, never logged', { timeout: TEST_MS }, async () => {
    const token = 'Bearer s3cret-remote-token';
    const server = await peer({ authorization: token, onConnection: serveExtension(createKitchen) });
    const dir = urlManifest({ name: 'kitchen-sdk', url: server.url, headers: { Authorization: 'env:ZOT_TEST_REMOTE_AUTH', 'X-Team': 'blue' } });
    const { host, report } = await kit.start({ explicit: [dir], env: { ...process.env, ZOT_TEST_REMOTE_AUTH: token } });
    expect(report.failed).toEqual([]);
    const connection = await server.connection();
    expect(connection.headers).toMatchObject({ authorization: token, 'x-team': 'blue' });
    const logPath = host.extensions()[0]!.logPath;
    await host.stop();
    expect(readFileSync(logPath, 'utf8')).not.toContain('s3cret');
  });

  it("a header secret never appears in diagnostics, 'diagnostic' events, warnings or the log, not even a piece of it at a cut", { timeout: TEST_MS }, async () => {
    const token = 'Bearer s3cret-remote-token-0123456789';
    const server = await peer({ onConnection: (c) => void c.hello('leaky', [{ type: 'ready' }]) });
    const dir = urlManifest({ name: 'leaky', url: server.url, headers: { Authorization: 'env:ZOT_TEST_REMOTE_AUTH' } });
    const { host, report, rec } = await kit.start({ explicit: [dir], env: { ...process.env, ZOT_TEST_REMOTE_AUTH: token } });
    expect(report.failed).toEqual([]);
    const events: string[] = [];
    host.on('diagnostic', (d) => events.push(d.message));
    const connection = await server.connection();
    // The quote of a bad line is cut at 120 characters: here inside the secret.
    connection.send(`${'x'.repeat(105)}${token}`);
    connection.send({ type: 'mystery', echo: token });
    connection.send({ type: 'notify', level: `level-${token}`, message: 'bad level' });
    // Six NOT_JSON lines: the fifth is the last in full, the sixth goes into the summary's quote.
    for (let i = 0; i < 6; i++) connection.send(`${'y'.repeat(150 + i)}${token}`);
    connection.send({ type: 'notify', level: 'info', message: 'after the bad lines' });
    await rec.waitFor('notify', (n) => n.message === 'after the bad lines');
    const logPath = host.extensions()[0]!.logPath;
    await host.stop();
    const shown = [JSON.stringify(host.diagnostics()), JSON.stringify(events), JSON.stringify(rec.of('warning')), readFileSync(logPath, 'utf8')];
    expect(host.diagnostics().map((d) => d.code)).toEqual(expect.arrayContaining(['NOT_JSON', 'UNKNOWN_TYPE', 'UNKNOWN_LEVEL']));
    expect(events.length).toBeGreaterThanOrEqual(7);
    // Not the secret, nor any 8 characters of it.
    for (const text of shown) for (let at = 0; at + 8 <= token.length; at++) expect(text).not.toContain(token.slice(at, at + 8));
    expect(shown[0]).toContain('***');
  });

  it('credentials in a URL are masked wherever it is shown: searched, extensions(), diagnostics, warnings, errors, the log', { timeout: TEST_MS }, async () => {
    const server = await peer({ onConnection: serveExtension(createKitchen) });
    const withCredentials = server.url.replace('ws://', 'ws://alice:pw-s3cret@');
    const unreachable = `ws://bob:pw-s3cret@127.0.0.1:${await closedPort()}/gone`;
    const { host, report, rec } = await kit.start({ explicit: [withCredentials, unreachable] });
    expect(report.loaded).toHaveLength(1);
    expect(report.failed).toHaveLength(1);
    expect(report.searched).toEqual([server.url.replace('ws://', 'ws://***:***@'), unreachable.replace('bob:pw-s3cret', '***:***')]);
    const logs = host.extensions().map((e) => e.logPath);
    await host.stop();
    const shown = [JSON.stringify(report), JSON.stringify(host.extensions()), JSON.stringify(host.diagnostics()), JSON.stringify(rec.of('warning')), ...logs.map((l) => readFileSync(l, 'utf8'))];
    for (const text of shown) {
      expect(text).not.toContain('pw-s3cret');
      expect(text).not.toMatch(/alice|bob/);
    }
  });

  it("env:NAME headers obey the env policy: under 'minimal' only what envAllow allows (or envByExtension sets) is sent", { timeout: TEST_MS }, async () => {
    const server = await peer({ onConnection: (c) => void c.hello('exporter', [{ type: 'ready' }]) });
    const dir = urlManifest({ name: 'exporter', url: server.url, headers: { 'X-Key': 'env:ZOT_TEST_HOST_API_KEY' } });
    const saved = process.env.ZOT_TEST_HOST_API_KEY;
    process.env.ZOT_TEST_HOST_API_KEY = 'sk-host-key-not-for-remotes';
    try {
      const refused = await kit.start({ explicit: [dir], env: 'minimal', envAllow: [] });
      expect(refused.report.failed).toHaveLength(1);
      expect(refused.report.failed[0]!.error).toMatchObject({ code: 'SPAWN_FAILED', extension: 'exporter' });
      expect(refused.report.failed[0]!.error.message).toContain('header X-Key is env:ZOT_TEST_HOST_API_KEY');
      const missing = refused.host.diagnostics().find((d) => d.code === 'ENV_MISSING');
      expect(missing?.message).toBe("exporter: header X-Key is env:ZOT_TEST_HOST_API_KEY, not passed: env is 'minimal' and envAllow does not list it");
      expect(server.connections).toHaveLength(0);
      await refused.host.stop();

      const allowed = await kit.start({ explicit: [dir], env: 'minimal', envAllow: ['ZOT_TEST_HOST_*'] });
      expect(allowed.report.failed).toEqual([]);
      expect((await server.connection(0)).headers['x-key']).toBe('sk-host-key-not-for-remotes');
      await allowed.host.stop();

      const set = await kit.start({ explicit: [dir], env: 'minimal', envByExtension: { exporter: { ZOT_TEST_HOST_API_KEY: 'per-extension-value' } } });
      expect(set.report.failed).toEqual([]);
      expect((await server.connection(1)).headers['x-key']).toBe('per-extension-value');
      await set.host.stop();
    } finally {
      if (saved === undefined) delete process.env.ZOT_TEST_HOST_API_KEY;
      else process.env.ZOT_TEST_HOST_API_KEY = saved;
    }
  });

  it('a missing header variable fails the start with a diagnostic naming the extension and the variable', { timeout: TEST_MS }, async () => {
    const server = await peer({ onConnection: serveExtension(createKitchen) });
    const dir = urlManifest({ name: 'needs-auth', url: server.url, headers: { Authorization: 'env:ZOT_TEST_UNSET_VAR' } });
    const env = { ...process.env };
    delete env.ZOT_TEST_UNSET_VAR;
    const { host, report } = await kit.start({ explicit: [dir], env });
    expect(report.failed).toHaveLength(1);
    const { error, logPath } = report.failed[0]!;
    expect(error).toMatchObject({ code: 'SPAWN_FAILED', extension: 'needs-auth', logPath });
    expect(error.message).toContain('ZOT_TEST_UNSET_VAR is not set');
    expect(error.message).toContain(logPath);
    expect(server.connections).toHaveLength(0);
    await host.stop();
  });

  it('extensions() names the manifest headers and their variables, never a value; an explicit URL has none', { timeout: TEST_MS }, async () => {
    const server = await peer({ onConnection: serveExtension(createKitchen) });
    const dir = urlManifest({ name: 'kitchen-sdk', url: server.url, headers: { Authorization: 'env:ZOT_TEST_REMOTE_AUTH', 'X-Team': 's3cret-literal' } });
    const { host, report } = await kit.start({ explicit: [dir, server.url], env: { ...process.env, ZOT_TEST_REMOTE_AUTH: 'Bearer s3cret' } });
    expect(report.failed).toEqual([]);
    const [manifest, explicit] = host.extensions();
    expect(manifest!.headers).toEqual([
      { name: 'Authorization', variable: 'ZOT_TEST_REMOTE_AUTH' },
      { name: 'X-Team', variable: undefined },
    ]);
    expect(JSON.stringify(host.extensions())).not.toContain('s3cret');
    expect(explicit!.headers).toBeUndefined();
    await host.stop();
  });

  it('an explicit URL string is an extension named from the URL', { timeout: TEST_MS }, async () => {
    const server = await peer({ onConnection: serveExtension(createKitchen) });
    const { host, report } = await kit.start({ explicit: [server.url] });
    const name = `127.0.0.1-${server.port}-ext`;
    expect(report.loaded.map((l) => l.name)).toEqual([name]);
    expect(host.extensions()[0]).toMatchObject({ name, url: server.url, source: 'explicit' });
    // The kitchen says it is kitchen-sdk: the name from the URL stays, with a diagnostic.
    expect(host.diagnostics().map((d) => d.code)).toContain('HELLO_NAME_MISMATCH');
    expect(textOf(await host.callTool('echo', { b: 2 }))).toBe('{"b":2}');
    await host.stop();
  });
});

describe('the keepAlive option', () => {
  it.each([[{ intervalMs: 0 }], [{ timeoutMs: -1 }], [{ intervalMs: Infinity }], ['often']])('refuses %j with INVALID_OPTIONS', (keepAlive) => {
    const error = constructionError({ keepAlive });
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toContain('ExtensionHost option keepAlive must be { intervalMs?, timeoutMs? } of numbers of ms from 1 to');
  });
});
