import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineExtension, image, markdown, text, toolError } from '../../src/sdk/index.js';
import { gate } from '../helpers/wait.js';
import { startWithTools, useFakeHosts } from './harness.js';

const start = useFakeHosts();

const withTools = (define: Parameters<typeof startWithTools>[1]) => startWithTools(start, define);

describe('tools', () => {
  it('sends a JSON Schema as is and hands the args over unvalidated', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    let got: unknown;
    const { host, registrations } = await withTools((ext) => {
      ext.tool('weather', { description: 'Current weather.', schema }, (args) => {
        got = args;
        return text(`${String(args.city)}: sunny`);
      });
    });
    expect(registrations).toEqual([{ type: 'register_tool', name: 'weather', description: 'Current weather.', schema }]);
    const result = await host.callTool('weather', { city: 42 });
    expect(got).toEqual({ city: 42 });
    expect(result).toEqual({ type: 'tool_result', id: result.id, content: [{ type: 'text', text: '42: sunny' }] });
  });

  it('defaults a missing schema to an empty object schema', async () => {
    const { registrations } = await withTools((ext) => {
      ext.tool('ping', { description: 'no args' }, () => 'pong');
    });
    expect(registrations[0]).toMatchObject({ schema: { type: 'object', properties: {} } });
  });

  it('converts a zod schema to JSON Schema without $schema, input side (defaults are optional)', async () => {
    const { registrations } = await withTools((ext) => {
      ext.tool(
        'forecast',
        {
          description: 'Forecast',
          schema: z.object({
            city: z.string().describe('City name'),
            days: z.number().int().min(1).max(7).default(3),
            units: z.enum(['c', 'f']).optional(),
          }),
        },
        () => 'ok',
      );
    });
    const schema = registrations[0]?.schema as Record<string, unknown>;
    expect(schema).not.toHaveProperty('$schema');
    expect(schema).toMatchObject({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name' },
        days: { type: 'integer', minimum: 1, maximum: 7, default: 3 },
        units: { type: 'string', enum: ['c', 'f'] },
      },
      required: ['city'],
    });
  });

  it('validates args against the zod schema before the handler, which gets parsed values', async () => {
    const calls: unknown[] = [];
    const { host } = await withTools((ext) => {
      ext.tool('add', { schema: z.object({ a: z.number(), b: z.number(), note: z.string().default('-') }) }, (args) => {
        calls.push(args);
        return text(String(args.a + args.b));
      });
    });
    expect(await host.callTool('add', { a: 2, b: 3 })).toMatchObject({ content: [{ type: 'text', text: '5' }] });
    expect(calls).toEqual([{ a: 2, b: 3, note: '-' }]);

    const bad = await host.callTool('add', { a: 'two', c: true });
    expect(calls).toHaveLength(1);
    expect(bad.is_error).toBe(true);
    const message = (bad.content as { text: string }[])[0]?.text ?? '';
    expect(message).toMatch(/^invalid arguments for tool "add": /);
    expect(message).toContain('a: Invalid input: expected number, received string');
    expect(message).toContain('b: Invalid input: expected number, received undefined');
  });

  it('names nested fields in validation errors', async () => {
    const { host } = await withTools((ext) => {
      ext.tool('batch', { schema: z.object({ items: z.array(z.object({ name: z.string() })) }) }, () => 'ok');
    });
    const bad = await host.callTool('batch', { items: [{ name: 'a' }, { name: 1 }] });
    expect((bad.content as { text: string }[])[0]?.text).toContain('items[1].name: ');
  });

  it('accepts every return shape', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
    const { host } = await withTools((ext) => {
      ext.tool('str', {}, () => 'plain');
      ext.tool('block', {}, () => image(png, 'image/png'));
      ext.tool('blocks', {}, () => [text('a'), text('b')]);
      ext.tool('full', {}, () => ({ content: 'failed softly', isError: true }));
      ext.tool('err', {}, () => toolError('nope'));
      ext.tool('none', {}, () => undefined);
    });
    expect((await host.callTool('str', {})).content).toEqual([{ type: 'text', text: 'plain' }]);
    expect((await host.callTool('block', {})).content).toEqual([
      { type: 'image', mime_type: 'image/png', data: Buffer.from(png).toString('base64') },
    ]);
    expect((await host.callTool('blocks', {})).content).toEqual([text('a'), text('b')]);
    expect(await host.callTool('full', {})).toMatchObject({ content: [text('failed softly')], is_error: true });
    expect(await host.callTool('err', {})).toMatchObject({ content: [text('nope')], is_error: true });
    const none = await host.callTool('none', {});
    expect(none.content).toEqual([]);
    expect(none).not.toHaveProperty('is_error');
  });

  it('answers a throwing handler with is_error and keeps running', async () => {
    const { host } = await withTools((ext) => {
      ext.tool('flaky', {}, async () => {
        throw new Error('upstream 503');
      });
      ext.tool('ok', {}, () => 'fine');
    });
    expect(await host.callTool('flaky', {})).toMatchObject({
      is_error: true,
      content: [text('tool "flaky" failed: upstream 503')],
    });
    expect(host.stderr).toContain('upstream 503');
    expect(await host.callTool('ok', {})).toMatchObject({ content: [text('fine')] });
  });

  it('answers an unknown tool and a malformed tool_call with is_error', async () => {
    const { host } = await withTools(() => {});
    expect(await host.callTool('ghost', {})).toMatchObject({ is_error: true, content: [text('unknown tool "ghost"')] });
    host.send({ type: 'tool_call', id: 't-bad', name: 'ghost', args: 'not an object' });
    expect(await host.answer('t-bad')).toMatchObject({ type: 'tool_result', is_error: true });
    expect(host.stderr).toContain('invalid tool_call frame');
  });

  it('registers deferred tools and activates them through a tool result', async () => {
    const { host, registrations } = await withTools((ext) => {
      ext.tool('weather_lookup', { description: 'deferred', deferred: true }, () => 'sunny');
      ext.tool('enable_weather', { description: 'loader' }, () => ({
        content: 'Enabled weather lookup',
        activateTools: ['weather_lookup'],
      }));
    });
    expect(registrations[0]).toMatchObject({ name: 'weather_lookup', deferred: true });
    expect(registrations[1]).not.toHaveProperty('deferred');
    expect(await host.callTool('enable_weather', {})).toMatchObject({
      content: [text('Enabled weather lookup')],
      activate_tools: ['weather_lookup'],
    });
  });

  it('runs tool calls concurrently: a slow one does not delay a fast one', async () => {
    const slowGate = gate();
    const { host } = await withTools((ext) => {
      ext.tool('slow', {}, async () => {
        await slowGate.promise;
        return 'slow done';
      });
      ext.tool('fast', {}, () => 'fast done');
    });
    const slowId = host.id('tool');
    host.send({ type: 'tool_call', id: slowId, name: 'slow', args: {} });
    expect(await host.callTool('fast', {})).toMatchObject({ content: [text('fast done')] });
    expect(host.received.some((f) => f.id === slowId)).toBe(false);
    slowGate.open();
    expect(await host.answer(slowId)).toMatchObject({ content: [text('slow done')] });
  });

  it('rejects bad tool definitions when they are made', () => {
    const ext = defineExtension({ name: 'defs' });
    ext.tool('dup', {}, () => 'x');
    expect(() => ext.tool('dup', {}, () => 'x')).toThrow(expect.objectContaining({ code: 'INVALID_DEFINITION' }));
    expect(() => ext.tool('has space', {}, () => 'x')).toThrow(/1-64 characters/);
    expect(() => ext.tool('str', { schema: z.string() }, () => 'x')).toThrow(/must describe an object/);
    expect(() => ext.tool('date', { schema: z.object({ when: z.date() }) }, () => 'x')).toThrow(/cannot be expressed as JSON Schema/);
  });
});

describe("zot's tool metadata and results (issue 30)", () => {
  it('sends the metadata given (wire names, nothing else) and returns structured_content and markdown blocks', async () => {
    const { host, registrations } = await withTools((ext) => {
      ext.tool(
        'forecast',
        { description: 'Forecast', outputSchema: { type: 'object' }, namespace: 'weather', namespaceDescription: 'd', namespaceInstructions: 'i', exposure: 'codemode', replay: 'safe' },
        () => ({ content: [markdown('## 16°C')], structuredContent: { celsius: 16 } }),
      );
      ext.tool('plain', {}, () => 'x');
    });
    expect(registrations).toEqual([
      { type: 'register_tool', name: 'forecast', description: 'Forecast', schema: { type: 'object', properties: {} }, output_schema: { type: 'object' }, namespace: 'weather', namespace_description: 'd', namespace_instructions: 'i', exposure: 'codemode', replay: 'safe' },
      { type: 'register_tool', name: 'plain', schema: { type: 'object', properties: {} } },
    ]);
    const result = await host.callTool('forecast', {});
    expect(result).toEqual({ type: 'tool_result', id: result.id, content: [{ type: 'text', text: '## 16°C', format: 'markdown' }], structured_content: { celsius: 16 } });
  });
});
