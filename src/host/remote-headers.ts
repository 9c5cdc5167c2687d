// Where a remote extension's `env:NAME` header values come from, and what of them is redacted.
import { resolveHeaders } from '../manifest/remote.js';
import type { HostContext } from './context.js';

/**
 * The environment `env:NAME` header values are read from: the host's own (the `env` option when it
 * is an object, else process.env). The env policy (`'minimal'`, `envAllow`) is about what a local
 * process inherits and does not apply: the manifest names the variable, the embedder sets it.
 */
export function headerEnv(ctx: HostContext): NodeJS.ProcessEnv {
  const { env } = ctx.options;
  return typeof env === 'object' ? env : process.env;
}

/** The values `env:NAME` headers resolve to now: redacted from the extension's log lines and diagnostics. */
export function headerSecrets(headers: Readonly<Record<string, string>> | undefined, env: NodeJS.ProcessEnv): string[] {
  const resolved = resolveHeaders(headers, env);
  return resolved.ok ? resolved.secrets : [];
}
