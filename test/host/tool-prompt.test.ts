// zot's tool_prompt command action (issue 30): handed to the embedder's toolPrompt callback; without
// one, a typed warning and an outcome that says it was not handled; malformed answers are BAD_RESPONSE.
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolPromptAction } from '../../src/index.js';
import { defineExtension, toolPrompt } from '../../src/sdk/index.js';
import { createTestHost, type TestHost } from '../../src/testing/index.js';

let t: TestHost | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

function releaseNotes() {
  return defineExtension({ name: 'notes' })
    .command('release', (args) => toolPrompt('then summarise it', 'skill', { name: `team:${args || 'release-notes'}` }))
    .command('raw', () => ({ action: 'tool_prompt', prompt: ' ', toolName: 'skill', toolArgs: {} }));
}

describe('tool_prompt', () => {
  it('hands the prompt, the tool and its args to the toolPrompt callback (and the tool:prompt event)', async () => {
    const seen: ToolPromptAction[] = [];
    t = await createTestHost({ extensions: [releaseNotes()], callbacks: { toolPrompt: (action) => seen.push(action) } });
    const events: ToolPromptAction[] = [];
    t.host.on('tool:prompt', (action) => events.push(action));
    const outcome = await t.command('/release');
    const action = { extension: 'notes', command: 'release', prompt: 'then summarise it', toolName: 'skill', toolArgs: { name: 'team:release-notes' } };
    expect(seen).toEqual([action]);
    expect(events).toEqual([action]);
    expect(outcome).toMatchObject({ handled: true, action: 'tool_prompt', text: 'then summarise it', toolPrompt: { toolName: 'skill', toolArgs: { name: 'team:release-notes' }, handled: true }, failure: undefined });
    expect(t.record.prompts).toEqual([]);
  });

  it('without the callback: a TOOL_PROMPT_UNHANDLED warning and handled: false', async () => {
    t = await createTestHost({ extensions: [releaseNotes()] });
    const warning = t.nextWarning();
    const outcome = await t.command('/release x');
    expect(outcome).toMatchObject({ action: 'tool_prompt', toolPrompt: { toolName: 'skill', toolArgs: { name: 'team:x' }, handled: false } });
    expect(await warning).toMatchObject({ code: 'TOOL_PROMPT_UNHANDLED', extension: 'notes' });
  });

  it('an empty prompt is a BAD_RESPONSE failure, and nothing is handed over', async () => {
    const seen: ToolPromptAction[] = [];
    t = await createTestHost({ extensions: [releaseNotes()], callbacks: { toolPrompt: (action) => seen.push(action) } });
    const outcome = await t.command('/raw');
    expect(outcome).toMatchObject({ action: 'tool_prompt', failure: { code: 'BAD_RESPONSE' } });
    expect(seen).toEqual([]);
  });
});
