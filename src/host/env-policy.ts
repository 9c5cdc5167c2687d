// The environment extension processes get. `inherit` (the default, as zot does) passes the host's
// whole environment, API keys included; `minimal` passes a small allowlist, the variables a manifest
// declares (`"env": [...]`) when the embedder allows them, and what the embedder sets per extension.

/** The `env` option: a mode, or (as before) the exact environment of every extension. */
export type EnvOption = 'inherit' | 'minimal' | NodeJS.ProcessEnv;

/** Passed under `minimal` whenever the host has them (the names are case-sensitive except on Windows). */
export const MINIMAL_ENV: readonly string[] = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'TMPDIR', 'TZ'];
/** Prefixes passed under `minimal` (the locale variables). */
export const MINIMAL_ENV_PREFIXES: readonly string[] = ['LC_'];
/** Also passed under `minimal` on Windows, where programs fail to start without them. */
export const MINIMAL_ENV_WINDOWS: readonly string[] = ['SYSTEMROOT', 'COMSPEC', 'PATHEXT', 'APPDATA', 'LOCALAPPDATA', 'USERPROFILE', 'TEMP', 'TMP', 'WINDIR'];

export interface EnvInputs {
  /** The host's own environment (process.env). */
  source: NodeJS.ProcessEnv;
  option: EnvOption | undefined;
  /**
   * Names (or `PREFIX*` patterns) a manifest may ask for under `minimal`. A declared variable that is
   * not allowed is not passed (a doctor warning).
   */
  allow?: readonly string[] | undefined;
  /** Variables the manifest declares. */
  declared?: readonly string[] | undefined;
  /** What the embedder sets for this extension, in any mode; `undefined` removes a variable. */
  set?: NodeJS.ProcessEnv | undefined;
  platform?: NodeJS.Platform | undefined;
}

export interface EnvResult {
  env: NodeJS.ProcessEnv;
  /** Declared variables that are not passed, and why (for doctor). */
  missing: { name: string; reason: 'not_set' | 'not_allowed' }[];
  /** Values of the declared variables that were passed: never shown in diagnostics or logs. */
  secrets: string[];
}

function matches(patterns: readonly string[], name: string): boolean {
  return patterns.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : p === name));
}

/** The environment of one extension process. */
export function environmentFor(inputs: EnvInputs): EnvResult {
  const { source, option = 'inherit', declared = [], allow = [], set } = inputs;
  const windows = (inputs.platform ?? process.platform) === 'win32';
  let env: NodeJS.ProcessEnv;
  const missing: EnvResult['missing'] = [];
  if (option === 'minimal') {
    env = {};
    const base = windows ? [...MINIMAL_ENV, ...MINIMAL_ENV_WINDOWS] : MINIMAL_ENV;
    for (const [key, value] of Object.entries(source)) {
      if (value === undefined) continue;
      const name = windows ? key.toUpperCase() : key;
      if (base.includes(name) || MINIMAL_ENV_PREFIXES.some((p) => name.startsWith(p))) env[key] = value;
    }
    for (const name of declared) {
      const found = lookup(source, name, windows);
      if (!matches(allow, name)) missing.push({ name, reason: 'not_allowed' });
      else if (found === undefined) missing.push({ name, reason: 'not_set' });
      else env[found[0]] = found[1];
    }
  } else {
    env = option === 'inherit' ? { ...source } : { ...option };
    for (const name of declared) if (lookup(env, name, windows) === undefined) missing.push({ name, reason: 'not_set' });
  }
  for (const [key, value] of Object.entries(set ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const secrets = declared.map((name) => lookup(env, name, windows)?.[1]).filter((v): v is string => v !== undefined && v.length >= 4);
  return { env, missing, secrets };
}

/** The key and value of `name` in `env`; on Windows names are case-insensitive. */
function lookup(env: NodeJS.ProcessEnv, name: string, windows: boolean): [key: string, value: string] | undefined {
  if (env[name] !== undefined) return [name, env[name]!];
  if (!windows) return undefined;
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  return key === undefined || env[key] === undefined ? undefined : [key, env[key]!];
}

export { redact } from '../process/redact.js';
