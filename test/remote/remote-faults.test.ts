// A remote extension's failures, over real sockets on 127.0.0.1: a frame over the cap, the server
// gone mid-call, a silent network (keep-alive), reconnect under a restart policy, many calls at
// once, in-band shutdown, and a connection that never comes about.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createKitchen } from '../../fixtures/sdk/kitchen-sdk/extension.js';
import type { ExtensionHost } from '../../src/host/host.js';
import { ExtensionProcess } from '../../src/process/extension-process.js';
import { tempDir } from '../helpers/fixtures.js';
import { hostKit, textOf } from '../helpers/host.js';
import { nextEvent, waitUntil } from '../helpers/wait.js';
import { closedPort, serveExtension, startSilentTcp, startWsPeer, type PeerConnection, type WsPeer } from '../helpers/ws-peer.js';

const TEST_MS = 15_000;
const kit = hostKit();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});
const logs = tempDir();
afterAll(() => logs.cleanup());

async function peer(options: Parameters<typeof startWsPeer>[0] = {}): Promise<WsPeer> {
  const p = await startWsPeer(options);
  cleanups.push(() => p.close());
  return p;
}

const TOOL = { type: 'register_tool', name: 'wait', description: 'answers when the test says so', schema: { type: 'object', properties: {} } };

/** A scripted extension `name` with one tool, ready. */
const scripted = (name: string) => (connection: PeerConnection) => void connection.hello(name, [TOOL, { type: 'ready' }]);

async function started(url: string, options: Parameters<typeof kit.start>[0] = {}): Promise<ExtensionHost> {
  const { host, report } = await kit.start({ explicit: [url], ...options });
  cleanups.push(() => host.stop());
  expect(report.failed).toEqual([]);
  return host;
}

describe('a remote extension that fails', () => {
  it('a frame over the cap ends it with FRAME_TOO_LARGE; ws closes with 1009', { timeout: TEST_MS }, async () => {
    const server = await peer({ onConnection: scripted('big') });
    const host = await started(server.url, { maxFrameBytes: 4096 });
    const connection = await server.connection();
    const call = host.callTool('wait', {});
    const request = await connection.next('tool_call');
    connection.send({ type: 'tool_result', id: request.id, content: [{ type: 'text', text: 'x'.repeat(10_000) }] });
    expect(await call).toMatchObject({ isError: true, failure: { code: 'FRAME_TOO_LARGE', extension: `127.0.0.1-${server.port}-ext` } });
    expect((await connection.closed).code).toBe(1009);
    const d = host.diagnostics().find((x) => x.code === 'FRAME_TOO_LARGE');
    expect(d?.message).toMatch(/more than 4096 bytes/);
    expect(host.tools()).toEqual([]);
  });

  it('a binary message ends it: ws closes with 1003, the pending call settles, the log names the extension', { timeout: TEST_MS }, async () => {
    const server = await peer({ onConnection: scripted('binary') });
    const host = await started(server.url);
    const connection = await server.connection();
    const call = host.callTool('wait', {});
    const request = await connection.next('tool_call');
    const exited = nextEvent(host, 'extension:state', (s) => s.state === 'exited');
    // A text frame's content, sent as a binary message: the protocol is one text message per frame.
    connection.socket.send(Buffer.from(JSON.stringify({ type: 'tool_result', id: request.id, content: [{ type: 'text', text: 'as binary' }] })), { binary: true });
    expect(await call).toMatchObject({ isError: true, failure: { code: 'PROCESS_EXITED' } });
    expect(await connection.closed).toEqual({ code: 1003, reason: 'binary messages are not accepted' });
    const name = `127.0.0.1-${server.port}-ext`;
    await exited;
    const logPath = host.extensions()[0]!.logPath;
    await waitUntil('the binary message in the log', () => readFileSync(logPath, 'utf8').includes('the protocol is one text message per frame: closing the connection with 1003'));
    expect(readFileSync(logPath, 'utf8')).toContain(`${name} sent a binary message (`);
    expect(host.tools()).toEqual([]);
  });

  it('a binary message is a typed BINARY_MESSAGE diagnostic naming the extension and its log; the pending call says why', { timeout: TEST_MS }, async () => {
    const server = await peer({ onConnection: scripted('binary') });
    const host = await started(server.url);
    const events: string[] = [];
    host.on('diagnostic', (d) => events.push(d.code));
    const connection = await server.connection();
    const call = host.callTool('wait', {});
    await connection.next('tool_call');
    connection.socket.send(Buffer.from([0xde, 0xad, 0xbe, 0xef]), { binary: true });
    const name = `127.0.0.1-${server.port}-ext`;
    const { logPath } = host.extensions()[0]!;
    const result = await call;
    expect(result.failure).toMatchObject({ code: 'PROCESS_EXITED', extension: name, logPath });
    expect(result.failure!.message).toContain(`${name} sent a binary message (4 bytes)`);
    expect(await connection.closed).toEqual({ code: 1003, reason: 'binary messages are not accepted' });
    const d = host.diagnostics().find((x) => x.code === 'BINARY_MESSAGE');
    expect(d).toMatchObject({ extension: name, logPath, severity: 'error' });
    expect(d!.message).toBe(`${name} sent a binary message (4 bytes); the protocol is one text message per frame: the connection was closed (1003) and it is being stopped; see ${logPath}`);
    expect(events).toContain('BINARY_MESSAGE');
  });

  it('the server gone mid-call: every pending call settles at once with PROCESS_EXITED, registrations removed', { timeout: TEST_MS }, async () => {
    const server = await peer({ onConnection: scripted('dies') });
    const host = await started(server.url);
    const connection = await server.connection();
    expect(host.tools().map((t) => t.name)).toEqual(['wait']);
    const calls = [1, 2, 3].map(() => host.callTool('wait', {}));
    await waitUntil('three tool calls at the server', () => connection.frames.filter((f) => f.type === 'tool_call').length === 3);
    const exited = nextEvent(host, 'extension:state', (s) => s.state === 'exited');
    connection.socket.terminate();
    const results = await Promise.all(calls);
    expect(results.map((r) => r.failure?.code)).toEqual(['PROCESS_EXITED', 'PROCESS_EXITED', 'PROCESS_EXITED']);
    await exited;
    expect(host.tools()).toEqual([]);
    expect(host.extensions()[0]).toMatchObject({ state: 'exited', pid: undefined, url: server.url });
  });

  it('a server that closes the connection is reported with its close code and reason, not as an exit code', { timeout: TEST_MS }, async () => {
    const server = await peer({ onConnection: scripted('closing') });
    const host = await started(server.url);
    const connection = await server.connection();
    const call = host.callTool('wait', {});
    await connection.next('tool_call');
    const exited = nextEvent(host, 'extension:state', (s) => s.state === 'exited');
    connection.socket.close(1001, 'server shutting down');
    const failure = (await call).failure;
    expect(failure?.message).toContain('connection closed (1001 server shutting down)');
    expect(failure?.message).not.toContain('code null');
    await exited;
    expect(host.extensions()[0]?.error?.message).toContain('connection closed (1001 server shutting down)');
  });

  it('a silent network: no pong within the keep-alive timeout drops the connection', { timeout: TEST_MS }, async () => {
    const server = await peer({ autoPong: false, onConnection: scripted('silent') });
    const host = await started(server.url, { keepAlive: { intervalMs: 50, timeoutMs: 100 } });
    const call = host.callTool('wait', {});
    expect((await call).failure).toMatchObject({ code: 'PROCESS_EXITED' });
    const logPath = host.extensions()[0]!.logPath;
    await waitUntil('the dead connection in the log', () => readFileSync(logPath, 'utf8').includes('no pong within 100 ms'));
  });

  it('an answered ping keeps an idle connection alive', { timeout: TEST_MS }, async () => {
    const server = await peer({ onConnection: scripted('pinged') });
    const host = await started(server.url, { keepAlive: { intervalMs: 20, timeoutMs: 60 } });
    const connection = await server.connection();
    let pings = 0;
    connection.socket.on('ping', () => pings++);
    await waitUntil('five pings', () => pings >= 5);
    expect(host.extensions()[0]!.state).toBe('ready');
    const call = host.callTool('wait', {});
    const request = await connection.next('tool_call');
    connection.send({ type: 'tool_result', id: request.id, content: [{ type: 'text', text: 'still here' }] });
    expect(textOf(await call)).toBe('still here');
  });

  it('reconnects with backoff under a restart policy', { timeout: TEST_MS }, async () => {
    const server = await peer({ onConnection: scripted('flaky') });
    const host = await started(server.url, { restart: { backoffMs: [50], maxRestarts: 3 } });
    const first = await server.connection(0);
    const back = nextEvent(host, 'extension:state', (s) => s.state === 'ready' && s.previous === 'starting');
    first.socket.terminate();
    const second = await server.connection(1);
    await back;
    expect(second.frames[0]).toMatchObject({ type: 'hello_ack' });
    expect(host.extensions()[0]).toMatchObject({ state: 'ready', restarts: 1 });
    const call = host.callTool('wait', {});
    const request = await second.next('tool_call');
    second.send({ type: 'tool_result', id: request.id, content: [{ type: 'text', text: 'again' }] });
    expect(textOf(await call)).toBe('again');
  });

  it('200 concurrent calls each get their own answer', { timeout: TEST_MS }, async () => {
    const server = await peer({ onConnection: serveExtension(createKitchen) });
    const host = await started(server.url);
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => host.callTool('echo', { i })));
    expect(results.map((r) => textOf(r))).toEqual(Array.from({ length: 200 }, (_, i) => JSON.stringify({ i })));
  });
});

describe('stopping a remote extension', () => {
  it('is in-band: shutdown, the shutdown_ack, then a normal close (no wait for the grace)', { timeout: TEST_MS }, async () => {
    const server = await peer({
      onConnection: (c) => {
        void c.hello('acks', [{ type: 'ready' }]);
        void c.next('shutdown').then(() => c.send({ type: 'shutdown_ack' }));
      },
    });
    const { host } = await kit.start({ explicit: [server.url], timeouts: { shutdown: 60_000 } });
    const connection = await server.connection();
    await host.stop();
    expect(connection.frames.map((f) => f.type)).toEqual(['hello_ack', 'shutdown']);
    expect(await connection.closed).toEqual({ code: 1000, reason: 'shutdown' });
  });

  it('a shutdown_ack after another line in the same message ends the wait too', { timeout: TEST_MS }, async () => {
    const server = await peer({
      onConnection: (c) => {
        void c.hello('acks', [{ type: 'ready' }]);
        void c.next('shutdown').then(() => c.send('{"type":"notify","message":"bye"}\n{"type":"shutdown_ack"}'));
      },
    });
    // A stop that waited out the grace would end the test by its timeout.
    const { host } = await kit.start({ explicit: [server.url], timeouts: { shutdown: 60_000 } });
    const connection = await server.connection();
    await host.stop();
    expect(await connection.closed).toEqual({ code: 1000, reason: 'shutdown' });
  });

  it('stopped once its hello came with the upgrade, before the connect returned: shutdown, the shutdown_ack, a normal close', { timeout: TEST_MS }, async () => {
    const server = await peer({
      withUpgrade: true,
      onConnection: (c) => {
        c.send({ type: 'hello', name: 'eager', version: '1.0.0' });
        c.send({ type: 'ready' });
        void c.next('shutdown').then(() => c.send({ type: 'shutdown_ack' }));
      },
    });
    const proc = new ExtensionProcess({
      name: 'eager',
      dir: logs.dir,
      launch: { kind: 'remote', url: server.url },
      logDir: logs.dir,
      host: { hostVersion: '1.0.0', provider: '', model: '', cwd: logs.dir },
      // A stop that waited out the grace would end the test by its timeout.
      timeouts: { shutdown: 60_000 },
    });
    cleanups.push(() => proc.stop());
    let stopped: Promise<void> | undefined;
    // `ready` is read right after hello, with the upgrade: the transport's start has not returned.
    proc.on('frame', (frame) => {
      if (frame.type === 'ready') stopped ??= proc.stop();
    });
    // Stopped before its start returned (a stop after it leaves the start resolved).
    await expect(proc.start()).rejects.toMatchObject({ code: 'NOT_STARTED', message: 'eager was stopped during its start' });
    expect(stopped).toBeDefined();
    await stopped;
    const connection = await server.connection();
    expect(connection.frames.map((f) => f.type)).toEqual(['hello_ack', 'shutdown']);
    expect(await connection.closed).toEqual({ code: 1000, reason: 'shutdown' });
    expect((await proc.exited).reason).toBe('stopped');
  });

  it('a peer that ignores shutdown is closed after the shutdown grace', { timeout: TEST_MS }, async () => {
    const server = await peer({ onConnection: (c) => void c.hello('deaf', [{ type: 'ready' }]) });
    const { host } = await kit.start({ explicit: [server.url], timeouts: { shutdown: 100 } });
    const connection = await server.connection();
    const logPath = host.extensions()[0]!.logPath;
    await host.stop();
    expect((await connection.closed).code).toBe(1000);
    await waitUntil('the grace in the log', () => readFileSync(logPath, 'utf8').includes('no shutdown_ack or close within 100 ms'));
  });
});

describe('a connection that never comes about', () => {
  const failure = async (url: string, options: Parameters<typeof kit.start>[0] = {}) => {
    const { host, report } = await kit.start({ explicit: [url], ...options });
    cleanups.push(() => host.stop());
    expect(report.failed).toHaveLength(1);
    const { name, error, logPath } = report.failed[0]!;
    expect(error).toMatchObject({ code: 'SPAWN_FAILED', extension: name, logPath });
    expect(error.message).toContain(`cannot connect to ${name} at ${url}`);
    expect(error.message).toContain(logPath);
    return error.message;
  };

  it('connection refused', { timeout: TEST_MS }, async () => {
    expect(await failure(`ws://127.0.0.1:${await closedPort()}/x`)).toMatch(/ECONNREFUSED/);
  });

  it('accepted but never upgraded: fails at the hello timeout', { timeout: TEST_MS }, async () => {
    const silent = await startSilentTcp();
    cleanups.push(() => silent.close());
    const began = performance.now();
    expect(await failure(silent.url, { timeouts: { hello: 300, helloJoin: 300 } })).toContain('no WebSocket upgrade within 300 ms (the hello timeout)');
    expect(performance.now() - began).toBeLessThan(3000);
  });

  it('stopped while it is still connecting: stop() cuts the connect off, not waiting for the connect deadline', { timeout: TEST_MS }, async () => {
    const silent = await startSilentTcp();
    cleanups.push(() => silent.close());
    const { host, report } = await kit.start({ explicit: [silent.url], timeouts: { hello: 50, helloJoin: 60_000 } });
    expect(report.starting.map((s) => s.name)).toHaveLength(1);
    const began = performance.now();
    await host.stop();
    // The connect's own deadline is 60 s: a stop that waited for it would end the test by its timeout.
    expect(performance.now() - began).toBeLessThan(5000);
    expect(host.extensions()).toEqual([]);
  });

  it('upgraded but no hello: HELLO_TIMEOUT within the hello timeout', { timeout: TEST_MS }, async () => {
    const server = await peer();
    const { host, report } = await kit.start({ explicit: [server.url], timeouts: { hello: 300, helloJoin: 300 } });
    cleanups.push(() => host.stop());
    expect(report.failed[0]?.error).toMatchObject({ code: 'HELLO_TIMEOUT' });
    expect((await (await server.connection()).closed).code).not.toBe(1000);
  });

  it('refused by the server (401): the HTTP status in the message', { timeout: TEST_MS }, async () => {
    const server = await peer({ authorization: 'Bearer right' });
    expect(await failure(server.url)).toContain('the server answered HTTP 401 Unauthorized');
    expect(server.connections).toHaveLength(0);
  });
});
