/**
 * The first example of docs/interception.md, kept runnable: a chain on its own, no host, no process.
 * The guide's block is an excerpt of this file (test/docs.test.ts); it runs in CI (test/examples.test.ts).
 */
import assert from 'node:assert/strict';
import { InterceptChain } from '../src/index.js';

const chain = new InterceptChain({ timeoutMs: 5000 });
chain.add({
  name: 'guard',
  toolCall: ({ args }) => (/rm -rf/.test(String(args.command)) ? { block: true, reason: 'no' } : {}),
});
const d = await chain.toolCall({ toolId: 't1', toolName: 'bash', args: { command: 'rm -rf /' } });
// { block: true, reason: 'no', blockedBy: 'guard', args: { command: 'rm -rf /' }, modified: false, trace: [...] }
const { trace, ...decision } = d;
assert.deepEqual(decision, { block: true, reason: 'no', blockedBy: 'guard', args: { command: 'rm -rf /' }, modified: false });
assert.deepEqual(trace.map((step) => [step.interceptor, step.decision, step.message]), [['guard', 'block', 'no']]);
console.log('intercept-chain: ok');
