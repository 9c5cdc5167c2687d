// `zot-ext inspect`'s server without a browser: the page and its WebSocket are refused without the
// token, with a foreign Origin and with a Host header that is not the server (DNS rebinding); the
// printed URL works; off loopback needs --token-env; Ctrl+C closes the port.
import { mkdirSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { fixture, tempDir } from '../helpers/fixtures.js';
import { CliProcess, runCli } from './cli.js';

interface Reply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function get(url: URL, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** The HTTP status the upgrade got (101 when it opened), and the first message when it opened. */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<{ status: number; first?: unknown }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, handshakeTimeout: 5000 });
    ws.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      res.resume();
      ws.terminate();
    });
    ws.once('message', (data) => {
      resolve({ status: 101, first: JSON.parse(String(data)) });
      ws.close();
    });
    ws.once('error', (err) => reject(err));
  });
}

describe('zot-ext inspect: the server', () => {
  let cli: CliProcess;
  let page: URL;
  let token: string;
  let tmp: { dir: string; cleanup: () => void };

  beforeAll(async () => {
    tmp = tempDir('zot-ext-inspect-server-');
    mkdirSync(path.join(tmp.dir, 'project'));
    cli = new CliProcess(['inspect', fixture('inspect/inspect-sh'), '--home', path.join(tmp.dir, 'home'), '--cwd', path.join(tmp.dir, 'project')], { timeoutMs: 20_000 });
    await cli.waitFor(/^inspector http/m);
    page = new URL(/^inspector (\S+)$/m.exec(cli.stdout)![1]!);
    token = page.searchParams.get('token')!;
    expect(page.hostname).toBe('127.0.0.1');
    expect(token.length).toBeGreaterThanOrEqual(32);
  }, 15_000);

  afterAll(async () => {
    cli?.signal('SIGINT');
    const result = await cli?.exited;
    expect(result?.code).toBe(0);
    await expect(get(page)).rejects.toThrow(/ECONNREFUSED/);
    tmp?.cleanup();
  });

  const origin = () => `http://${page.host}`;
  const bare = () => new URL(`http://${page.host}/`);
  const ws = (withToken: boolean) => `ws://${page.host}/ws${withToken ? `?token=${token}` : ''}`;

  it('serves the page at the printed URL, with a strict CSP and the token in the page, never in a cookie', async () => {
    const reply = await get(page);
    expect(reply.status).toBe(200);
    expect(reply.body).toContain(`<script src="inspector.js?token=${token}">`);
    expect(reply.body).toContain(`<link rel="stylesheet" href="inspector.css?token=${token}" />`);
    expect(reply.headers['content-security-policy']).toContain("default-src 'none'");
    // A cookie ignores ports: every other http://127.0.0.1:* service the browser opens would get it.
    expect(reply.headers['set-cookie']).toBeUndefined();
    expect((await get(new URL(`/inspector.js?token=${token}`, bare()))).status).toBe(200);
    expect((await get(new URL('/inspector.js', bare()), { cookie: `zot-inspect=${token}` })).status).toBe(401);
  });

  it('refuses HTTP requests without the token, with a wrong one, a foreign Origin or another Host', async () => {
    expect((await get(bare())).status).toBe(401);
    expect((await get(new URL('/inspector.js', bare()))).status).toBe(401);
    expect((await get(new URL(`/?token=${token}x`, bare()))).status).toBe(401);
    expect((await get(page, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await get(page, { origin: 'null' })).status).toBe(403);
    expect((await get(page, { host: `evil.example:${page.port}` })).status).toBe(403);
    expect((await get(page, { origin: origin() })).status).toBe(200);
    // localhost names the same loopback server.
    expect((await get(page, { host: `localhost:${page.port}` })).status).toBe(200);
  });

  it('refuses WebSocket upgrades without the token or with a foreign Origin; the page\'s own one gets the state', async () => {
    expect((await upgrade(ws(false), { origin: origin() })).status).toBe(401);
    expect((await upgrade(ws(true), { origin: 'http://evil.example' })).status).toBe(403);
    expect((await upgrade(ws(true), { origin: origin(), host: `evil.example:${page.port}` })).status).toBe(403);
    const opened = await upgrade(ws(true), { origin: origin() });
    expect(opened.status).toBe(101);
    const [hello] = opened.first as [{ t: string; extensions: { name: string; state: string }[] }];
    expect(hello.t).toBe('hello');
    expect(hello.extensions.map((e) => [e.name, e.state])).toEqual([['inspect-sh', 'ready']]);
  });
});

describe('zot-ext inspect: options', () => {
  it('refuses an address off loopback without --token-env', async () => {
    const tmp = tempDir('zot-ext-inspect-listen-');
    try {
      const result = await runCli(['inspect', '--listen', '0.0.0.0:0', '--home', path.join(tmp.dir, 'home'), '--cwd', tmp.dir]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--token-env');
    } finally {
      tmp.cleanup();
    }
  });

  it('takes the token from --token-env (also as a bearer header)', async () => {
    const tmp = tempDir('zot-ext-inspect-token-');
    mkdirSync(path.join(tmp.dir, 'project'));
    const cli = new CliProcess(['inspect', fixture('inspect/inspect-sh'), '--token-env', 'INSPECT_TOKEN', '--home', path.join(tmp.dir, 'home'), '--cwd', path.join(tmp.dir, 'project')], {
      env: { INSPECT_TOKEN: 'a-token-of-my-own-0123456789' },
      timeoutMs: 15_000,
    });
    try {
      await cli.waitFor(/^inspector http/m);
      const url = new URL(/^inspector (\S+)$/m.exec(cli.stdout)![1]!);
      expect(url.searchParams.get('token')).toBe('a-token-of-my-own-0123456789');
      expect((await get(new URL(`http://${url.host}/`), { authorization: 'Bearer a-token-of-my-own-0123456789' })).status).toBe(200);
      expect((await get(new URL(`http://${url.host}/`), { authorization: 'Bearer nope' })).status).toBe(401);
    } finally {
      cli.signal('SIGINT');
      expect((await cli.exited).code).toBe(0);
      tmp.cleanup();
    }
  });
});
