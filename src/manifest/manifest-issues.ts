// The manifest schema's issues as diagnostics that say what to write instead.
import { DiagnosticCode, type DiscoveryDiagnostic } from './diagnostics.js';

/** Turns schema issues into diagnostics: unsafe names apart (NAME_UNSAFE), the rest in one MANIFEST_INVALID. */
export function manifestIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string; code: string; params?: unknown }[],
  value: unknown,
  manifestPath: string,
): DiscoveryDiagnostic[] {
  const rawName = (value as { name?: unknown } | null)?.name;
  const unsafe = issues.filter(
    (i) => i.code === 'custom' && (i.params as { unsafeName?: boolean } | undefined)?.unsafeName === true,
  );
  const nameOk = typeof rawName === 'string' && unsafe.length === 0;
  const extension = nameOk ? rawName : undefined;
  const out: DiscoveryDiagnostic[] = unsafe.map((i) => ({
    code: DiagnosticCode.NAME_UNSAFE,
    severity: 'error',
    message: `${manifestPath}: ${i.message}; use a short name of letters, digits, "-", "_" or "."`,
    path: manifestPath,
  }));
  const rest = issues.filter((i) => !unsafe.includes(i));
  if (rest.length > 0) {
    const lines = rest.map((i) => describeIssue(i, value));
    out.push({
      code: DiagnosticCode.MANIFEST_INVALID,
      severity: 'error',
      message: `${manifestPath}: ${lines.join('; ')}`,
      path: manifestPath,
      extension,
    });
  }
  return out;
}

const EXPECTED: Record<string, string> = {
  name: 'a string',
  version: 'a string',
  exec: 'a string (path to the program)',
  args: 'an array of strings',
  url: 'a string (a ws:// or wss:// URL)',
  headers: 'an object of string values',
  language: 'a string',
  description: 'a string',
  skills: 'an array of paths (strings)',
  enabled: 'true or false',
};

function describeIssue(issue: { path: readonly PropertyKey[]; message: string; code: string }, value: unknown): string {
  if (issue.path.length === 0) {
    return `the manifest must be a JSON object, got ${kindOf(value)}`;
  }
  const [field, ...rest] = issue.path;
  const key = String(field);
  const where = `"${key}"${rest.map((p) => `[${String(p)}]`).join('')}`;
  const actual = issue.path.reduce<unknown>(
    (v, p) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined),
    value,
  );
  if (issue.code === 'invalid_type') {
    if (actual === undefined) return `${where} is required (${EXPECTED[key] ?? 'see docs/discovery.md'})`;
    const expected = rest.length > 0 ? 'a string' : (EXPECTED[key] ?? 'another type');
    return `${where} must be ${expected}, got ${kindOf(actual)}`;
  }
  return `${where}: ${issue.message}`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
