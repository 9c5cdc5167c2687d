// ExtensionHost options checked once, at construction: a wrong type or an out-of-range value is a
// typed INVALID_OPTIONS error naming the option, never a TypeError later (or a silent "no deadline").
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { nameKey, nameProblem } from '../manifest/limits.js';
import { mcpProblem } from '../manifest/mcp.js';
import { MAX_TIMER_MS } from '../protocol/limits.js';
import { sandboxOptionProblem } from '../transport/sandbox.js';
import type { ExtensionHostOptions, HostTimeouts, InterceptPolicy } from './types.js';

/** Every timeout the host uses, defaults applied (`stuck` defaults to `tool` where it is read). */
export type TimeoutValues = Required<{ [K in Exclude<keyof HostTimeouts, 'stuck'>]: number }> & { stuck?: number | undefined };

export const DEFAULT_TIMEOUTS: Readonly<TimeoutValues> = {
  hello: 5000,
  helloJoin: 30_000,
  ready: 3000,
  readyIdle: 250,
  command: 30_000,
  tool: 60_000,
  intercept: 5000,
  callTool: 60_000,
  shutdown: 2000,
  interactiveGrace: 5000,
  trust: 120_000,
};

/** `timeouts` over the defaults; an `undefined` field means the default. */
export function timeoutsOf(timeouts: HostTimeouts | undefined): TimeoutValues {
  const values: TimeoutValues = { ...DEFAULT_TIMEOUTS };
  for (const [key, value] of Object.entries(timeouts ?? {})) {
    if (typeof value === 'number') values[key as keyof HostTimeouts] = value;
  }
  return values;
}

type Check = (value: unknown) => string | undefined;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const string: Check = (v) => (typeof v === 'string' ? undefined : 'a string');
const nonEmpty: Check = (v) => (typeof v === 'string' && v.length > 0 ? undefined : 'a non-empty string');
const boolean: Check = (v) => (typeof v === 'boolean' ? undefined : 'a boolean');
const object: Check = (v) => (isObject(v) ? undefined : 'an object');
const strings: Check = (v) => (Array.isArray(v) && v.every((item) => typeof item === 'string') ? undefined : 'an array of strings');
/** Bytes: a whole number >= 1. */
const bytes: Check = (v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 ? undefined : 'a whole number of bytes >= 1');
/** Bytes or Infinity (no cap). */
const bytesOrInfinity: Check = (v) => (v === Infinity ? undefined : bytes(v) === undefined ? undefined : 'a whole number of bytes >= 1, or Infinity (no cap)');
/** A timeout: finite >= 0, or Infinity (no deadline). NaN and negatives are refused. */
export const timeout: Check = (v) => (typeof v === 'number' && v >= 0 ? undefined : 'a number of ms >= 0, or Infinity (no deadline)');
/** Timeouts that are plain timers, without a "no deadline" meaning: Node fires a longer timer after 1 ms. */
const TIMER_ONLY: ReadonlySet<string> = new Set(['hello', 'helloJoin', 'ready', 'readyIdle', 'shutdown', 'interactiveGrace']);
const timer: Check = (v) => (typeof v === 'number' && v >= 0 && v <= MAX_TIMER_MS ? undefined : `a number of ms from 0 to ${MAX_TIMER_MS}`);

const inMemory: Check = (v) =>
  Array.isArray(v) && v.every((item) => isObject(item) && typeof item.name === 'string' && typeof item.connect === 'function' && (item.dir === undefined || typeof item.dir === 'string'))
    ? undefined
    : 'an array of { name: string, connect: function, dir?: string }';

const scopeCheck = (v: unknown): boolean =>
  v === 'all' || v === 'none' || (isObject(v) && Object.values(v).every((f) => f === undefined || typeof f === 'boolean' || (Array.isArray(f) && f.every((n) => typeof n === 'string'))));
const permissionsCheck: Check = (v) =>
  isObject(v) && (v.default === undefined || scopeCheck(v.default)) && (v.byExtension === undefined || (isObject(v.byExtension) && Object.values(v.byExtension).every(scopeCheck)))
    ? undefined
    : "{ default?: Scope, byExtension?: { [name]: Scope } } where a Scope is 'all', 'none' or { commands?, tools?, events?, intercept?, submit?, panels?, notes?, callTool? } of booleans or name lists";

/** Each option's check; an option not listed here is not checked (a later addition, or unknown). */
const CHECKS: { readonly [K in keyof ExtensionHostOptions]?: Check } = {
  cwd: string,
  appName: nonEmpty,
  home: string,
  explicit: strings,
  discover: boolean,
  inMemory,
  mcpServers: (v) => {
    if (!isObject(v)) return 'an object of MCP servers by extension name';
    for (const [name, config] of Object.entries(v)) {
      const problem = nameProblem(name) ?? mcpProblem(config)?.replace(/"mcp(\.?)/g, (_m, dot: string) => (dot === '' ? `"${name}` : `"${name}.`));
      if (problem !== undefined) return `an object of MCP servers by extension name ({ command, args?, env?, prefix? } or { url, headers?, prefix? }): ${problem}`;
    }
    return undefined;
  },
  hostVersion: string,
  sessionId: nonEmpty,
  provider: string,
  model: string,
  builtinCommands: strings,
  builtinTools: strings,
  callToolConcurrency: (v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 ? undefined : 'a whole number >= 1'),
  callbacks: object,
  timeouts: object,
  logDir: string,
  env: (v) => (v === 'inherit' || v === 'minimal' || isObject(v) ? undefined : "'inherit', 'minimal' or an object (the exact environment)"),
  envAllow: strings,
  envByExtension: object,
  permissions: permissionsCheck,
  maxFrameBytes: bytes,
  maxOutboundBytes: bytes,
  revalidateIntercepts: boolean,
  interceptPolicy: object,
  logMaxBytes: bytesOrInfinity,
  restart: (v) => (typeof v === 'boolean' || isObject(v) ? undefined : 'a boolean or an object'),
  frameTap: (v) => (typeof v === 'function' ? undefined : 'a function'),
  tracing: (v) =>
    typeof v === 'boolean' || (isObject(v) && (v.tracerProvider === undefined || typeof (v.tracerProvider as { getTracer?: unknown } | null)?.getTracer === 'function'))
      ? undefined
      : 'a boolean or { tracerProvider } (an OpenTelemetry TracerProvider)',
  rateLimits: (v) =>
    isObject(v) && ['submit', 'notify', 'clearNotes', 'panelRender', 'openPanel'].every((k) => v[k] === undefined || v[k] === Infinity || (typeof v[k] === 'number' && Number.isSafeInteger(v[k]) && v[k] >= 0)) && (v.windowMs === undefined || (typeof v.windowMs === 'number' && v.windowMs >= 1 && v.windowMs <= MAX_TIMER_MS))
      ? undefined
      : `{ submit?, notify?, clearNotes?, panelRender?, openPanel?, windowMs? }: frame counts that are whole numbers >= 0 or Infinity, windowMs from 1 to ${MAX_TIMER_MS}`,
  sandbox: sandboxOptionProblem,
  sandboxByExtension: (v) => (isObject(v) ? Object.values(v).map(sandboxOptionProblem).find((p) => p !== undefined) : 'an object: { [extension name]: sandbox option }'),
  trust: (v) => (v === 'all' || v === 'none' || typeof v === 'function' ? undefined : "'all', 'none' or a function (request) => 'once' | 'always' | 'deny'"),
  keepAlive: (v) => (isObject(v) && [v.intervalMs, v.timeoutMs].every((ms) => ms === undefined || (typeof ms === 'number' && ms > 0 && ms <= MAX_TIMER_MS)) ? undefined : `{ intervalMs?, timeoutMs? } of numbers of ms from 1 to ${MAX_TIMER_MS}`),
};

/** The fields of a `restart` policy object; each bound keeps the restart history and backoff table small. */
const RESTART_CHECKS: Readonly<Record<string, Check>> = {
  maxRestarts: (v) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 100 ? undefined : 'a whole number from 0 to 100'),
  windowMs: (v) => (typeof v === 'number' && v > 0 ? undefined : 'a number of ms > 0, or Infinity'),
  backoffMs: (v) =>
    Array.isArray(v) && v.length >= 1 && v.length <= 100 && v.every((ms) => typeof ms === 'number' && ms >= 0 && ms <= MAX_TIMER_MS)
      ? undefined
      : `an array of 1 to 100 numbers of ms from 0 to ${MAX_TIMER_MS}`,
  jitter: (v) => (typeof v === 'number' && v >= 0 && v <= 1 ? undefined : 'a number from 0 to 1'),
};

function invalid(option: string, expected: string, value: unknown): ExtensionHostError {
  return new ExtensionHostError(ErrorCode.INVALID_OPTIONS, `ExtensionHost option ${option} must be ${expected}, got ${describeValue(value)}`);
}

/** A value in a message, without calling anything of it (no toString, no getter). */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === undefined || value === null) return String(value);
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Throws INVALID_OPTIONS naming the first invalid option. `defaultTimeouts` is the host's table of
 * timeout defaults: every key of it (and any other key given in `timeouts`) must be a timeout.
 * `undefined` always means "the default".
 */
export function validateOptions(options: unknown, defaultTimeouts: Readonly<Record<string, number>>): asserts options is ExtensionHostOptions {
  if (options === undefined) return;
  if (!isObject(options)) throw invalid('(the options object)', 'an object', options);
  for (const [name, check] of Object.entries(CHECKS)) {
    const value = options[name];
    if (value === undefined || check === undefined) continue;
    const expected = check(value);
    if (expected !== undefined) throw invalid(name, expected, value);
  }
  const timeouts = options.timeouts as Record<string, unknown> | undefined;
  if (timeouts !== undefined) {
    for (const key of new Set([...Object.keys(defaultTimeouts), ...Object.keys(timeouts)])) {
      const value = timeouts[key];
      if (value === undefined) continue;
      const expected = (TIMER_ONLY.has(key) ? timer : timeout)(value);
      if (expected !== undefined) throw invalid(`timeouts.${key}`, expected, value);
    }
  }
  const callbacks = options.callbacks as Record<string, unknown> | undefined;
  if (callbacks !== undefined) {
    for (const [key, value] of Object.entries(callbacks)) {
      if (value !== undefined && typeof value !== 'function') throw invalid(`callbacks.${key}`, 'a function', value);
    }
  }
  const restart = options.restart;
  if (isObject(restart)) {
    for (const [key, value] of Object.entries(restart)) {
      const check = Object.hasOwn(RESTART_CHECKS, key) ? RESTART_CHECKS[key] : undefined;
      // A misspelt field would silently mean its default.
      if (check === undefined) throw new ExtensionHostError(ErrorCode.INVALID_OPTIONS, `ExtensionHost option restart has an unknown field ${describeValue(key)} (known: ${Object.keys(RESTART_CHECKS).join(', ')})`);
      const expected = value === undefined ? undefined : check(value);
      if (expected !== undefined) throw invalid(`restart.${key}`, expected, value);
    }
  }
  for (const [option, table] of byNameOptions(options)) sameNameKeys(option, table);
  const policies = options.interceptPolicy as Record<string, unknown> | undefined;
  if (policies !== undefined) {
    for (const [name, policy] of Object.entries(policies)) {
      if (policy === undefined) continue;
      if (!isObject(policy)) throw invalid(`interceptPolicy[${JSON.stringify(name)}]`, 'an object', policy);
      const onFailure = policy.onFailure;
      if (onFailure !== undefined && onFailure !== 'allow' && onFailure !== 'block') {
        throw invalid(`interceptPolicy[${JSON.stringify(name)}].onFailure`, "'allow' or 'block'", onFailure);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Options keyed by extension name (`permissions.byExtension`, `envByExtension`, `interceptPolicy`, `sandboxByExtension`):
// a key names the extension whose name is the same by discovery's identity rule (NFC + case
// folding, manifest/limits.ts nameKey), so a policy for `guard` applies to a manifest named `Guard`.
// ---------------------------------------------------------------------------------------------

/** Every option keyed by extension name, as [its name in messages, the table]. */
function byNameOptions(options: Record<string, unknown>): [string, unknown][] {
  const permissions = options.permissions;
  return [
    ['permissions.byExtension', isObject(permissions) ? permissions.byExtension : undefined],
    ['envByExtension', options.envByExtension],
    ['interceptPolicy', options.interceptPolicy],
    ['sandboxByExtension', options.sandboxByExtension],
  ];
}

/** Two keys of one table that name the same extension are a contradiction: INVALID_OPTIONS. */
function sameNameKeys(option: string, table: unknown): void {
  if (!isObject(table)) return;
  const seen = new Map<string, string>();
  for (const key of Object.keys(table)) {
    const other = seen.get(nameKey(key));
    if (other !== undefined) {
      throw new ExtensionHostError(ErrorCode.INVALID_OPTIONS, `ExtensionHost option ${option} has the keys ${JSON.stringify(other)} and ${JSON.stringify(key)}, which name the same extension (names are compared after NFC normalisation and case folding); keep one`);
    }
    seen.set(nameKey(key), key);
  }
}

/**
 * What `table` holds for the extension `name`: its own key of the same name by the identity rule
 * (own keys only: an extension named `constructor` or `__proto__` gets nothing by accident).
 */
export function forExtension<T>(table: Readonly<Record<string, T>> | undefined, name: string): T | undefined {
  if (table === undefined) return undefined;
  if (Object.hasOwn(table, name)) return table[name];
  const key = nameKey(name);
  for (const own of Object.keys(table)) if (nameKey(own) === key) return table[own];
  return undefined;
}

/** The policy for one extension (see forExtension). */
export function policyFor(policies: ExtensionHostOptions['interceptPolicy'], name: string): InterceptPolicy | undefined {
  const policy = forExtension(policies, name);
  const onFailure = policy?.onFailure;
  return onFailure === 'allow' || onFailure === 'block' ? { onFailure } : undefined;
}

/** setModel's argument read once: `provider` and `model` strings or undefined, anything else INVALID_ARGUMENT. */
export function modelInput(value: unknown): { provider: string | undefined; model: string | undefined } {
  if (typeof value !== 'object' || value === null) throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `setModel: the argument must be { provider?, model? }, got ${describeValue(value)}`);
  let read: { provider: unknown; model: unknown };
  try {
    read = { provider: (value as { provider?: unknown }).provider, model: (value as { model?: unknown }).model };
  } catch (err) {
    throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, 'setModel: the argument could not be read', { cause: err });
  }
  for (const key of ['provider', 'model'] as const) {
    if (read[key] !== undefined && typeof read[key] !== 'string') throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `setModel: ${key} must be a string, got ${describeValue(read[key])}`);
  }
  return read as { provider: string | undefined; model: string | undefined };
}
