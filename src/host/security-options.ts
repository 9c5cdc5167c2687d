// The embedder's security options (docs/security.md): the environment policy and permission scopes.
import type { EnvOption } from './env-policy.js';
import type { PermissionPolicy } from './permissions.js';

export type { EnvOption } from './env-policy.js';
export type { InterceptScope, PermissionPolicy, PermissionScope, Scope } from './permissions.js';

export interface SecurityOptions {
  /**
   * Environment of extension processes: `'inherit'` passes the host's whole environment (API keys
   * included, as zot does); `'minimal'` passes only PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG,
   * LC_*, TMPDIR, TZ (on Windows also SYSTEMROOT, COMSPEC, PATHEXT, APPDATA, LOCALAPPDATA,
   * USERPROFILE, TEMP, TMP, WINDIR), the variables a manifest declares (`"env": [...]`) that
   * `envAllow` allows, and `envByExtension`; an object is the exact environment of every extension.
   * @default 'inherit'
   */
  env?: EnvOption | undefined;
  /**
   * Under `env: 'minimal'`: the variables (names, or `PREFIX*`) a manifest may ask for with
   * `"env": [...]`. A declared variable that is not allowed, or not set, is not passed and is a
   * warning (ENV_MISSING, shown by `zot-ext doctor`). @default []
   */
  envAllow?: readonly string[] | undefined;
  /** Variables set (or, with `undefined`, removed) for one extension, by manifest name, in every mode. */
  envByExtension?: Readonly<Record<string, NodeJS.ProcessEnv>> | undefined;
  /**
   * Permission scopes, enforced on the frames the host receives. Without this option every
   * extension may do everything (the spec's default). See docs/security.md. @default undefined
   */
  permissions?: PermissionPolicy | undefined;
}
