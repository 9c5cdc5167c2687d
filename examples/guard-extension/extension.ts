// The guard extension: the policy of policy.ts as a tool_call interceptor, a note for every block,
// and /guard to see what it decided. Importing this file runs nothing; main.ts runs it.
import { defineExtension, display, noop, type Extension } from '../../src/sdk/index.js';
import { evaluate, toDecision, type Rule } from './policy.js';

export const NAME = 'guard-extension';

interface Stats {
  checked: number;
  blocked: number;
  rewritten: number;
  byRule: Map<Rule, number>;
}

const emptyStats = (): Stats => ({ checked: 0, blocked: 0, rewritten: 0, byRule: new Map() });

function report(stats: Stats): string {
  const lines = [`guard: ${stats.checked} tool calls checked, ${stats.blocked} blocked, ${stats.rewritten} rewritten`];
  for (const [rule, count] of stats.byRule) lines.push(`  ${rule}: ${count}`);
  return lines.join('\n');
}

/** A guard with its own counters; the default export is one of these. */
export function createGuard(): Extension {
  const ext = defineExtension({ name: NAME, version: '1.0.0' });
  let stats = emptyStats();

  ext.intercept('tool_call', ({ toolName, args }, ctx) => {
    const verdict = evaluate({ toolName, args });
    stats.checked++;
    if (verdict.action !== 'allow') {
      stats.byRule.set(verdict.rule, (stats.byRule.get(verdict.rule) ?? 0) + 1);
      if (verdict.action === 'block') stats.blocked++;
      else stats.rewritten++;
    }
    if (verdict.action === 'block') ctx.notify('warn', `blocked ${toolName}: ${verdict.reason}`);
    return toDecision(verdict);
  });

  ext.command('guard', { description: 'what the guard blocked and rewrote; /guard reset starts over' }, (args) => {
    if (args === 'reset') {
      stats = emptyStats();
      return display('guard: counters reset');
    }
    if (args !== '') return noop({ error: 'usage: /guard [reset]' });
    return display(report(stats));
  });

  return ext;
}

export default createGuard();
