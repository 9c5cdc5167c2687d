// zot-ext doctor with a remote extension: its URL, and a header variable that is not set.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKitchen } from '../../fixtures/sdk/kitchen-sdk/extension.js';
import { serveExtension, startWsPeer, type WsPeer } from '../helpers/ws-peer.js';
import { runCli, useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-doctor-remote-');
let server: WsPeer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function remote(name: string, manifest: Record<string, unknown>): void {
  const dir = sandbox.globalDir(name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'extension.json'), JSON.stringify({ name, ...manifest }));
}

describe('doctor and remote extensions', { timeout: 30_000 }, () => {
  it('shows the URL of a connected one, and names an unset header variable', async () => {
    server = await startWsPeer({ authorization: 'Bearer t0ken', onConnection: serveExtension(createKitchen) });
    remote('kitchen-sdk', { url: server.url, headers: { Authorization: 'env:ZOT_TEST_REMOTE_TOKEN' } });
    remote('needs-var', { url: server.url, headers: { Authorization: 'env:ZOT_TEST_REMOTE_UNSET' } });
    const r = await runCli(['doctor', '--home', sandbox.home, '--cwd', sandbox.project], { env: { ZOT_TEST_REMOTE_TOKEN: 'Bearer t0ken', ZOT_TEST_REMOTE_UNSET: undefined } });
    expect(r.stdout).toMatch(/^✓ kitchen-sdk 0\.1\.0 \(global\) ready in/m);
    expect(r.stdout).toContain(`    url: ${server.url}\n    headers: Authorization (from $ZOT_TEST_REMOTE_TOKEN, set)\n`);
    expect(r.stdout).toContain('    headers: Authorization (from $ZOT_TEST_REMOTE_UNSET, not set)\n');
    expect(r.stdout).toMatch(/^✗ needs-var \(global\) failed: cannot connect to needs-var: header Authorization is env:ZOT_TEST_REMOTE_UNSET, and ZOT_TEST_REMOTE_UNSET is not set in the host environment/m);
    expect(r.stdout).not.toContain('t0ken');
    expect(r.code).toBe(1);
  });

  it("--json lists a remote extension's headers by name and variable, never a value", async () => {
    server = await startWsPeer({ authorization: 'Bearer t0ken', onConnection: serveExtension(createKitchen) });
    remote('kitchen-sdk', { url: server.url, headers: { Authorization: 'env:ZOT_TEST_REMOTE_TOKEN', 'X-Team': 'agents' } });
    const r = await runCli(['doctor', '--home', sandbox.home, '--cwd', sandbox.project, '--json'], { env: { ZOT_TEST_REMOTE_TOKEN: 'Bearer t0ken' } });
    const report = JSON.parse(r.stdout) as { extensions: { name: string; headers?: unknown }[] };
    expect(report.extensions.find((e) => e.name === 'kitchen-sdk')?.headers).toEqual([
      { name: 'Authorization', variable: 'ZOT_TEST_REMOTE_TOKEN', set: true },
      { name: 'X-Team', variable: null, set: null },
    ]);
    expect(r.stdout).not.toContain('t0ken');
    expect(r.stdout).not.toContain('agents');
  });

  it('masks the user name and password of a URL argument, as text and as JSON', async () => {
    server = await startWsPeer({ onConnection: serveExtension(createKitchen) });
    const url = server.url.replace('ws://', 'ws://alice:pw-s3cret@');
    for (const json of [[], ['--json']]) {
      const r = await runCli(['doctor', '--home', sandbox.home, '--cwd', sandbox.project, '--no-discover', ...json, url]);
      expect(r.stdout).toContain(server.url.replace('ws://', 'ws://***:***@'));
      expect(r.stdout + r.stderr).not.toMatch(/alice|pw-s3cret/);
    }
  });

  it('takes a ws:// URL as a path argument', async () => {
    server = await startWsPeer({ onConnection: serveExtension(createKitchen) });
    const r = await runCli(['doctor', '--home', sandbox.home, '--cwd', sandbox.project, '--no-discover', '--json', server.url]);
    const report = JSON.parse(r.stdout) as { ok: boolean; extensions: { name: string; url?: string; state: string }[] };
    expect(report.extensions).toMatchObject([{ name: `127.0.0.1-${server.port}-ext`, url: server.url, state: 'ready' }]);
  });

  it("a ws:// path argument lists no headers of an unrelated manifest in the cwd", async () => {
    server = await startWsPeer({ onConnection: serveExtension(createKitchen) });
    mkdirSync(sandbox.project, { recursive: true });
    writeFileSync(path.join(sandbox.project, 'extension.json'), JSON.stringify({ name: 'other', url: 'ws://127.0.0.1:1/', headers: { 'X-Other': 'literal' } }));
    const r = await runCli(['doctor', '--home', sandbox.home, '--cwd', sandbox.project, '--no-discover', server.url]);
    expect(r.stdout).toContain(`    url: ${server.url}\n`);
    expect(r.stdout).not.toContain('X-Other');
  });
});
