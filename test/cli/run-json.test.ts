// `zot-ext run --json`: one JSON object per result on stdout, each with a `type`, through the real
// binary against fixture extensions.
import { describe, expect, it } from 'vitest';
import { fixture } from '../helpers/fixtures.js';
import { runCli, useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-run-json-');

const script = (...lines: string[]) => `${lines.join('\n')}\n`;
const runJson = async (paths: string[], input: string) => {
  const r = await runCli(['run', ...paths, '--json', '--home', sandbox.home, '--cwd', sandbox.project], { input });
  // Every stdout line is one JSON object with a type.
  const records = r.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
  for (const record of records) expect(typeof record.type).toBe('string');
  return { ...r, records };
};

describe('run --json', { timeout: 30_000 }, () => {
  it('prints each command outcome, action, tool result, progress and intercept as one object', async () => {
    const r = await runJson(
      [fixture('extensions/weather'), fixture('extensions/guard'), fixture('faults/long-tool')],
      script(
        '/weather Berlin',
        '!weather {"city":"Oslo"}',
        '!enable_forecast',
        '!long {"steps":2,"ms":10}',
        ':intercept tool_call {"tool_name":"bash","tool_args":{"command":"rm -rf /"}}',
        ':prompt You are terse.',
        ':tools',
      ),
    );
    expect(r.code).toBe(0);
    // Notes (long-tool says when it starts) arrive on their own; the rest is in input order.
    const records = r.records.filter((x) => x.type !== 'note');
    const text = "Show today's weather for Berlin in one line.";
    expect(records.slice(0, 4)).toEqual([
      { type: 'prompt', extension: 'weather', text, command: 'Weather' },
      { type: 'command', input: '/weather Berlin', name: 'Weather', args: 'Berlin', handled: true, extension: 'weather', action: 'prompt', text, error: null, failure: null },
      { type: 'tool', input: '!weather {"city":"Oslo"}', name: 'weather', extension: 'weather', isError: false, content: [{ type: 'text', text: 'Oslo: 16°C, fog' }], activatedTools: [], failure: null },
      { type: 'tool', input: '!enable_forecast', name: 'enable_forecast', extension: 'weather', isError: false, content: [{ type: 'text', text: 'Enabled forecast' }], activatedTools: ['forecast'], failure: null },
    ]);
    expect(records.slice(4, 7)).toEqual([
      { type: 'progress', extension: 'long-tool', tool: 'long', requestId: expect.any(String), message: 'step 1', progress: 1, total: 2 },
      { type: 'progress', extension: 'long-tool', tool: 'long', requestId: expect.any(String), message: 'step 2', progress: 2, total: 2 },
      expect.objectContaining({ type: 'tool', name: 'long', content: [{ type: 'text', text: 'done 2' }], failure: null }),
    ]);
    expect(records[7]).toMatchObject({
      type: 'intercept',
      event: 'tool_call',
      block: true,
      blockedBy: 'guard',
      reason: 'refused: matches danger pattern "rm -rf"',
      modified: false,
      text: null,
      trace: [expect.objectContaining({ interceptor: 'guard', decision: 'block' })],
    });
    expect(records[8]).toEqual({ type: 'system_prompt', input: ':prompt You are terse.', systemPrompt: 'You are terse.', changed: false });
    // Tools with their JSON schema as the extension sent it.
    expect(records[9]).toMatchObject({ type: 'tools', input: ':tools' });
    expect((records[9]!.tools as { name: string; schema: unknown }[]).find((t) => t.name === 'weather')).toEqual({
      name: 'weather',
      description: 'Get the current weather for a city.',
      schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      extension: 'weather',
    });
    expect(records).toHaveLength(10);
    // Load results stay text, on stderr.
    expect(r.stderr).toContain('loaded weather 1.0.0 (explicit)');
  });

  it('prints panel events, notes and events; a failed line is an error record and exits 1', async () => {
    const r = await runJson(
      [fixture('extensions/todo'), fixture('extensions/kitchen')],
      script('/todo', ':key down', ':close', ':event turn_start {"step":1}', '!echo {"a":1}', '/nope', '!nope', '{bad'),
    );
    expect(r.code).toBe(1);
    const lines = ['› □ ship panel api', '  □ persist state'];
    const footer = '↑/↓ navigate - x complete - esc close';
    expect(r.records.filter((x) => x.type === 'panel')).toEqual([
      { type: 'panel', event: 'open', extension: 'todo', panelId: 'todos-main', title: 'Todos', lines, footer },
      { type: 'panel', event: 'render', extension: 'todo', panelId: 'todos-main', title: 'Todos', lines: ['  □ ship panel api', '› □ persist state'], footer },
      { type: 'panel', event: 'close', extension: 'todo', panelId: 'todos-main', by: 'user' },
    ]);
    expect(r.records).toContainEqual({ type: 'event', input: ':event turn_start {"step":1}', event: 'turn_start', sentTo: 1 });
    expect(r.records).toContainEqual({ type: 'note', extension: 'kitchen', level: 'info', message: 'event {"type":"event","event":"turn_start","step":1}' });
    // Unknown command: its outcome (not handled), then the error; one error record per failed line.
    const nope = r.records.findIndex((x) => x.input === '/nope');
    expect(r.records.slice(nope, nope + 2)).toEqual([
      { type: 'command', input: '/nope', name: 'nope', args: '', handled: false, extension: null, action: null, text: null, error: null, failure: null },
      { type: 'error', input: '/nope', message: expect.stringMatching(/^unknown command \/nope; registered: \/todo, \/ask, /) },
    ]);
    expect(r.records.filter((x) => x.type === 'error').map((x) => x.input)).toEqual(['/nope', '!nope', '{bad']);
    // Nothing but JSON on stdout; no error text on stderr.
    expect(r.stderr).not.toContain('error:');
  });

  it('keeps control characters escaped in the JSON, the values unchanged', async () => {
    const r = await runJson([fixture('extensions/kitchen')], script('!echo {"s":"\\u001b]0;title\\u0007 \\u009b2J \\u2028"}'));
    const line = r.stdout.split('\n').find((l) => l.includes('"type":"tool"'))!;
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    // kitchen's echo answers JSON.stringify(args): C0 escaped by it, C1 and U+2028 raw in the text.
    expect(JSON.parse(line)).toMatchObject({ content: [{ type: 'text', text: JSON.stringify({ s: '\u001b]0;title\u0007 \u009b2J \u2028' }) }] });
  });
});
