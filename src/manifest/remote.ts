// What names a remote extension: its `url` (ws:// or wss://) and its `headers`, whose `env:NAME`
// values are read from the host's environment at connect time. No zod here: the transport and the
// explicit-path handling use these too.
import { MAX_NAME_LENGTH } from './limits.js';

/** Most headers a remote extension may send. */
export const MAX_HEADERS = 32;
/** Longest header value, in characters (after `env:` substitution too). */
export const MAX_HEADER_VALUE = 8192;

// RFC 7230 token.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const ENV_REF = /^env:(.+)$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `scheme://` at the start (the scheme captured): a URL rather than a path. */
export const URL_SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

/** Looks like a URL (`scheme://`) rather than a path: explicit entries of this form are remote. */
export function looksLikeUrl(value: string): boolean {
  return URL_SCHEME.test(value);
}

/** Why `url` cannot name a remote extension, or undefined. */
export function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(redactUrl(url))} is not a valid URL`;
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
    return `${JSON.stringify(redactUrl(url))} has the scheme ${JSON.stringify(parsed.protocol.slice(0, -1))}; a remote extension is reached over "ws://" or "wss://"`;
  }
  if (parsed.hash !== '') return `${JSON.stringify(redactUrl(url))} must not have a #fragment`;
  return undefined;
}

/** `url` with any user name and password replaced by `***` (what logs, diagnostics and extensions() show). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '***';
    if (parsed.password !== '') parsed.password = '***';
    return parsed.href;
  } catch {
    // Unparseable: drop anything that could be userinfo.
    return url.replace(/\/\/[^/@]*@/, '//***@');
  }
}

// `scheme://` then userinfo up to an `@` before the host: what redactUrl() masks, found in free text.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]*@/gi;

/** `text` with the user name and password of every URL in it replaced by `***` (see redactUrl). */
export function redactUrlsIn(text: string): string {
  return text.includes('@') && text.includes('://') ? text.replace(URL_USERINFO, '$1***@') : text;
}

/** Whether `text` holds a URL with a user name or password. */
export function hasUrlCredentials(text: string): boolean {
  URL_USERINFO.lastIndex = 0;
  return text.includes('@') && text.includes('://') && URL_USERINFO.test(text);
}

/**
 * The name of an explicit URL entry that has no manifest: host, port and path, every run of other
 * characters than letters, digits, `.`, `_` and `-` turned into one `-` (`ws://10.0.0.5:7000/guard`
 * is `10.0.0.5-7000-guard`).
 */
export function nameFromUrl(url: string): string {
  const parsed = new URL(url);
  const raw = [parsed.hostname, parsed.port, parsed.pathname].join('-');
  const name = raw
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, MAX_NAME_LENGTH)
    .replace(/[-.]+$/, '');
  return name === '' ? 'remote' : name;
}

/** Why a manifest's `headers` object is not acceptable, or undefined. Values are never quoted. */
export function headersProblem(headers: Readonly<Record<string, string>>): string | undefined {
  const names = Object.keys(headers);
  if (names.length > MAX_HEADERS) return `at most ${MAX_HEADERS} headers, got ${names.length}`;
  for (const name of names) {
    if (!TOKEN.test(name)) return `header name ${JSON.stringify(name.slice(0, 40))} is not an HTTP token (letters, digits and !#$%&'*+-.^_\`|~)`;
    const value = headers[name]!;
    const problem = valueProblem(value);
    if (problem !== undefined) return `the value of header ${name} ${problem}`;
    if (ENV_REF.test(value) && headerVariable(value) === undefined) return `header ${name}: ${JSON.stringify(value.slice(0, 40))} is not env:NAME with NAME a variable name`;
  }
  return undefined;
}

/** What is wrong with a header value as sent (written in the manifest, or read from `env:NAME`), or undefined. */
function valueProblem(value: string): string | undefined {
  if (/[\r\n\0]/.test(value)) return 'contains CR, LF or NUL';
  if (value.length > MAX_HEADER_VALUE) return `is longer than ${MAX_HEADER_VALUE} characters`;
  return undefined;
}

/** The variable a header value refers to (`env:NAME`), or undefined for a literal value. */
export function headerVariable(value: string): string | undefined {
  const ref = ENV_REF.exec(value);
  return ref !== null && ENV_NAME.test(ref[1]!) ? ref[1] : undefined;
}

/** The variables of a manifest's `env:NAME` header values, in order. */
export function headerVariables(headers: Readonly<Record<string, string>> | undefined): string[] {
  const out: string[] = [];
  for (const value of Object.values(headers ?? {})) {
    const variable = headerVariable(value);
    if (variable !== undefined && !out.includes(variable)) out.push(variable);
  }
  return out;
}

export type ResolvedHeaders =
  | { ok: true; headers: Record<string, string>; secrets: string[] }
  | { ok: false; header: string; variable: string; problem: string };

/**
 * The headers to send: each `env:NAME` value replaced by the whole value of NAME in `env`. `secrets`
 * are those values (to be redacted wherever the host writes text). A missing (or unusable) variable
 * is a failure naming the header and the variable, never a value.
 */
export function resolveHeaders(headers: Readonly<Record<string, string>> | undefined, env: NodeJS.ProcessEnv): ResolvedHeaders {
  const out: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    const variable = headerVariable(value);
    if (variable === undefined) {
      out[name] = value;
      continue;
    }
    const resolved = env[variable];
    if (resolved === undefined || resolved === '') return { ok: false, header: name, variable, problem: 'is not set' };
    const problem = valueProblem(resolved);
    if (problem !== undefined) return { ok: false, header: name, variable, problem };
    out[name] = resolved;
    secrets.push(resolved);
  }
  return { ok: true, headers: out, secrets };
}
