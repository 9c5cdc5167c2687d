// The manifest's `"mcp"` field and the host option `mcpServers` (docs/mcp.md): what names an MCP
// server, and the typed refusals of what does not.
import { describe, expect, it } from 'vitest';
import { ManifestDiscovery } from '../../src/manifest/discovery.js';
import { mcpProblem } from '../../src/manifest/mcp.js';
import { Manifest } from '../../src/manifest/schema.js';
import { fixture } from '../helpers/fixtures.js';
import { constructionError } from '../helpers/host.js';

describe('"mcp" in a manifest', () => {
  it.each([
    { command: 'node', args: ['server.mjs'], env: { DEBUG: '1' }, prefix: 'ev_' },
    { command: 'npx-free-server' },
    { url: 'https://example.com/mcp', headers: { Authorization: 'env:TOKEN' } },
    { url: 'http://127.0.0.1:3000/mcp' },
  ])('accepts %j', (mcp) => {
    expect(mcpProblem(mcp)).toBeUndefined();
    expect(Manifest.safeParse({ name: 'srv', mcp }).success).toBe(true);
  });

  it.each([
    ['not an object', 'must be an object'],
    [{}, 'needs "command"'],
    [{ command: '' }, 'non-empty string'],
    [{ command: 'x', url: 'http://a/' }, 'not both'],
    [{ command: 'x', args: [1] }, 'array of strings'],
    [{ command: 'x', env: { A: 1 } }, 'object of strings'],
    [{ command: 'x', headers: {} }, 'HTTP server'],
    [{ url: 'ws://a/' }, 'http:// or https://'],
    [{ url: 'nope' }, 'not a valid URL'],
    [{ url: 'http://a/', headers: { 'bad name': 'x' } }, 'HTTP token'],
    [{ url: 'http://a/', args: [] }, 'spawned server'],
    [{ command: 'x', prefix: 'has space' }, 'prefix'],
  ])('refuses %j (%s)', (mcp, why) => {
    expect(mcpProblem(mcp)).toContain(why);
    const parsed = Manifest.safeParse({ name: 'srv', mcp });
    expect(parsed.success).toBe(false);
  });

  it('is one of exec, url and mcp', () => {
    const parsed = Manifest.safeParse({ name: 'srv', exec: './x', mcp: { command: 'node' } });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain('use one of');
  });

  it('makes a manifest without exec an extension the host runs', async () => {
    const { extensions, diagnostics } = await new ManifestDiscovery({ cwd: fixture('mcp'), discover: false, explicit: [fixture('mcp/changing')] }).discover();
    expect(diagnostics).toEqual([]);
    expect(extensions).toMatchObject([{ name: 'changing', kind: 'process', manifest: { mcp: { command: 'node', prefix: 'ch_' } } }]);
  });
});

describe('the host option mcpServers', () => {
  it.each([
    [[], 'an object of MCP servers'],
    [{ srv: { command: '' } }, '"srv.command" must be a non-empty string'],
    [{ 'a/b': { command: 'node' } }, 'path separator'],
  ])('refuses %j with INVALID_OPTIONS', (mcpServers, why) => {
    const error = constructionError({ mcpServers });
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toContain('mcpServers');
    expect(error.message).toContain(why);
  });
});
