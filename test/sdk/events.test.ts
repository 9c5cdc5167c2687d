import { describe, expect, it } from 'vitest';
import { defineExtension, type CustomEventPayload, type EventPayloads } from '../../src/sdk/index.js';
import { useFakeHosts } from './harness.js';

const start = useFakeHosts();

/** A handler that pushes each payload without its `raw` onto `seen`. */
const recorder = (seen: unknown[]) => (event: { raw: unknown }) => {
  const { raw: _raw, ...rest } = event;
  seen.push(rest);
};

describe('events', () => {
  it('subscribes to what has handlers and delivers typed, camelCase payloads', async () => {
    const ext = defineExtension({ name: 'observer' });
    const seen: unknown[] = [];
    const record = recorder(seen);
    ext.on('session_start', record);
    ext.on('turn_start', (e) => record(e));
    ext.on('turn_end', record);
    ext.on('tool_call', record);
    ext.on('tool_confirmation_requested', record);
    ext.on('assistant_message', record);
    const host = start(ext);
    const { registrations } = await host.handshake();
    expect(registrations).toEqual([
      {
        type: 'subscribe',
        events: ['session_start', 'turn_start', 'turn_end', 'tool_call', 'tool_confirmation_requested', 'assistant_message'],
        intercept: [],
      },
    ]);

    host.send({ type: 'event', event: 'session_start' });
    host.send({ type: 'event', event: 'turn_start', step: 1 });
    host.send({ type: 'event', event: 'tool_call', tool_id: 't1', tool_name: 'read', tool_args: { path: 'foo.go' } });
    host.send({ type: 'event', event: 'tool_confirmation_requested', tool_id: 't2', tool_name: 'bash', tool_preview: 'ls' });
    host.send({ type: 'event', event: 'assistant_message', text: 'hi' });
    host.send({ type: 'event', event: 'turn_end', stop: 'end_turn' });
    // A command round trip after the events proves they were all handled (lines are read in order).
    ext.command('probe', () => undefined);
    await host.command('probe');

    expect(seen).toEqual([
      { event: 'session_start' },
      { event: 'turn_start', step: 1 },
      { event: 'tool_call', toolId: 't1', toolName: 'read', args: { path: 'foo.go' } },
      { event: 'tool_confirmation_requested', toolId: 't2', toolName: 'bash', preview: 'ls' },
      { event: 'assistant_message', text: 'hi' },
      { event: 'turn_end', stop: 'end_turn' },
    ]);
  });

  it('passes custom events and unknown fields through as raw', async () => {
    const ext = defineExtension({ name: 'custom' });
    const got: Array<CustomEventPayload | EventPayloads['turn_start']> = [];
    ext.on('deploy_finished', (e) => {
      got.push(e);
    });
    ext.on('turn_start', (e) => {
      got.push(e);
    });
    ext.command('probe', () => undefined);
    const host = start(ext);
    await host.handshake();
    host.send({ type: 'event', event: 'deploy_finished', target: 'prod' });
    host.send({ type: 'event', event: 'turn_start', step: 2, model_hint: 'fast' });
    await host.command('probe');
    expect(got).toEqual([
      { event: 'deploy_finished', raw: { type: 'event', event: 'deploy_finished', target: 'prod' } },
      { event: 'turn_start', step: 2, raw: { type: 'event', event: 'turn_start', step: 2, model_hint: 'fast' } },
    ]);
  });

  it('runs every handler of an event; one that throws is logged and the others still run', async () => {
    const ext = defineExtension({ name: 'many' });
    const calls: string[] = [];
    ext.on('turn_end', () => {
      throw new Error('handler one broke');
    });
    ext.on('turn_end', async () => {
      calls.push('two');
    });
    ext.command('probe', () => undefined);
    const host = start(ext);
    const { registrations } = await host.handshake();
    expect(registrations.filter((f) => f.type === 'subscribe')).toEqual([{ type: 'subscribe', events: ['turn_end'], intercept: [] }]);
    host.send({ type: 'event', event: 'turn_end', stop: 'end_turn' });
    await host.waitForStderr('handler one broke');
    await host.command('probe');
    expect(calls).toEqual(['two']);
  });

  it("types the events zot added, with its lifecycle fields; a field left out is its zero value", async () => {
    const ext = defineExtension({ name: 'upstream' });
    const seen: unknown[] = [];
    const record = recorder(seen);
    for (const name of ['session_end', 'user_prompt_submit', 'tool_result', 'permission_decision', 'pre_compact', 'post_compact', 'subagent_start', 'subagent_stop'] as const) {
      ext.on(name, record);
    }
    ext.on('turn_start', record);
    ext.command('probe', () => undefined);
    const host = start(ext);
    await host.handshake();
    const life = { session_id: 's', cwd: '/p', sequence: 9 };
    const typed = { sessionId: 's', cwd: '/p', sequence: 9 };
    host.send({ type: 'event', event: 'turn_start', step: 1, ...life, session_id: null });
    host.send({ type: 'event', event: 'session_end', ...life });
    host.send({ type: 'event', event: 'user_prompt_submit', ...life, queued: true, image_count: 1 });
    host.send({ type: 'event', event: 'tool_result', tool_id: 't', tool_name: 'bash', tool_args_raw: '{', status: 'failed', executed: true, result: { content: [], is_error: true } });
    host.send({ type: 'event', event: 'permission_decision', tool_id: 't', tool_name: 'bash', decision: 'denied', source: 'policy', stage: 'tool_execution', origin_extension: 'x' });
    host.send({ type: 'event', event: 'pre_compact', compaction_id: 'c', message_count: 3, token_estimate: 0 });
    host.send({ type: 'event', event: 'post_compact', compaction_id: 'c', message_count: 3, token_estimate: 0, status: 'completed' });
    host.send({ type: 'event', event: 'subagent_start', agent_id: 'a', agent_run_id: 'r', name: 'a' });
    host.send({ type: 'event', event: 'subagent_stop', agent_id: 'a', agent_run_id: 'r', name: 'a', status: 'failed', error: 'boom' });
    // A wrong type is refused (logged), never handed over untyped.
    host.send({ type: 'event', event: 'session_end', reason: 7 });
    await host.command('probe');
    expect(seen).toEqual([
      { event: 'turn_start', step: 1, cwd: '/p', sequence: 9 },
      { event: 'session_end', reason: '', ...typed },
      { event: 'user_prompt_submit', text: '', queued: true, imageCount: 1, ...typed },
      {
        event: 'tool_result', toolId: 't', toolName: 'bash', args: {}, argsRaw: '{', status: 'failed', executed: true,
        result: { content: [], isError: true, truncated: false },
      },
      { event: 'permission_decision', toolId: 't', toolName: 'bash', decision: 'denied', source: 'policy', stage: 'tool_execution', reason: '', originExtension: 'x' },
      { event: 'pre_compact', compactionId: 'c', messageCount: 3, tokenEstimate: 0 },
      { event: 'post_compact', compactionId: 'c', messageCount: 3, tokenEstimate: 0, status: 'completed', error: '' },
      { event: 'subagent_start', agentId: 'a', agentRunId: 'r', name: 'a' },
      { event: 'subagent_stop', agentId: 'a', agentRunId: 'r', name: 'a', status: 'failed', error: 'boom' },
    ]);
    await host.waitForStderr('invalid event frame');
  });
});
