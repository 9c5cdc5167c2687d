// What `zot-ext serve` lets in: a web page (a request with an Origin) only when allowed, no listening
// off loopback without a token unless --insecure, and unfinished upgrades bounded by
// --max-connections and a handshake deadline. Real sockets on 127.0.0.1.
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/fixtures.js';
import { withDeadline, WAIT_MS } from '../helpers/wait.js';
import { killRunningClis, runCli, useCliSandbox } from './cli.js';
import { closeClients, FrameClient, pidOf, startServe } from './serve-client.js';

const KITCHEN = path.join(FIXTURES, 'extensions', 'kitchen');
const sandbox = useCliSandbox('zot-cli-serve-');

const raw = new Set<Socket>();
afterEach(async () => {
  for (const s of raw) s.destroy();
  raw.clear();
  await closeClients();
  await killRunningClis();
});

/** A TCP connection that starts an upgrade request and never finishes it; resolves once connected. */
function slowHandshake(url: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  raw.add(socket);
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return withDeadline(`TCP connect to ${url}`, WAIT_MS, (resolve) => {
    socket.once('connect', () => {
      socket.write(`GET / HTTP/1.1\r\nHost: ${hostname}\r\nUpgrade: websocket\r\n`);
      resolve({ socket, closed });
    });
    return () => undefined;
  });
}

const closedWithin = (what: string, closed: Promise<void>, ms = WAIT_MS) =>
  withDeadline(what, ms, (resolve) => {
    void closed.then(() => resolve(undefined));
    return () => undefined;
  });

describe('zot-ext serve: Origin', () => {
  it('refuses an upgrade that carries an Origin (a web page) with 403 before any process starts', { timeout: 15_000 }, async () => {
    const { cli, url } = await startServe(KITCHEN);
    await expect(FrameClient.connect(url, { origin: 'http://evil.example' })).rejects.toMatchObject({ status: 403 });
    await expect(FrameClient.connect(url, { origin: 'null' })).rejects.toMatchObject({ status: 403 });
    await cli.waitFor('refused', 'stderr');
    expect(cli.stderr).toMatch(/zot-ext serve: refused 127\.0\.0\.1:\d+: 403 origin http:\/\/evil\.example is not allowed \(--allow-origin\)\n/);
    expect(cli.stderr).not.toContain('connect from');
    // A client that is not a browser sends no Origin.
    const client = await FrameClient.connect(url);
    expect(await pidOf(cli, 1)).toBeGreaterThan(0);
    await client.handshake();
  });

  it('lets in the origins given with --allow-origin (repeatable), and no other', { timeout: 15_000 }, async () => {
    const { cli, url } = await startServe(KITCHEN, ['--allow-origin', 'https://app.example', '--allow-origin', 'http://localhost:3000']);
    const a = await FrameClient.connect(url, { origin: 'https://app.example' });
    await pidOf(cli, 1);
    const b = await FrameClient.connect(url, { origin: 'http://localhost:3000' });
    await pidOf(cli, 2);
    await Promise.all([a.handshake(), b.handshake()]);
    await expect(FrameClient.connect(url, { origin: 'https://app.example.evil' })).rejects.toMatchObject({ status: 403 });
    await expect(FrameClient.connect(url, { origin: 'http://localhost:3001' })).rejects.toMatchObject({ status: 403 });
  });

  it('refuses an --allow-origin that is not an origin', { timeout: 15_000 }, async () => {
    const r = await runCli(['serve', KITCHEN, '--allow-origin', 'https://app.example/path']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('zot-ext: error: --allow-origin "https://app.example/path" is not an origin; give scheme://host[:port], e.g. https://app.example or http://localhost:3000\n');
  });
});

describe('zot-ext serve: what it serves', () => {
  it('refuses a remote (url) manifest with a clear error: there is no process to serve', { timeout: 15_000 }, async () => {
    const dir = path.join(sandbox.dir, 'remote');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'extension.json'), JSON.stringify({ name: 'remote', url: 'ws://127.0.0.1:9/ext' }));
    const r = await runCli(['serve', dir, '--home', sandbox.home]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`zot-ext: error: ${path.join(dir, 'extension.json')}: remote is a remote extension ("url": ws://127.0.0.1:9/ext), already served over WebSocket; serve the directory of a stdio extension (one with "exec")\n`);
  });
});

describe('zot-ext serve: off loopback', () => {
  it('refuses to listen off loopback without --token-env unless --insecure', { timeout: 15_000 }, async () => {
    for (const listen of ['0.0.0.0:0', '[::]:0', '192.0.2.1:0']) {
      const r = await runCli(['serve', KITCHEN, '--listen', listen]);
      expect(r.code, listen).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`--listen ${listen} is not a loopback address: anyone who can reach it could start the extension; add --token-env VAR`);
      expect(r.stderr).toContain('or --insecure');
    }
  });

  it('with --insecure goes on, warning on stderr (192.0.2.1 is never local: the listen itself fails)', { timeout: 15_000 }, async () => {
    const r = await runCli(['serve', KITCHEN, '--listen', '192.0.2.1:0', '--insecure']);
    expect(r.stderr).toContain('zot-ext serve: warning: serving on 192.0.2.1 without --token-env (--insecure): anyone who can reach it can start the extension\n');
    expect(r.stderr).toContain('cannot listen on ws://192.0.2.1:0');
    expect(r.code).toBe(1);
  });
});

describe('zot-ext serve: unfinished upgrades', () => {
  it('count against --max-connections: the oldest unfinished one makes room for a new connection', { timeout: 20_000 }, async () => {
    const { cli, url } = await startServe(KITCHEN, ['--max-connections', '2', '--handshake-timeout', '60000']);
    const slow = [];
    for (let i = 0; i < 5; i++) slow.push(await slowHandshake(url));
    // At most two unfinished at once: the three oldest were dropped as the others came (long before the deadline).
    for (const [i, s] of slow.slice(0, 3).entries()) await closedWithin(`slow handshake ${i} to be dropped`, s.closed);
    // A real client still gets in, and the extension answers.
    const client = await FrameClient.connect(url);
    await pidOf(cli, 1);
    await client.handshake();
    expect(cli.stderr).toContain('dropped an unfinished handshake from 127.0.0.1:');
  });

  it('time out after --handshake-timeout', { timeout: 15_000 }, async () => {
    const { cli, url } = await startServe(KITCHEN, ['--handshake-timeout', '200']);
    const s = await slowHandshake(url);
    await closedWithin('the slow handshake to time out', s.closed);
    await cli.waitFor(/dropped 127\.0\.0\.1:\d+: no WebSocket upgrade within 200 ms/, 'stderr');
    const client = await FrameClient.connect(url);
    await client.handshake();
  });

  it('a slow handshake does not lock out real clients when every slot is taken by one', { timeout: 20_000 }, async () => {
    const { cli, url } = await startServe(KITCHEN, ['--max-connections', '1', '--handshake-timeout', '60000']);
    await slowHandshake(url);
    const client = await FrameClient.connect(url);
    await pidOf(cli, 1);
    await client.handshake();
    // The slot is the client's now: one more is refused with 503, as before.
    await expect(FrameClient.connect(url)).rejects.toMatchObject({ status: 503 });
  });
});
