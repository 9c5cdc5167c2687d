import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExtensionHostError, type ToolInfo, type ToolResult, toAnthropicToolResult, toAnthropicTools, toOpenAIToolResult, toOpenAITools } from '../../src/index.js';
import { ROOT } from '../helpers/fixtures.js';

const weather: ToolInfo = {
  name: 'weather',
  description: 'Get the current weather for a city.',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  extension: 'weather',
};
const bare: ToolInfo = { name: 'ping', description: '', schema: {}, extension: 'kitchen' };

const result = (content: ToolResult['content'], isError = false): ToolResult => ({
  content,
  isError,
  extension: 'kitchen',
  activatedTools: [],
  failure: undefined,
});
const png = { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' } as const;
const bmp = { type: 'image', mimeType: 'image/bmp', data: 'Qk0=' } as const;

describe('toAnthropicTools', () => {
  it('maps name, description and schema, in order', () => {
    expect(toAnthropicTools([weather, bare])).toEqual([
      { name: 'weather', description: 'Get the current weather for a city.', input_schema: weather.schema },
      { name: 'ping', input_schema: { type: 'object' } },
    ]);
    expect(toAnthropicTools([])).toEqual([]);
  });

  it('always sends an object schema and never mutates the host schema', () => {
    const odd: ToolInfo = { ...bare, schema: { type: 'string', description: 'x' } };
    expect(toAnthropicTools([odd])[0]?.input_schema).toEqual({ type: 'object', description: 'x' });
    expect(odd.schema).toEqual({ type: 'string', description: 'x' });
  });
});

describe('toAnthropicToolResult', () => {
  it('text and base64 images, in order', () => {
    expect(toAnthropicToolResult('toolu_1', result([{ type: 'text', text: 'Lisbon: 16°C, fog' }, png]))).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: [
        { type: 'text', text: 'Lisbon: 16°C, fog' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      ],
    });
  });

  it('is_error only on failures', () => {
    const failed = toAnthropicToolResult('toolu_2', result([{ type: 'text', text: 'failed on purpose' }], true));
    expect(failed).toEqual({ type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'failed on purpose' }], is_error: true });
    expect('is_error' in toAnthropicToolResult('toolu_3', result([{ type: 'text', text: 'ok' }]))).toBe(false);
  });

  it('empty content and empty text blocks leave no content (the API rejects empty text)', () => {
    expect(toAnthropicToolResult('toolu_4', result([]))).toEqual({ type: 'tool_result', tool_use_id: 'toolu_4' });
    expect(toAnthropicToolResult('toolu_5', result([{ type: 'text', text: '' }], true))).toEqual({ type: 'tool_result', tool_use_id: 'toolu_5', is_error: true });
  });

  it('normalises image/jpg and turns formats the API refuses into a placeholder', () => {
    const out = toAnthropicToolResult('toolu_6', result([{ type: 'image', mimeType: 'IMAGE/JPG', data: '/9j/' }, bmp]));
    expect(out.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/' } },
      { type: 'text', text: '[image image/bmp omitted: unsupported image type]' },
    ]);
  });
});

describe('toOpenAITools', () => {
  it('chat: function tools, strict only when asked', () => {
    expect(toOpenAITools([weather, bare], { api: 'chat' })).toEqual([
      { type: 'function', function: { name: 'weather', description: 'Get the current weather for a city.', parameters: weather.schema } },
      { type: 'function', function: { name: 'ping', parameters: {} } },
    ]);
    expect(toOpenAITools([bare], { api: 'chat', strict: true })).toEqual([{ type: 'function', function: { name: 'ping', parameters: {}, strict: true } }]);
  });

  it('responses: flat function tools, strict false by default', () => {
    expect(toOpenAITools([weather, bare], { api: 'responses' })).toEqual([
      { type: 'function', name: 'weather', description: 'Get the current weather for a city.', parameters: weather.schema, strict: false },
      { type: 'function', name: 'ping', parameters: {}, strict: false },
    ]);
    expect(toOpenAITools([bare], { api: 'responses', strict: true })[0]).toMatchObject({ strict: true });
    expect(toOpenAITools([], { api: 'responses' })).toEqual([]);
  });

  it('copies the schema instead of sharing it', () => {
    const [tool] = toOpenAITools([weather], { api: 'responses' });
    expect(tool?.parameters).toEqual(weather.schema);
    expect(tool?.parameters).not.toBe(weather.schema);
  });
});

describe('toOpenAIToolResult: chat', () => {
  it('text blocks joined by newlines in a tool message', () => {
    expect(toOpenAIToolResult('call_1', result([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]), { api: 'chat' })).toEqual({
      message: { role: 'tool', tool_call_id: 'call_1', content: 'a\nb' },
      followUp: undefined,
    });
  });

  it('images become placeholders by default', () => {
    const { message, followUp } = toOpenAIToolResult('call_2', result([{ type: 'text', text: 'shot:' }, png]), { api: 'chat' });
    expect(message.content).toBe('shot:\n[image image/png omitted: a tool message holds text only]');
    expect(followUp).toBeUndefined();
  });

  it("images: 'follow-up' carries them in a user message", () => {
    const { message, followUp } = toOpenAIToolResult('call_3', result([png, bmp]), { api: 'chat', images: 'follow-up' });
    expect(message.content).toBe('[image 1 of this result: in the next user message]\n[image image/bmp omitted: unsupported image type]');
    expect(followUp).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Images returned by tool call call_3:' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      ],
    });
  });

  it('errors start with the error prefix; empty content is an empty string', () => {
    const failed = toOpenAIToolResult('call_4', result([{ type: 'text', text: 'failed on purpose' }], true), { api: 'chat' });
    expect(failed.message.content).toBe('Error: failed on purpose');
    expect(toOpenAIToolResult('call_5', result([], true), { api: 'chat' }).message.content).toBe('Error:');
    expect(toOpenAIToolResult('call_6', result([], true), { api: 'chat', errorPrefix: '' }).message.content).toBe('');
    expect(toOpenAIToolResult('call_7', result([]), { api: 'chat' }).message.content).toBe('');
  });
});

describe('toOpenAIToolResult: responses', () => {
  it('text only: output is a string', () => {
    expect(toOpenAIToolResult('call_1', result([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]), { api: 'responses' })).toEqual({
      type: 'function_call_output',
      call_id: 'call_1',
      output: 'a\nb',
    });
    expect(toOpenAIToolResult('call_2', result([]), { api: 'responses' }).output).toBe('');
  });

  it('with images: output is a list of input_text and input_image parts', () => {
    expect(toOpenAIToolResult('call_3', result([{ type: 'text', text: 'shot:' }, png, bmp]), { api: 'responses' }).output).toEqual([
      { type: 'input_text', text: 'shot:' },
      { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
      { type: 'input_text', text: '[image image/bmp omitted: unsupported image type]' },
    ]);
  });

  it('errors start with the error prefix, also in a list', () => {
    expect(toOpenAIToolResult('call_4', result([{ type: 'text', text: 'boom' }], true), { api: 'responses' }).output).toBe('Error: boom');
    expect(toOpenAIToolResult('call_5', result([{ type: 'text', text: 'boom' }, png], true), { api: 'responses', errorPrefix: 'FAILED: ' }).output).toEqual([
      { type: 'input_text', text: 'FAILED: boom' },
      { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
    ]);
    expect(toOpenAIToolResult('call_6', result([png], true), { api: 'responses' }).output).toEqual([
      { type: 'input_text', text: 'Error:' },
      { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
    ]);
  });
});

describe('OpenAI options from JavaScript', () => {
  // Untyped callers (JavaScript, `any`) get a typed INVALID_ARGUMENT naming the option, never a raw TypeError.
  const untyped = (value: unknown) => value as { api: 'chat' };
  it.each([
    ['no options', undefined],
    ['null', null],
    ['no api', {}],
    ['an unknown api', { api: 'completions' }],
  ])('toOpenAIToolResult and toOpenAITools with %s: INVALID_ARGUMENT', (_what, options) => {
    for (const call of [() => toOpenAIToolResult('call_1', result([{ type: 'text', text: 'a' }]), untyped(options)), () => toOpenAITools([weather], untyped(options))]) {
      let thrown: unknown;
      try {
        call();
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ExtensionHostError);
      expect(thrown).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(`options.api must be 'chat' or 'responses'`) as unknown });
    }
  });
});

describe('the published types stand alone', () => {
  it('dist d.ts files do not import the provider SDKs', () => {
    for (const file of ['dist/index.d.ts', 'dist/index.d.cts']) {
      expect(readFileSync(path.join(ROOT, file), 'utf8')).not.toMatch(/from ['"](?:openai|@anthropic-ai\/sdk)/);
    }
  });
});

describe("zot's tool metadata and result additions (issue 30)", () => {
  it('reach no provider request: the model gets the tool and its text as zot gives them', () => {
    const meta: ToolInfo = { ...weather, outputSchema: { type: 'object' }, namespace: 'weather', namespaceDescription: 'd', namespaceInstructions: 'i', exposure: 'codemode', replay: 'safe' };
    expect(toAnthropicTools([meta])).toEqual(toAnthropicTools([weather]));
    expect(toOpenAITools([meta], { api: 'responses' })).toEqual(toOpenAITools([weather], { api: 'responses' }));
    const rich: ToolResult = { ...result([{ type: 'text', text: '## 16', format: 'markdown' }]), structuredContent: { celsius: 16 } };
    const plain = result([{ type: 'text', text: '## 16' }]);
    expect(toAnthropicToolResult('u1', rich)).toEqual(toAnthropicToolResult('u1', plain));
    expect(toOpenAIToolResult('c1', rich, { api: 'chat' })).toEqual(toOpenAIToolResult('c1', plain, { api: 'chat' }));
    expect(toOpenAIToolResult('c1', rich, { api: 'responses' })).toEqual(toOpenAIToolResult('c1', plain, { api: 'responses' }));
  });
});
