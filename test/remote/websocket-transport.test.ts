// WebSocketTransport on its own, against a real server on 127.0.0.1: lines as messages both ways,
// a long line reassembled across chunks, the URL's password never shown.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ExtensionLog } from '../../src/transport/log.js';
import { WebSocketTransport } from '../../src/transport/websocket.js';
import { tempDir } from '../helpers/fixtures.js';
import { waitUntil } from '../helpers/wait.js';
import { startWsPeer, type WsPeer } from '../helpers/ws-peer.js';

const TEST_MS = 10_000;
const temp = tempDir('zot-ws-transport-');
afterAll(() => temp.cleanup());
let server: WsPeer | undefined;
let transport: WebSocketTransport | undefined;
afterEach(async () => {
  await transport?.close('test', { graceful: false });
  await server?.close();
  transport = server = undefined;
});

let logs = 0;
function open(url: string, options: Partial<ConstructorParameters<typeof WebSocketTransport>[0]> = {}): WebSocketTransport {
  const log = new ExtensionLog(path.join(temp.dir, `ext-${logs++}.log`));
  transport = new WebSocketTransport({ name: 'wst', url, log, maxFrameBytes: 1 << 20, ...options });
  return transport;
}

describe('WebSocketTransport', () => {
  it('sends each complete line as one message, reassembling a line that spans chunks', { timeout: TEST_MS }, async () => {
    server = await startWsPeer();
    const t = open(server.url);
    await t.start(() => undefined);
    const connection = await server.connection();
    const long = 'x'.repeat(100_000);
    const done: number[] = [];
    t.write(`{"a":1}\n{"b":"${long.slice(0, 10)}`, () => done.push(1));
    t.write(long.slice(10, 50_000), () => done.push(2));
    t.write(`${long.slice(50_000)}"}\n{"c":3}\n`, () => done.push(3));
    await waitUntil('three messages', () => connection.messages.length === 3);
    expect(connection.messages).toEqual(['{"a":1}', `{"b":"${long}"}`, '{"c":3}']);
    await waitUntil('every write done', () => done.length === 3);
    expect(done).toEqual([1, 2, 3]);
    expect(t.writing).toBe(false);
    expect(t.pid).toBeUndefined();
  });

  it('delivers each line of a message; a message with several lines is split, empty lines skipped', { timeout: TEST_MS }, async () => {
    server = await startWsPeer();
    const t = open(server.url);
    const lines: string[] = [];
    await t.start((line) => lines.push(line));
    const connection = await server.connection();
    connection.send('{"type":"ready"}');
    connection.send('{"n":1}\n{"n":2}\n\n');
    await waitUntil('three lines', () => lines.length === 3);
    expect(lines).toEqual(['{"type":"ready"}', '{"n":1}', '{"n":2}']);
  });

  it('a dropped connection is exit then close with code and signal null', { timeout: TEST_MS }, async () => {
    server = await startWsPeer();
    const t = open(server.url);
    const events: string[] = [];
    t.on('exit', (e) => events.push(`exit ${e.code} ${e.signal}`));
    const closed = new Promise<void>((resolve) => t.on('close', (e) => (events.push(`close ${e.code} ${e.signal}`), resolve())));
    await t.start(() => undefined);
    (await server.connection()).socket.terminate();
    await closed;
    expect(events).toEqual(['exit null null', 'close null null']);
    expect(t.writable).toBe(false);
  });

  it('shows and logs the URL without its user name and password', { timeout: TEST_MS }, async () => {
    server = await startWsPeer();
    const t = open(server.url.replace('ws://', 'ws://me:hunter2@'));
    expect(t.url).toBe(server.url.replace('ws://', 'ws://***:***@'));
    await t.start(() => undefined);
    await t.close('test', { graceful: false });
    const log = new ExtensionLog(path.join(temp.dir, `ext-${logs - 1}.log`));
    await log.flushed();
    await waitUntil('the close in the log', () => readFileSync(log.path, 'utf8').includes('connection closed'));
    expect(readFileSync(log.path, 'utf8')).not.toContain('hunter2');
  });
});
