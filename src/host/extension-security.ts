// What one extension is given: its environment (env-policy.ts) and its permission scope
// (permissions.ts), from the embedder's options and what its manifest declares.
import type { HostContext } from './context.js';
import { environmentFor } from './env-policy.js';
import type { ExtensionSpec } from './loaded-extension.js';
import { ALL, grantFor, permissionNameProblem, requestedScope, scopeNames, type GrantedScope } from './permissions.js';
import type { HostDiagnostic } from './types.js';

export interface ExtensionSecurity {
  /** The process environment; undefined for an in-memory extension. */
  env: NodeJS.ProcessEnv | undefined;
  /** Values of declared variables: redacted from the host's diagnostics and log lines. */
  secrets: readonly string[];
  granted: GrantedScope;
  requested: readonly string[] | undefined;
  /** Warnings to report once the extension is created (missing variables, unknown permission names). */
  warnings: HostDiagnostic[];
}

export const UNRESTRICTED: ExtensionSecurity = { env: undefined, secrets: [], granted: ALL, requested: undefined, warnings: [] };

export function securityFor(ctx: HostContext, spec: ExtensionSpec): ExtensionSecurity {
  const { options } = ctx;
  if (options.permissions === undefined && spec.memory === undefined && spec.envDeclared === undefined && spec.permissionsRequested === undefined && typeof options.env !== 'string' && options.envByExtension === undefined) {
    // The zot default: the given (or inherited) environment, everything allowed.
    // One shared record, not one each, when nothing differs.
    return options.env === undefined ? UNRESTRICTED : { ...UNRESTRICTED, env: options.env as NodeJS.ProcessEnv };
  }
  const warnings: HostDiagnostic[] = [];
  const requested = spec.permissionsRequested;
  for (const name of requested ?? []) {
    const problem = permissionNameProblem(name);
    if (problem !== undefined) warnings.push({ code: 'PERMISSION_UNKNOWN', severity: 'warning', extension: spec.name, message: `${spec.name}: extension.json "permissions": ${problem}; ignored` });
  }
  const granted = grantFor(options.permissions, spec.name, requested);
  if (requested !== undefined) {
    const asked = scopeNames(requestedScope(requested));
    const got = new Set(scopeNames(granted));
    const denied = asked.filter((n) => !got.has(n));
    if (denied.length > 0) warnings.push({ code: 'PERMISSION_DENIED', severity: 'warning', extension: spec.name, message: `${spec.name} requests ${denied.join(', ')}, which the host's permissions do not grant` });
  }
  if (spec.memory !== undefined) return { env: undefined, secrets: [], granted, requested, warnings };
  const byExtension = options.envByExtension;
  const result = environmentFor({
    source: process.env,
    option: options.env,
    allow: options.envAllow,
    declared: spec.envDeclared,
    set: byExtension !== undefined && Object.hasOwn(byExtension, spec.name) ? byExtension[spec.name] : undefined,
  });
  for (const m of result.missing) {
    const why = m.reason === 'not_allowed' ? `not passed: env is 'minimal' and envAllow does not list it` : 'not set in the host environment';
    warnings.push({ code: 'ENV_MISSING', severity: 'warning', extension: spec.name, message: `${spec.name} declares the environment variable ${m.name}, ${why}` });
  }
  return { env: result.env, secrets: result.secrets, granted, requested, warnings };
}
