// The negotiated `unregister_tool` frame (capability "unregister", docs/protocol.md): an extension
// withdraws a tool it registered (the MCP adapter does for tools/list_changed); and the tool
// `annotations` of register_tool.
import { describe, expect, it } from 'vitest';
import { nextEvent } from '../helpers/wait.js';
import { memoryHosts, wireExtension } from '../helpers/wire-extension.js';

const hosts = memoryHosts('zot-unregister-');
const tools = [
  { type: 'register_tool', name: 'a', description: 'A', annotations: { readOnlyHint: true } },
  { type: 'register_tool', name: 'b', description: 'B', annotations: 'not an object' },
];

describe('unregister_tool', () => {
  it('withdraws a tool of an extension that negotiated "unregister": tools() and tools:changed follow; it may register the name again', async () => {
    const ext = wireExtension('w', { capabilities: ['unregister'], setup: tools });
    const host = await hosts.start({ inMemory: [ext] });
    expect(ext.frames('hello_ack')[0]?.capabilities).toEqual(['unregister']);
    expect(host.tools()).toMatchObject([{ name: 'a', annotations: { readOnlyHint: true } }, { name: 'b' }]);
    expect(host.tools()[1]).not.toHaveProperty('annotations');
    const changed = nextEvent(host, 'tools:changed');
    ext.send({ type: 'unregister_tool', name: 'a' });
    expect((await changed).map((t) => t.name)).toEqual(['b']);
    const again = nextEvent(host, 'tools:changed');
    ext.send({ type: 'register_tool', name: 'a', description: 'A again' });
    expect((await again).find((t) => t.name === 'a')?.description).toBe('A again');
  });

  it('a name it never registered is ignored; a frame without a name is INVALID_FRAME', async () => {
    const ext = wireExtension('w', { capabilities: ['unregister'], setup: tools });
    const host = await hosts.start({ inMemory: [ext] });
    const invalid = nextEvent(host, 'diagnostic', (d) => d.code === 'INVALID_FRAME');
    ext.send({ type: 'unregister_tool', name: 'nope' });
    ext.send({ type: 'unregister_tool' });
    expect((await invalid).message).toContain('unregister_tool');
    expect(host.tools().map((t) => t.name)).toEqual(['a', 'b']);
  });

  it('is an unknown frame type for an extension that did not negotiate it', async () => {
    const ext = wireExtension('w', { capabilities: ['cancel'], setup: tools });
    const host = await hosts.start({ inMemory: [ext] });
    const unknown = nextEvent(host, 'diagnostic', (d) => d.code === 'UNKNOWN_TYPE');
    ext.send({ type: 'unregister_tool', name: 'a' });
    expect((await unknown).message).toContain('unregister_tool');
    expect(host.tools().map((t) => t.name)).toEqual(['a', 'b']);
  });
});
