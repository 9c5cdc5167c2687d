// Permission scopes: what an extension may do, checked on the frames the host receives (never on
// what hello.capabilities claims). Without a `permissions` option everything is allowed, as the spec
// has it.

import { INTERCEPT_NAMES, type InterceptEventName } from '../protocol/names.js';

/** Events an extension may be allowed to intercept. */
export type InterceptScope = InterceptEventName;

/**
 * What one extension may do. In a Scope object a missing field is NOT granted: `{ tools: true }`
 * allows registering tools and nothing else. `'all'` and `'none'` are shorthands.
 */
export interface PermissionScope {
  /** `register_command` (and so the actions of its command responses). */
  commands?: boolean | undefined;
  /** `register_tool`. */
  tools?: boolean | undefined;
  /** `subscribe` to lifecycle events: all, or the named ones. */
  events?: boolean | readonly string[] | undefined;
  /**
   * `subscribe` to intercepts: all, or the named ones. `before_agent_start` sees (and may rewrite)
   * the entire system prompt.
   */
  intercept?: boolean | readonly InterceptScope[] | undefined;
  /** `submit` frames (prompts sent to the agent as if the user typed them). */
  submit?: boolean | undefined;
  /** `open_panel` command responses, `panel_render`, `panel_close`. */
  panels?: boolean | undefined;
  /** `notify` and `clear_notes`. */
  notes?: boolean | undefined;
}

export type Scope = PermissionScope | 'all' | 'none';

/** The `permissions` option. */
export interface PermissionPolicy {
  /** Scope of every extension not named in `byExtension`. @default 'all' */
  default?: Scope | undefined;
  /** Scope per manifest name; replaces `default` for that extension (it does not add to it). */
  byExtension?: Readonly<Record<string, Scope>> | undefined;
}

/**
 * The permission names a manifest may request (`"permissions": [...]`): `commands`, `tools`,
 * `submit`, `panels`, `notes`, `events` or `events:<name>`, `intercept` or `intercept:<event>`.
 */
export const PERMISSION_NAMES = ['commands', 'tools', 'events', 'intercept', 'submit', 'panels', 'notes'] as const;
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
}

const NOTHING: ReadonlySet<string> = new Set();
export const ALL: GrantedScope = Object.freeze({ commands: true, tools: true, events: true, intercept: true, submit: true, panels: true, notes: true });
export const NONE: GrantedScope = Object.freeze({ commands: false, tools: false, events: NOTHING, intercept: NOTHING, submit: false, panels: false, notes: false });

function names(value: boolean | readonly string[] | undefined): true | ReadonlySet<string> {
  if (value === true) return true;
  return value === undefined || value === false ? NOTHING : new Set(value);
}

/** A Scope as checked: shorthands expanded, missing fields not granted. */
export function grantedOf(scope: Scope): GrantedScope {
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
export function requestedScope(requested: readonly string[]): GrantedScope {
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
  const own = policy?.byExtension !== undefined && Object.hasOwn(policy.byExtension, name) ? policy.byExtension[name]! : policy?.default;
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
  return out;
}

/** Whether `scope` allows the named event (`events`) or intercept (`intercept`). */
export function allowsName(list: true | ReadonlySet<string>, name: string): boolean {
  return list === true || list.has(name);
}
