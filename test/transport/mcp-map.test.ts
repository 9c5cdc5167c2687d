// How MCP tools, prompts and results read as our frames (src/transport/mcp-map.ts): pure mapping.
import { describe, expect, it } from 'vitest';
import { hostToolName, progressOf, promptArguments, promptCommandName, promptText, registerCommandOf, registerToolOf, toolErrorOf, toolResultOf } from '../../src/transport/mcp-map.js';

describe('MCP tools and prompts as registrations', () => {
  it('names: the prefix first, characters a model provider refuses as _', () => {
    expect(hostToolName('ev_', 'get-sum')).toBe('ev_get-sum');
    expect(hostToolName('', 'files.read/v2')).toBe('files_read_v2');
    expect(promptCommandName('srv', 'my prompt!')).toBe('srv:my_prompt_');
  });

  it('a tool: description (else title), input and output schemas, annotations with the title', () => {
    expect(registerToolOf('t', { name: 't', title: 'T', inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, annotations: { readOnlyHint: true } })).toEqual({
      type: 'register_tool',
      name: 't',
      description: 'T',
      schema: { type: 'object' },
      output_schema: { type: 'object' },
      annotations: { readOnlyHint: true, title: 'T' },
    });
    expect(registerToolOf('u', { name: 'u', description: 'U', inputSchema: 'not a schema' })).toEqual({ type: 'register_tool', name: 'u', description: 'U' });
  });

  it('a prompt: its arguments named in the description (optional ones in brackets)', () => {
    expect(registerCommandOf('s:p', { name: 'p', description: 'Weather', arguments: [{ name: 'city', required: true }, { name: 'state' }] })).toEqual({ type: 'register_command', name: 's:p', description: 'Weather (args: city [state])' });
  });
});

describe('command arguments as prompt arguments', () => {
  const prompt = { name: 'p', arguments: [{ name: 'city' }, { name: 'state' }] };
  it.each([
    ['Berlin', { city: 'Berlin' }],
    ['New York NY', { city: 'New', state: 'York NY' }],
    ['city="New York" state=NY', { city: 'New York', state: 'NY' }],
    ['state=CA', { state: 'CA' }],
    ['  ', {}],
    ['a=b', { city: 'a=b' }],
  ])('%j', (text, expected) => {
    expect(promptArguments(text, prompt)).toEqual(expected);
  });
  it('a prompt without arguments gets none', () => {
    expect(promptArguments('anything', { name: 'p' })).toEqual({});
  });
});

describe('results', () => {
  it('text and images as they are, resources as text, other blocks by type; structured content and isError', () => {
    const result = toolResultOf('0:1', {
      content: [
        { type: 'text', text: 'hi' },
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        { type: 'resource', resource: { uri: 'file:///a', text: 'file a' } },
        { type: 'resource_link', uri: 'file:///b', name: 'b' },
        { type: 'audio', mimeType: 'audio/wav', data: 'AAAA' },
        'garbage',
      ],
      structuredContent: { n: 1 },
      isError: true,
    });
    expect(result).toEqual({
      type: 'tool_result',
      id: '0:1',
      content: [{ type: 'text', text: 'hi' }, { type: 'image', mime_type: 'image/png', data: 'AAAA' }, { type: 'text', text: 'file a' }, { type: 'text', text: 'b: file:///b' }, { type: 'audio' }],
      is_error: true,
      structured_content: { n: 1 },
    });
    expect(toolResultOf('0:2', null)).toEqual({ type: 'tool_result', id: '0:2', content: [] });
    expect(toolErrorOf('0:3', new Error('Tool x not found'))).toEqual({ type: 'tool_result', id: '0:3', content: [{ type: 'text', text: 'MCP error: Tool x not found' }], is_error: true });
  });

  it('a prompt result: the text of its messages', () => {
    expect(promptText({ messages: [{ role: 'user', content: { type: 'text', text: 'one' } }, { role: 'user', content: { type: 'image', data: '', mimeType: 'image/png' } }, { role: 'assistant', content: { type: 'text', text: 'two' } }] })).toBe('one\n\ntwo');
  });

  it('progress: finite numbers, a message within the limit', () => {
    expect(progressOf('0:1', { progress: 1, total: Infinity, message: 'x'.repeat(2000) })).toEqual({ type: 'progress', id: '0:1', progress: 1, message: 'x'.repeat(1000) });
  });
});
