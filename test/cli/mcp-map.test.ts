// How `zot-ext mcp` says the host's tools, results and command outcomes in MCP (src/cli/mcp/bridge.ts),
// for the shapes the fixture of test/cli/mcp.test.ts does not produce; and its usage errors (in-process).
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { toMcpResult, toMcpTool, toPromptResult } from '../../src/cli/mcp/bridge.js';
import { ErrorCode, ExtensionHostError } from '../../src/errors.js';
import type { CommandOutcome, ToolInfo } from '../../src/host/types.js';

const tool = (fields: Partial<ToolInfo>): ToolInfo => ({ name: 't', description: 'd', schema: { type: 'object' }, extension: 'ext', ...fields });

const handled = (fields: Partial<Extract<CommandOutcome, { handled: true }>>): CommandOutcome => ({
  handled: true,
  name: 'cmd',
  args: '',
  extension: 'ext',
  action: 'prompt',
  text: undefined,
  panel: undefined,
  error: undefined,
  failure: undefined,
  ...fields,
});

describe('tools', () => {
  it('a schema that is not an object schema is listed as any object; an output schema that is not one is left out', () => {
    expect(toMcpTool(tool({ schema: { type: 'string' }, outputSchema: { type: 'array' } }))).toEqual({ name: 't', description: 'd', inputSchema: { type: 'object' }, _meta: { 'zot-ext/extension': 'ext' } });
    expect(toMcpTool(tool({ outputSchema: { type: 'object', properties: { n: { type: 'number' } } } })).outputSchema).toEqual({ type: 'object', properties: { n: { type: 'number' } } });
  });

  it('results: markdown as its text, images as image content, isError only when set', () => {
    const result = { extension: 'ext', activatedTools: [], failure: undefined, isError: false };
    expect(toMcpResult({ ...result, content: [{ type: 'text', text: '# md', format: 'markdown' }, { type: 'image', mimeType: 'image/png', data: 'AA==' }] })).toEqual({
      content: [
        { type: 'text', text: '# md' },
        { type: 'image', mimeType: 'image/png', data: 'AA==' },
      ],
    });
    expect(toMcpResult({ ...result, isError: true, content: [{ type: 'text', text: 'no' }], structuredContent: { a: 1 } })).toEqual({ content: [{ type: 'text', text: 'no' }], structuredContent: { a: 1 }, isError: true });
  });
});

describe('commands as prompts', () => {
  it('prompt, insert and display text, then what the extension submitted (not other extensions), are user messages', () => {
    const submitted = [
      { extension: 'ext', text: 'more' },
      { extension: 'other', text: 'not mine' },
      { extension: 'ext', text: '   ' },
    ];
    expect(toPromptResult(handled({ action: 'insert', text: 'inserted', args: 'a b' }), submitted)).toEqual({
      description: '/cmd a b (ext)',
      messages: [
        { role: 'user', content: { type: 'text', text: 'inserted' } },
        { role: 'user', content: { type: 'text', text: 'more' } },
      ],
    });
    expect(toPromptResult(handled({ action: 'noop' }), []).messages).toEqual([]);
    expect(toPromptResult(handled({ action: 'tool_prompt', text: 'look it up', toolPrompt: { toolName: 'x', toolArgs: {}, handled: false } }), []).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'look it up' } }]);
  });

  it('an unknown command, a failure, an error answer and a panel are JSON-RPC errors', () => {
    expect(() => toPromptResult({ handled: false, name: 'gone', args: '' }, [])).toThrow('no extension has the command /gone');
    expect(() => toPromptResult(handled({ failure: new ExtensionHostError(ErrorCode.TIMEOUT, 'ext did not answer') }), [])).toThrow('/cmd: ext did not answer');
    expect(() => toPromptResult(handled({ error: 'bad args' }), [])).toThrow('/cmd: bad args');
    expect(() => toPromptResult(handled({ action: 'open_panel' }), [])).toThrow(/opens a panel, which an MCP prompt cannot show/);
  });
});

describe('zot-ext mcp usage errors (exit 2, before anything starts)', () => {
  async function usage(...args: string[]): Promise<{ code: number; stderr: string }> {
    let stderr = '';
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => void ((stderr += chunk.toString()), done()) });
    const code = await main(['mcp', ...args], { stdout: sink, stderr: sink, stdin: new PassThrough(), env: { PATH: process.env.PATH }, cwd: process.cwd() });
    return { code, stderr };
  }

  it.each([
    [['--port', '8080'], '--port needs --http (stdio has no address)'],
    [['--http', '--port', '1', '--listen', '127.0.0.1:2'], '--port and --listen: give one'],
    [['--http', '--port', '70000'], '--port needs a whole number from 0 to 65535, got "70000"'],
    [['--http', '--listen', '0.0.0.0:8080'], '--listen 0.0.0.0:8080 is not a loopback address: add --token-env VAR'],
    [['--http', '--token-env', 'NO_SUCH_VAR_MCP'], '--token-env NO_SUCH_VAR_MCP: $NO_SUCH_VAR_MCP is not set'],
    [['--http', '--allow-origin', 'https://a.example/path'], '--allow-origin "https://a.example/path" is not an origin'],
  ])('%j', async (args, message) => {
    const { code, stderr } = await usage(...args);
    expect(stderr).toContain(message);
    expect(code).toBe(2);
  });
});
