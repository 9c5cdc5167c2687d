// What the chain checks around a step: rewrites it could not send on, inputs it could not encode.
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { jsonProblem } from '../protocol/json-check.js';
import type { StepMethod, StepOutcome } from './step.js';

/**
 * A rewrite the host could not send on (cyclic, a BigInt, too deep for JSON.stringify) is a
 * `malformed` answer: the step's failure policy applies, instead of a RangeError out of the chain.
 */
export function checkedRewrite(name: string, outcome: StepOutcome): StepOutcome {
  if (!outcome.ok) return outcome;
  const next = outcome.decision?.modifiedArgs;
  if (typeof next !== 'object' || next === null) return outcome;
  const problem = jsonProblem(next);
  return problem === undefined ? outcome : { ok: false, kind: 'malformed', message: `${name} answered modifiedArgs that ${problem}` };
}

/** Only an input the host's adapters cannot encode makes a step reject with anything but ABORTED. */
export function invalidInput(method: StepMethod, error: unknown): ExtensionHostError {
  if (error instanceof ExtensionHostError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `intercepts.${method}: the input cannot be sent to extensions (${message})`, { cause: error });
}

