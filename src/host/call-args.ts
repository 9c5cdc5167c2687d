// What callTool checks before anything is sent: args it could not encode and options that would
// silently mean "no deadline" must come back as a typed INVALID_ARGUMENT result, not a TypeError.
import { ErrorCode, ExtensionHostError } from '../errors.js';

/**
 * The error for `callTool(name, args, options)` when the args are not a JSON object or `timeoutMs`
 * is not a number >= 0 (Infinity = no deadline); undefined when the call can go out.
 */
export function toolCallProblem(
  name: string,
  extension: string,
  args: unknown,
  options: { timeoutMs?: number | undefined; maxTotalTimeoutMs?: number | undefined } | undefined,
): ExtensionHostError | undefined {
  let problem: string | undefined;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) problem = 'args must be a JSON object';
  // Args that cannot be encoded (cyclic, a BigInt, too deep) are found by the encoder itself, at no
  // cost to a good call: the request fails with INVALID_ARGUMENT (ExtensionProcess.request).
  const timeoutMs = options?.timeoutMs;
  if (problem === undefined && timeoutMs !== undefined && !(typeof timeoutMs === 'number' && timeoutMs >= 0)) {
    problem = `timeoutMs must be a number >= 0 (Infinity = no deadline), got ${String(timeoutMs)}`;
  }
  const maxTotal = options?.maxTotalTimeoutMs;
  if (problem === undefined && maxTotal !== undefined && !(typeof maxTotal === 'number' && maxTotal >= 0)) {
    problem = `maxTotalTimeoutMs must be a number >= 0, got ${String(maxTotal)}`;
  }
  return problem === undefined ? undefined : new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `tool ${name}: ${problem}`, { extension });
}
