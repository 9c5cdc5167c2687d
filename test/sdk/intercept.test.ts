import { describe, expect, it } from 'vitest';
import { defineExtension } from '../../src/sdk/index.js';
import { useFakeHosts } from './harness.js';

const start = useFakeHosts();

const strip = ({ id: _id, type: _type, ...rest }: Record<string, unknown>) => rest;

describe('interceptors', () => {
  it('subscribes intercepts and blocks or rewrites tool calls', async () => {
    const ext = defineExtension({ name: 'guard' });
    ext.intercept('tool_call', ({ toolName, args }) => {
      const command = String(args.command ?? '');
      if (toolName === 'bash' && command.includes('rm -rf')) return { block: true, reason: 'refused: rm -rf' };
      if (toolName === 'bash' && command.startsWith('ls')) return { modifiedArgs: { command: `echo GUARDED: ${command}` } };
      return undefined;
    });
    const host = start(ext);
    const { registrations } = await host.handshake();
    expect(registrations).toEqual([{ type: 'subscribe', events: [], intercept: ['tool_call'] }]);

    const call = (command: string) =>
      host.intercept({ event: 'tool_call', tool_id: 't1', tool_name: 'bash', tool_args: { command } });
    const blocked = await call('rm -rf /');
    expect(blocked.type).toBe('event_intercept_response');
    expect(strip(blocked)).toEqual({ block: true, reason: 'refused: rm -rf' });
    expect(strip(await call('ls -la'))).toEqual({ modified_args: { command: 'echo GUARDED: ls -la' } });
    expect(strip(await call('pwd'))).toEqual({});
  });

  it('gives the tool_call interceptor the tool id, name and args', async () => {
    const ext = defineExtension({ name: 'spy' });
    let input: unknown;
    ext.intercept('tool_call', ({ raw: _raw, ...rest }) => {
      input = rest;
    });
    const host = start(ext);
    await host.handshake();
    await host.intercept({ event: 'tool_call', tool_id: 'tid', tool_name: 'read', tool_args: { path: 'a' } });
    expect(input).toEqual({ toolId: 'tid', toolName: 'read', args: { path: 'a' } });
  });

  it('blocks turns and rewrites or blocks assistant messages', async () => {
    const ext = defineExtension({ name: 'gates' });
    ext.intercept('turn_start', ({ step }) => (step > 2 ? { block: true, reason: 'turn budget used' } : undefined));
    ext.intercept('assistant_message', ({ text }) => {
      if (text.includes('FORBIDDEN')) return { block: true, reason: 'policy' };
      if (text.includes('sk-')) return { replaceText: text.replace(/sk-[\w-]+/g, '[redacted]') };
      return {};
    });
    const host = start(ext);
    const { registrations } = await host.handshake();
    expect(registrations).toEqual([{ type: 'subscribe', events: [], intercept: ['turn_start', 'assistant_message'] }]);

    expect(strip(await host.intercept({ event: 'turn_start', step: 1 }))).toEqual({});
    expect(strip(await host.intercept({ event: 'turn_start', step: 3 }))).toEqual({ block: true, reason: 'turn budget used' });
    expect(strip(await host.intercept({ event: 'assistant_message', text: 'key: sk-ant-123' }))).toEqual({
      replace_text: 'key: [redacted]',
    });
    expect(strip(await host.intercept({ event: 'assistant_message', text: 'FORBIDDEN' }))).toEqual({ block: true, reason: 'policy' });
  });

  it('replaces the system prompt before_agent_start, an empty string included', async () => {
    const ext = defineExtension({ name: 'prompter' });
    const inputs: unknown[] = [];
    ext.intercept('before_agent_start', ({ raw: _raw, ...input }) => {
      inputs.push(input);
      if (input.model === 'keep') return undefined;
      if (input.model === 'remove') return { systemPrompt: '' };
      return { systemPrompt: `${input.systemPrompt}\nUse the house style.` };
    });
    const host = start(ext);
    await host.handshake();
    const base = {
      event: 'before_agent_start',
      session_id: 'session-123',
      agent_run_id: 'run-456',
      cwd: '/work/repo',
      provider: 'anthropic',
      system_prompt: 'You are helpful.',
    };
    expect(strip(await host.intercept({ ...base, model: 'claude-opus-4-7' }))).toEqual({
      system_prompt: 'You are helpful.\nUse the house style.',
    });
    expect(strip(await host.intercept({ ...base, model: 'remove' }))).toEqual({ system_prompt: '' });
    expect(strip(await host.intercept({ ...base, model: 'keep' }))).toEqual({});
    expect(inputs[0]).toEqual({
      systemPrompt: 'You are helpful.',
      sessionId: 'session-123',
      agentRunId: 'run-456',
      cwd: '/work/repo',
      provider: 'anthropic',
      model: 'claude-opus-4-7',
    });
  });

  it('allows (answers {}) when an interceptor throws, and logs it', async () => {
    const ext = defineExtension({ name: 'broken' });
    ext.intercept('tool_call', async () => {
      throw new Error('policy file unreadable');
    });
    const host = start(ext);
    await host.handshake();
    const answer = await host.intercept({ event: 'tool_call', tool_id: 't', tool_name: 'bash', tool_args: {} });
    expect(strip(answer)).toEqual({});
    expect(host.stderr).toContain('interceptor "tool_call" failed (allowing)');
    expect(host.stderr).toContain('policy file unreadable');
  });

  it('answers {} for events it has no interceptor for and for malformed intercepts', async () => {
    const ext = defineExtension({ name: 'none' });
    const host = start(ext);
    await host.handshake();
    expect(strip(await host.intercept({ event: 'turn_start', step: 1 }))).toEqual({});
    host.send({ type: 'event_intercept', id: 'bad-1', event: 'tool_call', tool_name: 5 });
    expect(strip(await host.answer('bad-1'))).toEqual({});
  });

  it('rejects a second interceptor for the same event and unknown event names', () => {
    const ext = defineExtension({ name: 'defs' });
    ext.intercept('turn_start', () => undefined);
    expect(() => ext.intercept('turn_start', () => undefined)).toThrow(/already registered/);
    expect(() => ext.intercept('session_start' as never, () => undefined)).toThrow(/cannot intercept/);
  });
});
