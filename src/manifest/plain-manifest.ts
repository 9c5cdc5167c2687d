/**
 * Zod-free validation of a manifest in its plain valid shape (schema.ts stays the only definition):
 * every known field of the right type, no `null`, a safe name. It gives exactly the schema's output
 * (test/manifest/plain-manifest.test.ts): the known keys first in the schema's order, `enabled`
 * defaulted, then the unknown keys as read. Anything else returns `undefined`, and the schema
 * decides and words the problem; zod loads only then.
 */
import { nameProblem } from './limits.js';
import type { Manifest } from './schema.js';

type Json = Record<string, unknown>;

const STRINGS = ['version', 'language', 'description'] as const;
const KNOWN = new Set(['name', 'version', 'exec', 'args', 'language', 'description', 'skills', 'env', 'permissions', 'enabled']);

function strings(value: unknown, nonEmpty: boolean): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'string' || (nonEmpty && item.length === 0)) return false;
  }
  return true;
}

/** `value` (parsed JSON) as the schema's `Manifest`, or `undefined` when the schema must decide. */
export function plainManifest(value: unknown): Manifest | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const m = value as Json;
  if (Object.prototype.hasOwnProperty.call(m, '__proto__')) return undefined;
  // A remote extension's fields, an MCP server and a sandbox request (rare) are the schema's to check.
  if (m.url !== undefined || m.headers !== undefined || m.mcp !== undefined || m.sandbox !== undefined) return undefined;
  const { name, exec, args, skills, env, permissions, enabled } = m;
  if (typeof name !== 'string' || nameProblem(name) !== undefined) return undefined;
  for (const key of STRINGS) if (m[key] !== undefined && typeof m[key] !== 'string') return undefined;
  if (exec !== undefined && (typeof exec !== 'string' || exec.length === 0)) return undefined;
  if (args !== undefined && !strings(args, false)) return undefined;
  if (skills !== undefined && !strings(skills, true)) return undefined;
  if (env !== undefined && !strings(env, true)) return undefined;
  if (permissions !== undefined && !strings(permissions, false)) return undefined;
  if (enabled !== undefined && typeof enabled !== 'boolean') return undefined;
  const out: Json = { name };
  if (m.version !== undefined) out.version = m.version;
  if (exec !== undefined) out.exec = exec;
  if (args !== undefined) out.args = [...(args as string[])];
  if (m.language !== undefined) out.language = m.language;
  if (m.description !== undefined) out.description = m.description;
  if (skills !== undefined) out.skills = [...(skills as string[])];
  if (env !== undefined) out.env = [...(env as string[])];
  if (permissions !== undefined) out.permissions = [...(permissions as string[])];
  out.enabled = enabled ?? true;
  for (const key in m) if (!KNOWN.has(key)) out[key] = m[key];
  return out as Manifest;
}
