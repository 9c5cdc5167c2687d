// What one step's outcome means for the chain: its trace entry, a block (by decision or by failure
// policy), and the fields of its answer that do not apply.
import type { InterceptDiagnostic, InterceptEvent, TraceStep } from './chain-types.js';
import type { StepOutcome } from './step.js';
import type { FailureKind, Interceptor } from './types.js';

export interface StepResult {
  traced: TraceStep;
  decision?: Record<string, unknown> | undefined;
  blocked?: { reason: string; blockedBy: string } | undefined;
}

export type Diagnose = (interceptor: Interceptor, event: InterceptEvent, kind: InterceptDiagnostic['kind'], message: string) => void;

/** Fields each event accepts; other decision fields are reported as ignored. */
const FOREIGN_FIELDS: Record<InterceptEvent, readonly string[]> = {
  tool_call: ['replaceText', 'systemPrompt'],
  turn_start: ['modifiedArgs', 'replaceText', 'systemPrompt'],
  assistant_message: ['modifiedArgs', 'systemPrompt'],
  before_agent_start: ['modifiedArgs', 'replaceText'],
};

export function markFailure(step: TraceStep, kind: FailureKind, policy: 'allow' | 'block', message: string): void {
  step.decision = 'failure';
  step.failure = kind;
  step.failurePolicy = policy;
  step.message = message;
}

/**
 * Records one step in the trace. `blocked` is set when the step blocks (by decision or by failure
 * policy); `decision` is the answer of a non-failed step, for the caller to apply its rewrite.
 */
export function recordStep(
  interceptor: Interceptor,
  event: InterceptEvent,
  outcome: StepOutcome,
  ms: number,
  trace: TraceStep[],
  revalidation: boolean,
  diagnose: Diagnose,
): StepResult {
  const name = interceptor.name;
  const traced: TraceStep = { interceptor: name, decision: 'allow', ms };
  if (revalidation) traced.revalidation = true;
  trace.push(traced);

  const canBlock = event !== 'before_agent_start';
  if (!outcome.ok) {
    // A re-ask that fails blocks whatever the policy: otherwise a rewriter that makes the guard
    // fail (too deep, too big, too slow) would get its rewrite past it.
    const policy = !canBlock ? 'allow' : revalidation ? 'block' : (interceptor.onFailure ?? 'allow');
    markFailure(traced, outcome.kind, policy, outcome.message);
    diagnose(interceptor, event, outcome.kind, outcome.message);
    if (policy === 'allow') return { traced };
    const reason = revalidation
      ? `${name} failed (${outcome.kind}) when asked again with the rewritten args: blocked`
      : `${name} failed (${outcome.kind}): blocked by policy`;
    return { traced, blocked: { reason, blockedBy: name } };
  }

  const decision = outcome.decision ?? {};
  for (const field of FOREIGN_FIELDS[event]) {
    if (decision[field] !== undefined) {
      diagnose(interceptor, event, 'ignored_field', `${field} does not apply to ${event}; ignored`);
    }
  }
  const { block, reason } = decision;
  if (block !== undefined && typeof block !== 'boolean') {
    diagnose(interceptor, event, 'ignored_field', 'block is not a boolean; ignored');
  }
  if (!canBlock) {
    if (block === true) {
      diagnose(interceptor, event, 'ignored_field', 'block does not apply to before_agent_start; ignored');
    }
    return { traced, decision };
  }
  if (block !== true) return { traced, decision };
  if (reason !== undefined && typeof reason !== 'string') {
    diagnose(interceptor, event, 'ignored_field', 'reason is not a string; ignored');
  }
  const text = typeof reason === 'string' && reason !== '' ? reason : `blocked by ${name}`;
  traced.decision = 'block';
  traced.message = text;
  return { traced, decision, blocked: { reason: text, blockedBy: name } };
}
