// test/fixtures/wire/open-panel.transcript (zot's spontaneous open_panel, spec section 1) replayed
// against the host: a scripted in-process extension writes the exact lines, the host's frames and
// results are checked, and the panel callbacks show what the UI got.
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterAll, expect, it } from 'vitest';
import type { ExtensionHost } from '../../src/host/host.js';
import type { PanelKey, ToolResult } from '../../src/host/types.js';
import { hostKit, textOf } from '../helpers/host.js';
import { collectFrames } from '../helpers/memory-extension.js';
import { MEMORY_WAIT_MS, withDeadline } from '../helpers/wait.js';

const TRANSCRIPT = new URL('../fixtures/wire/open-panel.transcript', import.meta.url);
const kit = hostKit();
const streams: PassThrough[] = [];
afterAll(() => {
  for (const stream of streams) stream.end();
});

type Json = Record<string, unknown>;

/** `expected`'s keys in `actual`, "$id" binding (or standing for) the host's id. */
function check(actual: Json, expected: Json, vars: Map<string, unknown>): void {
  for (const [key, value] of Object.entries(expected)) {
    if (value === '$id') {
      if (!vars.has('$id') || key === 'id') vars.set('$id', actual[key]);
      continue;
    }
    expect({ [key]: actual[key] }).toEqual({ [key]: value });
  }
}

it('replays the approve_action exchange line for line', async () => {
  const lines = readFileSync(TRANSCRIPT, 'utf8').split('\n').filter((line) => line.length > 0 && !line.startsWith('#'));
  const toHost = new PassThrough();
  const fromHost = new PassThrough();
  streams.push(toHost, fromHost);
  let wake: (() => void) | undefined;
  const received = collectFrames(fromHost, () => wake?.());
  const nextFrame = () =>
    withDeadline<Json>('the next host frame', MEMORY_WAIT_MS, (resolve) => {
      const take = () => {
        const frame = received.shift();
        if (frame !== undefined) resolve(frame);
      };
      wake = take;
      take();
      return () => {
        wake = undefined;
      };
    });
  const { host, rec } = kit.create({ inMemory: [{ name: 'approve', connect: () => ({ input: fromHost, output: toHost }) }] });
  const vars = new Map<string, unknown>();
  let started: Promise<unknown> | undefined;
  let pending: Promise<ToolResult> | undefined;
  for (const line of lines) {
    const [mark, rest] = [line.slice(0, 1), line.slice(2)];
    if (mark === '<') {
      toHost.write(`${rest.replaceAll('"$id"', JSON.stringify(vars.get('$id') ?? '$id'))}\n`);
      if (started === undefined) started = host.start();
    } else if (mark === '>') {
      check(await nextFrame(), JSON.parse(rest) as Json, vars);
    } else if (mark === '!') {
      await started;
      if (rest.startsWith('call ')) vars.delete('$id');
      pending = act(host, rest) ?? pending;
    } else if (mark === '=') {
      expect(await pending).toMatchObject(JSON.parse(rest) as Json);
    } else throw new Error(`bad transcript line: ${line}`);
  }
  expect(received).toEqual([]);
  expect(rec.calls.filter((c) => c.kind.endsWith('Panel')).map((c) => [c.kind, (c.arg as { panelId: string }).panelId])).toEqual([
    ['openPanel', 'approve-1'],
    ['closePanel', 'approve-1'],
    ['openPanel', 'approve-2'],
    ['renderPanel', 'approve-2'],
  ]);
  expect(host.tools()).toEqual([expect.objectContaining({ name: 'approve_action', interactive: true })]);
});

function act(host: ExtensionHost, command: string): Promise<ToolResult> | undefined {
  const [verb, ...words] = command.split(' ');
  if (verb === 'call') return host.callTool(words[0]!, JSON.parse(words.slice(1).join(' ')) as Json);
  if (verb === 'key') expect(host.panelKey(words[0]!, words[1] as PanelKey, words[2])).toBe(true);
  else if (verb === 'close') expect(host.closePanel(words[0]!)).toBe(true);
  else throw new Error(`unknown action ${command}`);
  return undefined;
}

it('a snapshot-era extension (no open_panel, no interactive) sees exactly the bytes it saw before', async () => {
  const toHost = new PassThrough();
  const fromHost = new PassThrough();
  streams.push(toHost, fromHost);
  let bytes = '';
  fromHost.setEncoding('utf8');
  fromHost.on('data', (chunk: string) => (bytes += chunk));
  /** Resolves once the host wrote `needle`. */
  const written = (needle: string) =>
    withDeadline(needle, MEMORY_WAIT_MS, (resolve) => {
      const look = () => bytes.includes(needle) && resolve(undefined);
      fromHost.on('data', look);
      look();
      return () => fromHost.off('data', look);
    });
  const { host, rec } = kit.create({ hostVersion: '1.0.0', provider: 'p', model: 'm', inMemory: [{ name: 'old', dir: '/ext/old', connect: () => ({ input: fromHost, output: toHost }) }] });
  toHost.write('{"type":"hello","name":"old"}\n{"type":"register_tool","name":"t"}\n{"type":"register_command","name":"c"}\n{"type":"ready"}\n');
  await host.start();
  const result = host.callTool('t', { a: 1 });
  await written('"tool_call"');
  const toolId = /"tool_call".*"id":("[^"]+")/.exec(bytes)![1]!;
  toHost.write(`{"type":"tool_result","id":${toolId},"content":[{"type":"text","text":"ok"}]}\n`);
  expect(textOf(await result)).toBe('ok');
  const outcome = host.runCommand('/c x');
  await written('"command_invoked"');
  const commandId = /"command_invoked".*"id":("[^"]+")/.exec(bytes)![1]!;
  toHost.write(`{"type":"command_response","id":${commandId},"action":"open_panel","open_panel":{"id":"m","lines":["a"]}}\n`);
  expect(await outcome).toMatchObject({ handled: true, action: 'open_panel' });
  expect(host.panelKey('m', 'rune', 'y')).toBe(true);
  expect(host.closePanel('m')).toBe(true);
  await rec.waitFor('openPanel');
  await written('"panel_close"');
  expect(bytes).toBe(
    [
      `{"type":"hello_ack","protocol_version":1,"zot_version":"1.0.0","provider":"p","model":"m","cwd":${JSON.stringify(kit.dir)},"extension_dir":"/ext/old","data_dir":"/ext/old"}`,
      `{"type":"tool_call","name":"t","args":{"a":1},"id":${toolId}}`,
      `{"type":"command_invoked","name":"c","args":"x","id":${commandId}}`,
      '{"type":"panel_key","panel_id":"m","key":"rune","text":"y"}',
      '{"type":"panel_close","panel_id":"m"}',
      '',
    ].join('\n'),
  );
});
