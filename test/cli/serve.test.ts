// `zot-ext serve` as a user runs it: the CLI from dist/ serving real fixtures, a ws client speaking
// raw frames on 127.0.0.1.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/fixtures.js';
import { isAlive } from '../helpers/processes.js';
import { waitUntil } from '../helpers/wait.js';
import { killRunningClis, runCli } from './cli.js';
import { closeClients, FrameClient, pidOf, startServe } from './serve-client.js';

const KITCHEN = path.join(FIXTURES, 'extensions', 'kitchen');
const IGNORE_SIGTERM = path.join(FIXTURES, 'faults', 'ignore-sigterm');

afterEach(async () => {
  await closeClients();
  await killRunningClis();
});

async function gone(pid: number): Promise<void> {
  await waitUntil(`pid ${pid} to end`, async () => !(await isAlive(pid)));
}

describe('zot-ext serve', () => {
  it('prints the real port first, then serves a hello -> hello_ack -> tool call round trip', { timeout: 15_000 }, async () => {
    const { cli, url } = await startServe(KITCHEN);
    expect(Number(new URL(url).port)).toBeGreaterThan(0);
    const client = await FrameClient.connect(`${url}/any/path`);
    const hello = await client.handshake();
    expect(hello).toMatchObject({ type: 'hello', name: 'kitchen' });
    client.send({ type: 'tool_call', id: 't1', name: 'echo', args: { city: 'Oslo' } });
    const result = await client.waitFor((f) => f.type === 'tool_result' && f.id === 't1');
    expect(result.content).toEqual([{ type: 'text', text: '{"city":"Oslo"}' }]);
    client.send({ type: 'shutdown' });
    await client.waitFor((f) => f.type === 'shutdown_ack');
    expect(await client.closeInfo()).toEqual({ code: 1000, reason: 'exit code 0' });
    await cli.waitFor(/#1 closed 1000 "exit code 0"/, 'stderr');
    expect(cli.stderr).toMatch(/zot-ext serve: #1 connect from 127\.0\.0\.1:\d+, pid \d+\n/);
    expect(cli.stderr).toContain('zot-ext serve: #1 exit code 0\n');
  });

  it("gives the extension its own directory in hello_ack, not the host's paths", { timeout: 15_000 }, async () => {
    const { url } = await startServe(KITCHEN);
    const client = await FrameClient.connect(url);
    await client.waitFor((f) => f.type === 'hello', 'hello');
    client.send({ type: 'hello_ack', protocol_version: 1, cwd: '/host/project', extension_dir: '/host/ext', data_dir: '/host/data' });
    await client.waitFor((f) => f.type === 'ready', 'ready');
    client.send({ type: 'command_invoked', id: 'c1', name: 'ack', args: '' });
    const answer = await client.waitFor((f) => f.type === 'command_response' && f.id === 'c1');
    const ack = JSON.parse(String((answer as { display?: unknown }).display)) as Record<string, unknown>;
    expect(ack).toMatchObject({ cwd: '/host/project', extension_dir: KITCHEN, data_dir: KITCHEN });
  });

  it('gives each connection its own process, isolated from the others', { timeout: 15_000 }, async () => {
    const { cli, url } = await startServe(KITCHEN);
    const a = await FrameClient.connect(url);
    const pidA = await pidOf(cli, 1);
    const b = await FrameClient.connect(url);
    const pidB = await pidOf(cli, 2);
    expect(pidA).not.toBe(pidB);
    await Promise.all([a.handshake(), b.handshake()]);
    a.send({ type: 'tool_call', id: 'same', name: 'echo', args: { who: 'a' } });
    b.send({ type: 'tool_call', id: 'same', name: 'echo', args: { who: 'b' } });
    expect((await a.waitFor((f) => f.type === 'tool_result')).content).toEqual([{ type: 'text', text: '{"who":"a"}' }]);
    expect((await b.waitFor((f) => f.type === 'tool_result')).content).toEqual([{ type: 'text', text: '{"who":"b"}' }]);
    // One process crashing ends its own connection only.
    a.send({ type: 'tool_call', id: 'c', name: 'crash', args: {} });
    expect(await a.closeInfo()).toEqual({ code: 1011, reason: 'exit code 7' });
    await gone(pidA);
    expect(await isAlive(pidB)).toBe(true);
    b.send({ type: 'tool_call', id: 'after', name: 'echo', args: {} });
    await b.waitFor((f) => f.type === 'tool_result' && f.id === 'after');
  });

  it('kills the process (SIGKILL after the grace when it ignores SIGTERM) when its connection closes', { timeout: 15_000 }, async () => {
    const { cli, url } = await startServe(KITCHEN);
    const client = await FrameClient.connect(url);
    const pid = await pidOf(cli, 1);
    await client.handshake();
    client.ws.close(1000, 'bye');
    await gone(pid);
    await cli.waitFor(/#1 closed 1000 "bye"/, 'stderr');

    const { cli: stubborn, url: url2 } = await startServe(IGNORE_SIGTERM);
    const c2 = await FrameClient.connect(url2);
    const pid2 = await pidOf(stubborn, 1);
    await c2.waitFor((f) => f.type === 'hello');
    c2.ws.terminate();
    await gone(pid2);
    await stubborn.waitFor('#1 exit signal SIGKILL', 'stderr');
  });

  it('requires the token: no or a wrong Authorization is refused with 401 before any process starts', { timeout: 15_000 }, async () => {
    const { cli, url } = await startServe(KITCHEN, ['--token-env', 'SERVE_TOKEN'], { env: { SERVE_TOKEN: 's3cret' } });
    await expect(FrameClient.connect(url)).rejects.toMatchObject({ status: 401 });
    await expect(FrameClient.connect(url, { headers: { Authorization: 'Bearer wrong' } })).rejects.toMatchObject({ status: 401 });
    await expect(FrameClient.connect(url, { headers: { Authorization: 's3cret' } })).rejects.toMatchObject({ status: 401 });
    await cli.waitFor(/refused 127\.0\.0\.1:\d+: 401 wrong token\n[^]*refused/, 'stderr');
    expect(cli.stderr).toMatch(/refused 127\.0\.0\.1:\d+: 401 no Authorization header/);
    expect(cli.stderr).not.toContain('connect from');
    const ok = await FrameClient.connect(url, { headers: { Authorization: 'Bearer s3cret' } });
    await ok.handshake();
    expect(cli.stderr).toMatch(/#1 connect from/);
  });

  it('keeps the token variable out of the extension\'s environment', { timeout: 15_000 }, async () => {
    const { url } = await startServe(path.join(FIXTURES, 'faults', 'env-dump'), ['--token-env', 'SERVE_TOKEN'], { env: { SERVE_TOKEN: 's3cret', OTHER_VAR: 'kept' } });
    const client = await FrameClient.connect(url, { headers: { Authorization: 'Bearer s3cret' } });
    await client.handshake();
    client.send({ type: 'tool_call', id: 'e', name: 'env', args: {} });
    const env = JSON.parse(((await client.waitFor((f) => f.type === 'tool_result')).content as { text: string }[])[0]!.text) as Record<string, string>;
    expect(env.OTHER_VAR).toBe('kept');
    expect(env).not.toHaveProperty('SERVE_TOKEN');
  });

  it('refuses to start when the token variable is unset or empty', { timeout: 15_000 }, async () => {
    const unset = await runCli(['serve', KITCHEN, '--token-env', 'NO_SUCH_TOKEN_VAR']);
    expect(unset.code).toBe(2);
    expect(unset.stdout).toBe('');
    expect(unset.stderr).toContain('--token-env NO_SUCH_TOKEN_VAR: $NO_SUCH_TOKEN_VAR is not set');
    const empty = await runCli(['serve', KITCHEN, '--token-env', 'EMPTY_TOKEN'], { env: { EMPTY_TOKEN: '' } });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('$EMPTY_TOKEN is empty');
  });

  it('refuses what is not one text frame: over the cap (1009), with a line feed (1007), binary (1003)', { timeout: 20_000 }, async () => {
    const { cli, url } = await startServe(KITCHEN);
    const big = await FrameClient.connect(url);
    const pid = await pidOf(cli, 1);
    await big.waitFor((f) => f.type === 'hello');
    big.ws.send('x'.repeat(4 * 1024 * 1024 + 1));
    expect((await big.closeInfo()).code).toBe(1009);
    await gone(pid);

    const lf = await FrameClient.connect(url);
    await lf.waitFor((f) => f.type === 'hello');
    lf.ws.send('{"type":"hello_ack","protocol_version":1}\n{"type":"shutdown"}');
    expect(await lf.closeInfo()).toEqual({ code: 1007, reason: 'a message is one frame without a line feed' });

    const binary = await FrameClient.connect(url);
    await binary.waitFor((f) => f.type === 'hello');
    binary.ws.send(Buffer.from('{"type":"shutdown"}'), { binary: true });
    expect((await binary.closeInfo()).code).toBe(1003);
  });

  it('closes with 1009 when the extension writes a line over the cap, and ends the process', { timeout: 15_000 }, async () => {
    const { cli, url } = await startServe(KITCHEN);
    const client = await FrameClient.connect(url);
    const pid = await pidOf(cli, 1);
    await client.handshake();
    client.send({ type: 'command_invoked', id: 'b', name: 'big', args: '' });
    expect(await client.closeInfo()).toEqual({ code: 1009, reason: `extension line over ${4 * 1024 * 1024} bytes` });
    await gone(pid);
  });

  it('refuses connections over --max-connections with 503, and accepts again once one closed', { timeout: 15_000 }, async () => {
    const { cli, url } = await startServe(KITCHEN, ['--max-connections', '1']);
    const first = await FrameClient.connect(url);
    const pid = await pidOf(cli, 1);
    await expect(FrameClient.connect(url)).rejects.toMatchObject({ status: 503 });
    first.ws.close();
    await gone(pid);
    await cli.waitFor('#1 closed', 'stderr');
    await waitUntil('the slot to be released', async () => {
      try {
        const again = await FrameClient.connect(url);
        again.ws.close();
        return true;
      } catch {
        return false;
      }
    });
  });

  it('drops a peer that stops answering pings (--keepalive)', { timeout: 15_000 }, async () => {
    const { cli, url } = await startServe(KITCHEN, ['--keepalive', '100']);
    const mute = await FrameClient.connect(url, { autoPong: false });
    const pid = await pidOf(cli, 1);
    expect((await mute.closeInfo()).code).toBe(1006);
    await gone(pid);
    expect(cli.stderr).toContain('#1 no pong within 100 ms');
  });

  it('SIGTERM closes every connection with 1001, ends every process and exits 0', { timeout: 15_000 }, async () => {
    const { cli, url } = await startServe(KITCHEN);
    const a = await FrameClient.connect(url);
    const b = await FrameClient.connect(url);
    const pids = [await pidOf(cli, 1), await pidOf(cli, 2)];
    await Promise.all([a.handshake(), b.handshake()]);
    cli.signal('SIGTERM');
    expect((await a.closeInfo()).code).toBe(1001);
    expect((await b.closeInfo()).code).toBe(1001);
    const result = await cli.exited;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('zot-ext serve: stopped');
    for (const pid of pids) expect(await isAlive(pid)).toBe(false);
  });

  it('reports a directory without a runnable extension, and a bad --listen, as errors', { timeout: 15_000 }, async () => {
    const missing = await runCli(['serve', path.join(FIXTURES, 'faults', 'exec-missing')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot serve exec-missing: executable not found/);
    const listen = await runCli(['serve', KITCHEN, '--listen', 'nope']);
    expect(listen.code).toBe(2);
    expect(listen.stderr).toContain('--listen "nope": expected HOST:PORT');
  });
});
