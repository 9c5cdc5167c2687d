// The recipe of docs/interception.md ("Unit-testing a policy"), kept runnable; test/docs.test.ts checks
// that the guide's block is this file (the import names the package).
import { describe, expect, it, vi } from 'vitest';
import { InterceptChain, type Interceptor } from '../../src/index.js';

// The policy under test: refuse `rm -rf`, make `ls` show hidden files.
const guard: Interceptor = {
  name: 'guard',
  toolCall: ({ toolName, args }) => {
    if (toolName !== 'bash') return;
    const command = String(args.command);
    if (/\brm\s+-rf\b/.test(command)) return { block: true, reason: `refused: ${command}` };
    if (command === 'ls') return { modifiedArgs: { ...args, command: 'ls -a' } };
  },
};

describe('guard policy', () => {
  const chain = new InterceptChain();
  chain.add(guard);
  const bash = (command: string) => chain.toolCall({ toolId: 't1', toolName: 'bash', args: { command } });

  it('blocks rm -rf with a reason the model will see', async () => {
    expect(await bash('rm -rf /')).toMatchObject({ block: true, reason: 'refused: rm -rf /', blockedBy: 'guard' });
  });

  it('rewrites ls', async () => {
    expect(await bash('ls')).toMatchObject({ block: false, modified: true, args: { command: 'ls -a' } });
  });

  it('leaves everything else alone', async () => {
    expect(await bash('git status')).toMatchObject({ block: false, modified: false, args: { command: 'git status' } });
  });

  it('fails closed when it hangs, if asked to', async () => {
    vi.useFakeTimers();
    try {
      const strict = new InterceptChain({ timeoutMs: 1000 });
      strict.add({ ...guard, onFailure: 'block', toolCall: () => new Promise(() => {}) });
      const pending = strict.toolCall({ toolId: 't2', toolName: 'bash', args: { command: 'ls' } });
      await vi.advanceTimersByTimeAsync(1000);
      expect(await pending).toMatchObject({ block: true, reason: 'guard failed (timeout): blocked by policy' });
    } finally {
      vi.useRealTimers();
    }
  });
});
