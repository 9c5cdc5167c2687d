// What one extension is given and allowed: its environment (the env policy), its permission scope
// (and the check of the frames it sends against it), and the values of its remote headers.
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { isRemote } from '../manifest/mcp.js';
import { headerVariable, headerVariables, resolveHeaders } from '../manifest/remote.js';
import { INTERCEPT_NAMES } from '../protocol/names.js';
import { sandboxActive } from '../transport/sandbox.js';
import type { ExtensionSpec, HostContext, LoadedExtension } from './context.js';
import { forExtension } from './options.js';
import type { EnvOption, HostDiagnostic, PermissionPolicy, Scope } from './types.js';

// ---------------------------------------------------------------------------------------------
// Permission scopes: what an extension may do, checked on the frames the host receives (never on
// what hello.capabilities claims). Without a `permissions` option everything is allowed, as the
// spec has it.
// ---------------------------------------------------------------------------------------------

/**
 * The permission names a manifest may request (`"permissions": [...]`): `commands`, `tools`,
 * `submit`, `panels`, `notes`, `call_tool`, `events` or `events:<name>`, `intercept` or `intercept:<event>`.
 */
export const PERMISSION_NAMES = ['commands', 'tools', 'events', 'intercept', 'submit', 'panels', 'notes', 'call_tool'] as const;
export type PermissionName = (typeof PERMISSION_NAMES)[number];
const SIMPLE: ReadonlySet<string> = new Set(PERMISSION_NAMES);
const INTERCEPTS: ReadonlySet<string> = new Set(INTERCEPT_NAMES);

/** A scope with every field present: what the host checks frames against. */
export interface GrantedScope {
  readonly commands: boolean;
  readonly tools: boolean;
  /** `true`: every event; a set: only those. */
  readonly events: true | ReadonlySet<string>;
  readonly intercept: true | ReadonlySet<string>;
  readonly submit: boolean;
  readonly panels: boolean;
  readonly notes: boolean;
  /** zot's `call_tool` (permission name `call_tool`). */
  readonly callTool: boolean;
}

const NOTHING: ReadonlySet<string> = new Set();
export const ALL: GrantedScope = Object.freeze({ commands: true, tools: true, events: true, intercept: true, submit: true, panels: true, notes: true, callTool: true });
export const NONE: GrantedScope = Object.freeze({ commands: false, tools: false, events: NOTHING, intercept: NOTHING, submit: false, panels: false, notes: false, callTool: false });

function names(value: boolean | readonly string[] | undefined): true | ReadonlySet<string> {
  if (value === true) return true;
  return value === undefined || value === false ? NOTHING : new Set(value);
}

/** A Scope as checked: shorthands expanded, missing fields not granted. */
function grantedOf(scope: Scope): GrantedScope {
  if (scope === 'all') return ALL;
  if (scope === 'none') return NONE;
  return {
    commands: scope.commands === true,
    tools: scope.tools === true,
    events: names(scope.events),
    intercept: names(scope.intercept),
    submit: scope.submit === true,
    panels: scope.panels === true,
    notes: scope.notes === true,
    callTool: scope.callTool === true,
  };
}

/** Why a requested permission name is not one (for the manifest diagnostic), or undefined. */
export function permissionNameProblem(name: string): string | undefined {
  if (SIMPLE.has(name)) return undefined;
  const colon = name.indexOf(':');
  const kind = colon === -1 ? name : name.slice(0, colon);
  const what = name.slice(colon + 1);
  if (kind === 'events' && colon !== -1 && what !== '') return undefined;
  if (kind === 'intercept' && colon !== -1 && INTERCEPTS.has(what)) return undefined;
  if (kind === 'intercept') return `unknown permission ${JSON.stringify(name)}: intercept:<event> takes one of ${[...INTERCEPTS].join(', ')}`;
  return `unknown permission ${JSON.stringify(name)}; known: ${PERMISSION_NAMES.join(', ')}, events:<name>, intercept:<event>`;
}

/** The scope a manifest's `"permissions"` list asks for (unknown names are ignored: see permissionNameProblem). */
function requestedScope(requested: readonly string[]): GrantedScope {
  const simple = new Set(requested.filter((n) => SIMPLE.has(n)));
  const listed = (kind: string): true | ReadonlySet<string> =>
    simple.has(kind) ? true : new Set(requested.filter((n) => n.startsWith(`${kind}:`)).map((n) => n.slice(kind.length + 1)));
  return {
    commands: simple.has('commands'),
    tools: simple.has('tools'),
    events: listed('events'),
    intercept: listed('intercept'),
    submit: simple.has('submit'),
    panels: simple.has('panels'),
    notes: simple.has('notes'),
    callTool: simple.has('call_tool'),
  };
}

function meet(a: true | ReadonlySet<string>, b: true | ReadonlySet<string>): true | ReadonlySet<string> {
  if (a === true) return b;
  if (b === true) return a;
  return new Set([...a].filter((n) => b.has(n)));
}

/**
 * What an extension gets: the embedder's policy for it, narrowed to what its manifest requests when
 * it requests anything. Never more than the policy.
 */
export function grantFor(policy: PermissionPolicy | undefined, name: string, requested?: readonly string[] | undefined): GrantedScope {
  const own = forExtension(policy?.byExtension, name) ?? policy?.default;
  const allowed = own === undefined ? ALL : grantedOf(own);
  if (requested === undefined) return allowed;
  const asked = requestedScope(requested);
  return {
    commands: allowed.commands && asked.commands,
    tools: allowed.tools && asked.tools,
    events: meet(allowed.events, asked.events),
    intercept: meet(allowed.intercept, asked.intercept),
    submit: allowed.submit && asked.submit,
    panels: allowed.panels && asked.panels,
    notes: allowed.notes && asked.notes,
    callTool: allowed.callTool && asked.callTool,
  };
}

/** The scope as permission names (for doctor and extensions()): `events:<name>` for a partial list. */
export function scopeNames(scope: GrantedScope): string[] {
  const out: string[] = [];
  const listed = (kind: string, v: true | ReadonlySet<string>) => (v === true ? out.push(kind) : out.push(...[...v].sort().map((n) => `${kind}:${n}`)));
  if (scope.commands) out.push('commands');
  if (scope.tools) out.push('tools');
  listed('events', scope.events);
  listed('intercept', scope.intercept);
  if (scope.submit) out.push('submit');
  if (scope.panels) out.push('panels');
  if (scope.notes) out.push('notes');
  if (scope.callTool) out.push('call_tool');
  return out;
}

/** Whether `scope` allows the named event (`events`) or intercept (`intercept`). */
function allowsName(list: true | ReadonlySet<string>, name: string): boolean {
  return list === true || list.has(name);
}

// ---------------------------------------------------------------------------------------------
// The environment extension processes get. `inherit` (the default, as zot does) passes the host's
// whole environment, API keys included; `minimal` passes a small allowlist, the variables a
// manifest declares (`"env": [...]`) when the embedder allows them, and what the embedder sets per
// extension.
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// One extension's environment and scope, from the embedder's options and its manifest
// ---------------------------------------------------------------------------------------------

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

/**
 * The env policy of one extension: the `env` option, except that a sandboxed one defaults to
 * `'minimal'` (issue 32 follow-up): whoever turns the sandbox on expects the extension not to see
 * the host's API keys. "Sandboxed": the sandbox applies to it (a spawned process, its sandbox not
 * `'off'`; also under `'auto'` where no backend is found, so a missing bwrap never widens what it
 * gets). Only when the embedder left `env` unset and has no `envByExtension` entry for it: an
 * explicit `env: 'inherit'` keeps inherit. Needs `spec.sandbox` (loader.ts prepareSandboxes).
 */
function envPolicyFor(ctx: HostContext, spec: ExtensionSpec): EnvOption | undefined {
  const { env, envByExtension } = ctx.options;
  const sandboxed = spec.sandbox !== undefined && spec.sandbox.policy.mode !== 'off' && spec.memory === undefined && !isRemote(spec);
  return env === undefined && sandboxed && forExtension(envByExtension, spec.name) === undefined ? 'minimal' : env;
}

export function securityFor(ctx: HostContext, spec: ExtensionSpec): ExtensionSecurity {
  const { options } = ctx;
  const envPolicy = envPolicyFor(ctx, spec);
  // A remote extension's `env:NAME` headers read its environment: the env policy applies to them as
  // to what a local process inherits (a manifest must not export any variable of the host's).
  const headerVars = isRemote(spec) ? headerVariables(spec.headers) : [];
  if (options.permissions === undefined && spec.memory === undefined && spec.envDeclared === undefined && headerVars.length === 0 && spec.permissionsRequested === undefined && typeof envPolicy !== 'string' && options.envByExtension === undefined) {
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
  const declared = spec.envDeclared ?? [];
  const result = environmentFor({
    source: process.env,
    option: envPolicy,
    allow: options.envAllow,
    declared: headerVars.length === 0 ? declared : [...declared, ...headerVars.filter((n) => !declared.includes(n))],
    set: forExtension(byExtension, spec.name),
  });
  for (const m of result.missing) {
    const why = m.reason === 'not_allowed' ? `not passed: env is 'minimal'${options.env === undefined ? ' (the default of a sandboxed extension)' : ''} and envAllow does not list it` : 'not set in the host environment';
    const header = declared.includes(m.name) ? undefined : Object.entries(spec.headers ?? {}).find(([, v]) => headerVariable(v) === m.name)?.[0];
    const what = header === undefined ? `${spec.name} declares the environment variable ${m.name}` : `${spec.name}: header ${header} is env:${m.name}`;
    warnings.push({ code: 'ENV_MISSING', severity: 'warning', extension: spec.name, message: `${what}, ${why}` });
  }
  return { env: result.env, secrets: result.secrets, granted, requested, warnings };
}

// ---------------------------------------------------------------------------------------------
// Enforcement on the frames the host receives. A refused frame reaches no callback, registry or
// chain; each extension gets one diagnostic per scope it lacks (later refusals of that scope are
// counted, not reported), so a flood costs nothing.
// ---------------------------------------------------------------------------------------------

type Simple = 'commands' | 'tools' | 'submit' | 'panels' | 'notes' | 'callTool';

const WHAT: Record<Simple, string> = {
  commands: 'register_command',
  tools: 'register_tool',
  submit: 'submit',
  panels: 'a panel',
  notes: 'notify / clear_notes',
  callTool: 'call_tool',
};

/** The permission name of each scope field, in messages. */
const NAME: Record<Simple, string> = { commands: 'commands', tools: 'tools', submit: 'submit', panels: 'panels', notes: 'notes', callTool: 'call_tool' };

/** True when `ext` may; otherwise the refusal is reported (once per scope) and counted. */
export function permits(ctx: HostContext, ext: LoadedExtension, scope: Simple): boolean {
  if (ext.security.granted[scope]) return true;
  refuse(ctx, ext, NAME[scope], `${ext.name}: ${WHAT[scope]} refused: its permissions do not include "${NAME[scope]}"`);
  return false;
}

/** The names of `names` that `ext` may subscribe to (`events` or `intercept`); the others are reported. */
export function permittedNames(ctx: HostContext, ext: LoadedExtension, scope: 'events' | 'intercept', names: readonly string[]): readonly string[] {
  const list = ext.security.granted[scope];
  if (list === true || names.length === 0) return names;
  const ok = names.filter((n) => allowsName(list, n));
  if (ok.length < names.length) {
    const denied = names.filter((n) => !allowsName(list, n));
    const shown = denied.slice(0, 5).map((n) => JSON.stringify(n.slice(0, 80))).join(', ') + (denied.length > 5 ? `, and ${denied.length - 5} more` : '');
    refuse(ctx, ext, scope, `${ext.name}: subscribe to ${scope === 'events' ? 'events' : 'intercept'} ${shown} refused: its permissions do not include ${scope === 'events' ? '"events"' : '"intercept"'} for them`);
  }
  return ok;
}

/** The failure of a command whose open_panel answer was refused. */
export function panelRefusal(ext: LoadedExtension): ExtensionHostError {
  return new ExtensionHostError(ErrorCode.PERMISSION_DENIED, `${ext.name}: open_panel refused: its permissions do not include "panels"`, { extension: ext.name, logPath: ext.logPath });
}

function refuse(ctx: HostContext, ext: LoadedExtension, scope: string, message: string): void {
  const seen = ext.refusals.get(scope) ?? 0;
  ext.refusals.set(scope, seen + 1);
  if (seen === 0) ctx.diagnostics.diagnose({ code: 'PERMISSION_DENIED', message: `${message} (later refusals of "${scope}" are only counted)`, extension: ext.name, severity: 'warning' });
}

// ---------------------------------------------------------------------------------------------
// Remote extensions: what of their `env:NAME` header values is redacted (they are read from the
// extension's environment under the env policy: securityFor)
// ---------------------------------------------------------------------------------------------

/** The values `env:NAME` headers resolve to now: redacted from the extension's log lines and diagnostics. */
export function headerSecrets(headers: Readonly<Record<string, string>> | undefined, env: NodeJS.ProcessEnv): string[] {
  const resolved = resolveHeaders(headers, env);
  return resolved.ok ? resolved.secrets : [];
}

/**
 * The embedder granted `call_tool` to `name` explicitly: its `permissions` option (the extension's
 * own entry, else `default`) is `'all'` or has `callTool: true`. Without the option every extension
 * has every permission by default (zot's behaviour): that is not explicit.
 */
export function callToolExplicit(policy: PermissionPolicy | undefined, name: string): boolean {
  const own = forExtension(policy?.byExtension, name) ?? policy?.default;
  return own !== undefined && grantedOf(own).callTool;
}

/**
 * Why `ext` may not call the agent's built-in tool (they run unsandboxed, in the agent): it runs
 * confined by the OS sandbox and the embedder did not grant it `call_tool` explicitly. Undefined: it may.
 */
export function builtinCallRefused(ctx: HostContext, ext: LoadedExtension): string | undefined {
  const confined = sandboxActive(ext.slot.spec.sandbox);
  if (!confined || (ext.security.granted.callTool && callToolExplicit(ctx.options.permissions, ext.name))) return undefined;
  return `built-in tools are not available to a sandboxed extension (${ext.name} runs sandboxed; grant it "call_tool" in the permissions option to allow them)`;
}
