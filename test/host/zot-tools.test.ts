// zot's tool metadata and result additions, and zot's leniency where it is harmless (issue 30;
// docs/protocol.md "zot versions"), over raw in-memory extensions.
import { describe, expect, it } from 'vitest';
import type { NoteView } from '../../src/index.js';
import { memoryHosts, type WireFrame, wireExtension } from '../helpers/wire-extension.js';

const hosts = memoryHosts('zot-tools-');

const tool = (name: string, fields: Record<string, unknown> = {}): WireFrame => ({ type: 'register_tool', name, ...fields });

async function start(setup: WireFrame[], answer?: (frame: WireFrame) => WireFrame | undefined, notes?: NoteView[]) {
  const ext = wireExtension('meta', { capabilities: ['tool_cancel'], setup, answer });
  const host = await hosts.start({ inMemory: [ext], callbacks: { notify: (n) => notes?.push(n) } });
  return { host, ext };
}

describe('register_tool metadata', () => {
  it('reaches tools() as sent (only the fields sent); exposure deferred is our deferred tool, an explicit exposure overrides deferred', async () => {
    const { host: h } = await start([
      tool('forecast', { description: 'Weather', output_schema: { type: 'object', properties: { celsius: { type: 'number' } } }, namespace: 'weather', namespace_description: 'Weather lookups', namespace_instructions: 'Use for cities', exposure: 'codemode', replay: 'idempotent' }),
      tool('plain'),
      tool('later', { exposure: 'deferred' }),
      tool('direct_wins', { deferred: true, exposure: 'direct' }),
    ]);
    expect(h.tools()).toEqual([
      {
        name: 'forecast',
        description: 'Weather',
        schema: { type: 'object' },
        extension: 'meta',
        outputSchema: { type: 'object', properties: { celsius: { type: 'number' } } },
        namespace: 'weather',
        namespaceDescription: 'Weather lookups',
        namespaceInstructions: 'Use for cities',
        exposure: 'codemode',
        replay: 'idempotent',
      },
      { name: 'plain', description: '', schema: { type: 'object' }, extension: 'meta' },
      { name: 'direct_wins', description: '', schema: { type: 'object' }, extension: 'meta', exposure: 'direct' },
    ]);
    expect(h.diagnostics().filter((d) => d.extension === 'meta')).toEqual([]);
  });

  it('bad input: an unknown exposure refuses the tool, an unknown replay is never, a schema that is not an object is listed as {type:"object"}; each with a diagnostic; wrong types drop the frame', async () => {
    const { host: h } = await start([
      tool('odd_exposure', { exposure: 'everywhere' }),
      tool('odd_replay', { replay: 'sometimes' }),
      tool('string_schema', { schema: 'anything' }),
      tool('array_schema', { schema: [1] }),
      tool('bad_namespace', { namespace: 7 }),
      tool('bad_exposure_type', { exposure: true }),
    ]);
    expect(h.tools().map((t) => [t.name, t.schema, t.replay])).toEqual([
      ['odd_replay', { type: 'object' }, 'never'],
      ['string_schema', { type: 'object' }, undefined],
      ['array_schema', { type: 'object' }, undefined],
    ]);
    const codes = h.diagnostics().filter((d) => d.extension === 'meta').map((d) => d.code);
    expect(codes).toEqual(['UNKNOWN_EXPOSURE', 'UNKNOWN_REPLAY', 'SCHEMA_NORMALISED', 'SCHEMA_NORMALISED', 'INVALID_FRAME', 'INVALID_FRAME']);
    expect(h.diagnostics().find((d) => d.code === 'UNKNOWN_EXPOSURE')!.message).toBe('meta: tool "odd_exposure" refused: unknown exposure "everywhere" (one of direct, codemode, deferred, model-only), as zot skips it');
  });
});

describe('tool results', () => {
  const answers: Record<string, Record<string, unknown>> = {
    structured: { content: [{ type: 'text', text: 'Berlin 16°C' }], structured_content: { celsius: 16 } },
    markdown: { content: [{ type: 'text', text: '## Done', format: 'markdown' }] },
    empties: { content: [{ type: 'text', text: '' }, { type: 'text', text: 'kept' }, { type: 'text', text: '' }] },
    only_empty: { content: [{ type: 'text', text: '' }] },
    bad_image: { content: [{ type: 'text', text: 'see' }, { type: 'image', mime_type: 'image/png', data: 'not base64!' }, { type: 'image', mime_type: 'image/png', data: 'iVBORw==' }] },
  };
  const answer = (frame: WireFrame) => (frame.type === 'tool_call' ? { type: 'tool_result', id: frame.id as string, ...answers[frame.name as string] } : undefined);

  it("carry structured_content and a text block's format; drop empty text blocks; an image that is not base64 makes the result an error", async () => {
    const { host: h } = await start(Object.keys(answers).map((name) => tool(name)), answer);
    expect(await h.callTool('structured', {})).toMatchObject({ content: [{ type: 'text', text: 'Berlin 16°C' }], structuredContent: { celsius: 16 }, isError: false });
    expect(await h.callTool('markdown', {})).toMatchObject({ content: [{ type: 'text', text: '## Done', format: 'markdown' }], isError: false });
    const empties = await h.callTool('empties', {});
    expect(empties.content).toEqual([{ type: 'text', text: 'kept' }]);
    expect('structuredContent' in empties).toBe(false);
    expect((await h.callTool('only_empty', {})).content).toEqual([{ type: 'text', text: '(extension returned no content)' }]);
    expect(await h.callTool('bad_image', {})).toMatchObject({
      isError: true,
      content: [
        { type: 'text', text: 'see' },
        { type: 'text', text: '[image block (image/png) dropped: its data is not valid base64]' },
        { type: 'image', mimeType: 'image/png', data: 'iVBORw==' },
      ],
    });
  });
});

describe('notify levels', () => {
  it('an unknown level reaches the callback as info with the raw level (and a diagnostic); known levels have no rawLevel', async () => {
    const notes: NoteView[] = [];
    const { host: h, ext } = await start([], undefined, notes);
    ext.send({ type: 'notify', level: 'debug', message: 'a' });
    ext.send({ type: 'notify', level: 'warn', message: 'b' });
    await expect.poll(() => notes.length).toBe(2);
    expect(notes).toEqual([
      { extension: 'meta', level: 'info', rawLevel: 'debug', message: 'a' },
      { extension: 'meta', level: 'warn', message: 'b' },
    ]);
    expect(h.diagnostics().map((d) => d.code)).toContain('UNKNOWN_LEVEL');
  });
});

describe("zot's submit_slash", () => {
  it('reaches the submitSlash callback trimmed; text without "/" is refused; wrong types are INVALID_FRAME; a flood is bounded by the submit rate limit', async () => {
    const slashes: string[] = [];
    const ext = wireExtension('slash');
    const h = await hosts.start({ inMemory: [ext], rateLimits: { submit: 3, windowMs: 60_000 }, callbacks: { submitSlash: ({ text }) => slashes.push(text) } });
    ext.send({ type: 'submit_slash', text: '  /model sonnet ' });
    ext.send({ type: 'submit_slash', text: 'model sonnet' });
    ext.send({ type: 'submit_slash', text: 7 });
    for (let i = 0; i < 50; i++) ext.send({ type: 'submit_slash', text: `/cd ${i}` });
    await expect.poll(() => slashes.length).toBe(3);
    await expect.poll(() => h.diagnostics().filter((d) => d.extension === 'slash').length).toBe(2);
    expect(slashes).toEqual(['/model sonnet', '/cd 0', '/cd 1']);
    expect(h.diagnostics().map((d) => d.code)).toEqual(['SUBMIT_SLASH_REFUSED', 'INVALID_FRAME']);
    await h.stop();
    expect(h.diagnostics().filter((d) => d.code === 'RATE_LIMITED').map((d) => d.message)).toEqual([expect.stringContaining('slash: 48 submit frames dropped')]);
  });

  it('is ignored (and logged) without a callback, and refused outside the submit scope', async () => {
    const ext = wireExtension('slash');
    const h = await hosts.start({ inMemory: [ext], permissions: { default: { submit: false } } });
    ext.send({ type: 'submit_slash', text: '/help' });
    await expect.poll(() => h.diagnostics().map((d) => d.code)).toContain('PERMISSION_DENIED');
  });
});

describe("zot's operation_key and reconcile (experimental)", () => {
  it('reach tool_call only when the caller passes them; bad values are INVALID_ARGUMENT and nothing is sent', async () => {
    const answer = (frame: WireFrame) => (frame.type === 'tool_call' ? { type: 'tool_result', id: frame.id as string, content: [{ type: 'text', text: 'ok' }], structured_content: frame.reconcile === true ? { state: 'not_started' } : undefined } : undefined);
    const { host: h, ext } = await start([tool('charge')], answer);
    await h.callTool('charge', { cents: 5 });
    await h.callTool('charge', { cents: 5 }, { operationKey: 'op-1' });
    expect(await h.callTool('charge', { cents: 5 }, { operationKey: 'op-1', reconcile: true })).toMatchObject({ structuredContent: { state: 'not_started' } });
    const lines = ext.lines.filter((line) => line.startsWith('{"type":"tool_call"'));
    expect(lines.map((line) => line.replace(/,"id":"[^"]+"/, ''))).toEqual([
      '{"type":"tool_call","name":"charge","args":{"cents":5}}',
      '{"type":"tool_call","name":"charge","args":{"cents":5},"operation_key":"op-1"}',
      '{"type":"tool_call","name":"charge","args":{"cents":5},"operation_key":"op-1","reconcile":true}',
    ]);
    for (const options of [{ operationKey: '' }, { operationKey: 7 as unknown as string }, { reconcile: true }, { operationKey: 'k', reconcile: 'yes' as unknown as boolean }]) {
      expect((await h.callTool('charge', {}, options)).failure?.code, JSON.stringify(options)).toBe('INVALID_ARGUMENT');
    }
    expect(ext.lines.filter((line) => line.startsWith('{"type":"tool_call"'))).toHaveLength(3);
  });
});
