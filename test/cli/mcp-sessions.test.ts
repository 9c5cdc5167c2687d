// `zot-ext mcp`'s sessions in-process (src/cli/mcp/http.ts, bridge.ts) over a stand-in host: the
// --max-sessions cap holds for initializes that come together, and what an extension submits while
// one of its commands runs as a prompt goes to that session's prompt only.
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { McpSessions } from '../../src/cli/mcp/bridge.js';
import { McpHttpServer } from '../../src/cli/mcp/http.js';
import type { ExtensionHost } from '../../src/host/host.js';
import type { CommandOutcome } from '../../src/host/types.js';

const TOKEN = 'a-test-token-0123456789';

/** A host with commands `a:one` and `a:two` (extension a), `b:one` (extension b); runCommand waits for `release(name)`. */
function standIn() {
  const waiting = new Map<string, () => void>();
  const started = new Map<string, () => void>();
  const running = new Map<string, Promise<void>>();
  const commands = [
    { name: 'a:one', description: '', extension: 'a' },
    { name: 'a:two', description: '', extension: 'a' },
    { name: 'b:one', description: '', extension: 'b' },
  ];
  const host = {
    tools: () => [],
    commands: () => commands,
    closePanel: () => false,
    runCommand: async ({ name }: { name: string }): Promise<CommandOutcome> => {
      started.get(name)?.();
      await new Promise<void>((resolve) => waiting.set(name, resolve));
      const extension = commands.find((c) => c.name === name)!.extension;
      return { handled: true, name, args: '', extension, action: 'prompt', text: `${name} ran`, panel: undefined, error: undefined, failure: undefined };
    },
  } as unknown as ExtensionHost;
  const begun = (name: string) => {
    const p = new Promise<void>((resolve) => started.set(name, resolve));
    running.set(name, p);
    return p;
  };
  return { host, begun, release: (name: string) => waiting.get(name)!() };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function session(sessions: McpSessions): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = sessions.create();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

describe('zot-ext mcp sessions', { timeout: 10_000 }, () => {
  it('a submit joins the prompt of its extension in its own session; two prompts of one extension at once get neither', async () => {
    const { host, begun, release } = standIn();
    const log: string[] = [];
    const sessions = new McpSessions({ host, log: (l) => log.push(l) });
    const [first, second] = [await session(sessions), await session(sessions)];

    // Session 1 runs a:one, session 2 runs b:one: a's submit is session 1's only.
    let started = Promise.all([begun('a:one'), begun('b:one')]);
    let one = first.getPrompt({ name: 'a:one', arguments: {} });
    let two = second.getPrompt({ name: 'b:one', arguments: {} });
    await started;
    sessions.onSubmit('a', 'for a');
    sessions.onSubmit('b', 'for b');
    release('a:one');
    release('b:one');
    expect((await one).messages.map((m) => (m.content as { text: string }).text)).toEqual(['a:one ran', 'for a']);
    expect((await two).messages.map((m) => (m.content as { text: string }).text)).toEqual(['b:one ran', 'for b']);

    // Both sessions run prompts of extension a: its submit cannot be told apart and joins neither.
    started = Promise.all([begun('a:one'), begun('a:two')]);
    one = first.getPrompt({ name: 'a:one', arguments: {} });
    two = second.getPrompt({ name: 'a:two', arguments: {} });
    await started;
    sessions.onSubmit('a', 'whose?');
    release('a:one');
    release('a:two');
    expect((await one).messages.map((m) => (m.content as { text: string }).text)).toEqual(['a:one ran']);
    expect((await two).messages.map((m) => (m.content as { text: string }).text)).toEqual(['a:two ran']);
    expect(log).toEqual(['a submitted text while 2 of its prompts ran at once: it joins none of them (it could be for any)']);
  });

  it('--max-sessions holds for initializes that come at the same time', async () => {
    const { host } = standIn();
    const sessions = new McpSessions({ host, log: () => undefined });
    // A session's close that takes a moment (as one with a stream open does): the window of the race.
    const create = sessions.create.bind(sessions);
    sessions.create = () => {
      const made = create();
      const close = made.close.bind(made);
      made.close = () => new Promise<void>((resolve) => setTimeout(resolve, 30)).then(close);
      return made;
    };
    const server = new McpHttpServer({ host: '127.0.0.1', port: 0, token: TOKEN, allowedOrigins: [], loopback: true, maxSessions: 2, sessions, log: () => undefined });
    const { port } = await server.listen();
    closers.push(() => server.stop());
    const initialize = () =>
      fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
      }).then(async (r) => {
        await r.text();
        return r.status;
      });
    expect(await initialize()).toBe(200);
    expect(await initialize()).toBe(200);
    expect(server.sessions).toBe(2);
    const statuses = await Promise.all(Array.from({ length: 6 }, initialize));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    expect(server.sessions).toBeLessThanOrEqual(2);
  });
});
