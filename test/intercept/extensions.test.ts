// Interception with real extension processes: order, chaining, caching, invalidation, failures.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtensionHost, type HostWarning } from '../../src/index.js';
import { fixture, tempDir } from '../helpers/fixtures.js';
import { gate, pollUntil } from '../helpers/wait.js';

const home = tempDir();
afterAll(() => home.cleanup());

function makeHost(dirs: string[], options: { intercept?: number; warnings?: HostWarning[] } = {}) {
  return new ExtensionHost({
    cwd: '/work/project',
    home: home.dir,
    discover: false,
    explicit: dirs.map(fixture),
    provider: 'anthropic',
    model: 'claude-test',
    timeouts: { intercept: options.intercept ?? 5000 },
    callbacks: { warning: (w) => options.warnings?.push(w) },
  });
}

async function stderrLines(host: ExtensionHost, name: string): Promise<Record<string, string>[]> {
  const ext = host.extensions().find((e) => e.name === name)!;
  const text = await readFile(ext.logPath, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, string>);
}

describe('tool calls, turns and messages', () => {
  let host: ExtensionHost;
  beforeAll(async () => {
    host = makeHost(['extensions/guard', 'intercept/rewriter-a', 'intercept/rewriter-b', 'intercept/redactor']);
    const report = await host.start();
    expect(report.failed).toEqual([]);
  });
  afterAll(() => host.stop());

  it('the first block wins and stops the chain', async () => {
    const d = await host.intercepts.toolCall({ toolId: 't1', toolName: 'bash', args: { command: 'rm -rf /tmp/x' } });
    expect(d).toMatchObject({ block: true, blockedBy: 'guard', reason: 'refused: matches danger pattern "rm -rf"', modified: false });
    expect(d.trace.map((s) => [s.interceptor, s.decision])).toEqual([['guard', 'block']]);
  });

  it('rewrites chain in load order: each interceptor sees the previous rewrite', async () => {
    const d = await host.intercepts.toolCall({ toolId: 't2', toolName: 'bash', args: { command: 'ls' } });
    expect(d.block).toBe(false);
    expect(d.modified).toBe(true);
    expect(d.args).toEqual({ command: 'echo GUARDED: ls', rewritten_by: ['rewriter-a', 'rewriter-b'] });
    expect(d.trace.map((s) => [s.interceptor, s.decision])).toEqual([
      ['guard', 'rewrite'],
      ['rewriter-a', 'rewrite'],
      ['rewriter-b', 'rewrite'],
    ]);
  });

  it('asks only the extensions that intercept the event', async () => {
    const other = await host.intercepts.toolCall({ toolId: 't3', toolName: 'read', args: { path: 'a' } });
    expect(other).toMatchObject({ block: false, modified: false, args: { path: 'a' } });
    expect(other.trace.map((s) => s.interceptor)).toEqual(['guard', 'rewriter-a', 'rewriter-b']);
    const turn = await host.intercepts.turnStart({ step: 1 });
    expect(turn).toMatchObject({ block: false, trace: [] });
    const message = await host.intercepts.assistantMessage({ text: 'hello' });
    expect(message.trace.map((s) => s.interceptor)).toEqual(['redactor']);
  });

  it('replace_text rewrites the user-visible text; block suppresses it', async () => {
    expect(await host.intercepts.assistantMessage({ text: 'your key is sk-abc-123, keep it' })).toMatchObject({
      block: false,
      modified: true,
      text: 'your key is [redacted], keep it',
    });
    expect(await host.intercepts.assistantMessage({ text: 'BLOCKME please' })).toMatchObject({
      block: true,
      reason: 'blocked by redactor',
      blockedBy: 'redactor',
    });
  });
});

describe('system prompt passes (before_agent_start)', () => {
  let host: ExtensionHost;
  beforeAll(async () => {
    host = makeHost(['intercept/prompt-append-a', 'intercept/prompt-append-b']);
    await host.start();
  });
  afterAll(() => host.stop());

  it('runs in load order, each extension getting the previous result and the pass context', async () => {
    const r = await host.prepareSystemPrompt({ systemPrompt: 'BASE', sessionId: 'session-1' });
    expect(r.systemPrompt).toBe('BASE\n[prompt-append-a]\n[prompt-append-b]');
    expect(r.cached).toBe(false);
    const [a] = (await stderrLines(host, 'prompt-append-a')).slice(-1);
    const [b] = (await stderrLines(host, 'prompt-append-b')).slice(-1);
    expect(a).toEqual({ session_id: 'session-1', agent_run_id: r.agentRunId, cwd: '/work/project', provider: 'anthropic', model: 'claude-test' });
    expect(b!.agent_run_id).toBe(r.agentRunId);
  });

  it('is cached until invalidated, then runs again from the base with a new agent_run_id', async () => {
    const first = await host.prepareSystemPrompt({ systemPrompt: 'CACHE', sessionId: 's' });
    const asked = (await stderrLines(host, 'prompt-append-a')).length;
    const again = await host.prepareSystemPrompt({ systemPrompt: 'CACHE', sessionId: 's' });
    expect(again).toMatchObject({ systemPrompt: first.systemPrompt, cached: true, agentRunId: first.agentRunId });
    expect((await stderrLines(host, 'prompt-append-a')).length).toBe(asked);
    host.invalidateSystemPrompt();
    const rebuilt = await host.prepareSystemPrompt({ systemPrompt: 'CACHE', sessionId: 's' });
    expect(rebuilt.systemPrompt).toBe('CACHE\n[prompt-append-a]\n[prompt-append-b]'); // from the base, not appended twice
    expect(rebuilt.cached).toBe(false);
    expect(rebuilt.agentRunId).not.toBe(first.agentRunId);
  });

  it('a model change invalidates and the next pass carries the new model', async () => {
    await host.prepareSystemPrompt({ systemPrompt: 'M', sessionId: 's' });
    host.setModel({ model: 'claude-other' });
    const r = await host.prepareSystemPrompt({ systemPrompt: 'M', sessionId: 's' });
    expect(r.cached).toBe(false);
    expect((await stderrLines(host, 'prompt-append-a')).at(-1)?.model).toBe('claude-other');
    host.setModel({ model: 'claude-test' });
  });

  it('an invalidation while a pass waits discards it and reruns with a new agent_run_id', async () => {
    const calls: string[] = [];
    const reached = gate();
    const dispose = host.intercepts.add({
      name: 'holder',
      beforeAgentStart: (input, ctx) => {
        calls.push(input.agentRunId);
        if (calls.length > 1) return {};
        reached.open();
        return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({}), { once: true }));
      },
    });
    try {
      host.invalidateSystemPrompt();
      const pass = host.prepareSystemPrompt({ systemPrompt: 'RACE', sessionId: 's' });
      await reached.promise;
      host.invalidateSystemPrompt();
      const r = await pass;
      expect(calls).toHaveLength(2);
      expect(calls[0]).not.toBe(calls[1]);
      expect(r.agentRunId).toBe(calls[1]);
      expect(r.systemPrompt).toBe('RACE\n[prompt-append-a]\n[prompt-append-b]');
      const runIds = (await stderrLines(host, 'prompt-append-a')).slice(-2).map((l) => l.agent_run_id);
      expect(runIds).toEqual([calls[0], calls[1]]);
    } finally {
      dispose();
    }
  });

  it('abort stops a pass without committing anything', async () => {
    host.invalidateSystemPrompt();
    const controller = new AbortController();
    controller.abort();
    await expect(host.prepareSystemPrompt({ systemPrompt: 'ABORT', sessionId: 's', signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    expect((await host.prepareSystemPrompt({ systemPrompt: 'ABORT', sessionId: 's' })).cached).toBe(false);
  });
});

describe('bad system prompt answers keep the prompt and warn', () => {
  const warnings: HostWarning[] = [];
  let host: ExtensionHost;
  beforeAll(async () => {
    host = makeHost(['intercept/prompt-append-a', 'intercept/prompt-number', 'intercept/prompt-huge', 'intercept/prompt-omit', 'intercept/prompt-empty'], { warnings });
    await host.start();
  });
  afterAll(() => host.stop());

  it('numbers and replacements over 1 MiB are ignored with a warning naming the extension; omission keeps; "" removes', async () => {
    const r = await host.prepareSystemPrompt({ systemPrompt: 'BASE' });
    expect(r.systemPrompt).toBe('');
    const steps = Object.fromEntries(r.trace.map((s) => [s.interceptor, s.decision === 'failure' ? `failure:${s.failure}` : s.decision]));
    expect(steps).toEqual({
      'prompt-append-a': 'rewrite',
      'prompt-number': 'failure:malformed',
      'prompt-huge': 'failure:malformed',
      'prompt-omit': 'allow',
      'prompt-empty': 'rewrite',
    });
    const named = warnings.map((w) => w.extension);
    expect(named).toContain('prompt-number');
    expect(named).toContain('prompt-huge');
    const number = host.extensions().find((e) => e.name === 'prompt-number')!;
    // Host lines are appended asynchronously: poll the file (nothing announces the write).
    let log = '';
    await pollUntil(async () => /\[host\].*prompt-number/.test((log = await readFile(number.logPath, 'utf8'))), 2000);
    expect(log).toMatch(/\[host\].*prompt-number/);
  });
});

describe('timeouts and crashes count as "allow, unchanged"', () => {
  const warnings: HostWarning[] = [];
  let host: ExtensionHost;
  beforeAll(async () => {
    host = makeHost(['intercept/slow-guard', 'intercept/prompt-sleep', 'intercept/prompt-crash', 'intercept/prompt-append-a'], { intercept: 200, warnings });
    await host.start();
  });
  afterAll(() => host.stop());

  it('a tool-call interceptor that misses its deadline is recorded as a timeout and the call is allowed', async () => {
    const d = await host.intercepts.toolCall({ toolId: 't', toolName: 'bash', args: { command: 'ls' } });
    expect(d.block).toBe(false);
    expect(d.trace).toMatchObject([{ interceptor: 'slow-guard', decision: 'failure', failure: 'timeout', failurePolicy: 'allow' }]);
  });

  it('a sleeping and a crashing prompt interceptor keep the prompt; the rest still run', async () => {
    const r = await host.prepareSystemPrompt({ systemPrompt: 'BASE' });
    expect(r.systemPrompt).toBe('BASE\n[prompt-append-a]');
    expect(r.trace.map((s) => [s.interceptor, s.failure ?? s.decision])).toEqual([
      ['prompt-sleep', 'timeout'],
      ['prompt-crash', 'crash'],
      ['prompt-append-a', 'rewrite'],
    ]);
    expect(warnings.map((w) => w.extension)).toEqual(expect.arrayContaining(['prompt-sleep', 'prompt-crash']));
    expect(host.extensions().find((e) => e.name === 'prompt-crash')?.state).toBe('exited');
    // The chain's list of extension interceptors follows the exit.
    expect(host.intercepts.list().map((i) => i.name)).toEqual(['slow-guard', 'prompt-sleep', 'prompt-append-a']);
  });
});

describe('an interceptor that stops reading its stdin', () => {
  const warnings: HostWarning[] = [];
  let host: ExtensionHost;
  beforeAll(async () => {
    host = makeHost(['faults/deaf-interceptor', 'intercept/prompt-append-a'], { intercept: 200, warnings });
    await host.start();
  });
  afterAll(() => host.stop());

  it('has its input pipe closed at the step deadline and is dropped; the rest still run and later passes do not wait', async () => {
    const big = 'p'.repeat(512 * 1024); // more than a pipe holds: the write cannot complete
    const first = await host.prepareSystemPrompt({ systemPrompt: big });
    expect(first.systemPrompt).toBe(`${big}\n[prompt-append-a]`);
    expect(first.trace.map((s) => [s.interceptor, s.failure ?? s.decision])).toEqual([
      ['deaf-interceptor', 'timeout'],
      ['prompt-append-a', 'rewrite'],
    ]);
    const deaf = host.extensions().find((e) => e.name === 'deaf-interceptor')!;
    expect(deaf.state).toBe('exited');
    expect(deaf.error?.message).toContain('stopped reading its stdin');
    const d = await host.intercepts.toolCall({ toolId: 't', toolName: 'bash', args: { command: 'ls' } });
    expect(d.trace).toEqual([]);
    expect(warnings.some((w) => w.extension === 'deaf-interceptor')).toBe(true);
  });
});
