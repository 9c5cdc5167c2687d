// The same policy unit-tested with an InterceptChain alone: no host, no SDK, no subprocess. This is
// how to test a guard policy in milliseconds per case, including how it composes with others.
import { describe, expect, it } from 'vitest';
import { InterceptChain, type Interceptor } from '../../src/index.js';
import { CASES, chainResult } from './cases.js';
import { evaluate, REASONS, toDecision } from './policy.js';

/** The policy as an in-process interceptor. `onFailure: 'block'`: if the policy throws, fail closed. */
const guard: Interceptor = {
  name: 'guard',
  onFailure: 'block',
  toolCall: ({ toolName, args }) => toDecision(evaluate({ toolName, args })),
};

describe('guard policy in an InterceptChain', () => {
  const chain = new InterceptChain({ timeoutMs: 100 });
  chain.add(guard);

  for (const c of CASES) {
    it(c.title, async () => {
      expect(await chain.toolCall({ toolId: 'call-1', toolName: c.toolName, args: c.args })).toMatchObject(chainResult(c, 'guard'));
    });
  }

  it('sees the args an earlier interceptor rewrote: a rewrite cannot smuggle rm -rf past it', async () => {
    const aliases = new InterceptChain({ timeoutMs: 100 });
    aliases.add({ name: 'aliases', toolCall: ({ args }) => (args.command === 'clean' ? { modifiedArgs: { command: 'rm -rf build' } } : undefined) });
    aliases.add(guard);
    const result = await aliases.toolCall({ toolId: 'call-2', toolName: 'bash', args: { command: 'clean' } });
    expect(result).toMatchObject({ block: true, blockedBy: 'guard', reason: REASONS['rm-rf'] });
    expect(result.trace.map((step) => [step.interceptor, step.decision])).toEqual([
      ['aliases', 'rewrite'],
      ['guard', 'block'],
    ]);
  });

  it('keeps every other arg when it rewrites ls', async () => {
    const result = await chain.toolCall({ toolId: 'call-3', toolName: 'bash', args: { command: 'ls', timeout: 30 } });
    expect(result.args).toEqual({ command: 'ls -la', timeout: 30 });
  });
});
