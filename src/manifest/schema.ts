/**
 * The `extension.json` manifest. The zod schema is the only definition of the type. Unknown fields
 * are kept (the CLI rewrites manifests and must not lose them) and otherwise ignored. Optional
 * fields accept `null` as "absent", as other languages often serialise absent values that way.
 */
import { z } from 'zod';
import { nameProblem } from './limits.js';
import { type McpServerConfig, mcpProblem } from './mcp.js';
import { headersProblem, urlProblem } from './remote.js';

// The constants and the name rule live in limits.ts (no zod there: the main entry imports them).
export { MANIFEST_FILE, MAX_MANIFEST_BYTES, MAX_NAME_LENGTH, nameProblem } from './limits.js';

/** Optional field that also accepts `null` as "absent". */
const opt = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === null ? undefined : v), schema.optional());

/** A safe extension name: see {@link nameProblem}. */
export const ManifestName = z.string().superRefine((value, ctx) => {
  const problem = nameProblem(value);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, params: { unsafeName: true } });
});

export const Manifest = z.looseObject({
  /** Identifies the extension; must match the name in its `hello` frame. */
  name: ManifestName,
  /** Shown by `zot-ext list`. */
  version: opt(z.string()),
  /** Executable, relative to the manifest. Required unless the bundle is theme-only or skill-only. */
  exec: opt(z.string().min(1, 'exec must not be empty')),
  /** A remote extension (docs/remote.md): `ws://host:port/path` or `wss://...`, instead of `exec`. */
  url: opt(
    z.string().superRefine((value, ctx) => {
      const problem = urlProblem(value);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }),
  ),
  /**
   * Headers of a remote extension's upgrade request (with `url` only). A value `env:NAME` is the
   * whole value of NAME in the host's environment at connect time, so no secret sits in a manifest.
   */
  headers: opt(
    z.record(z.string(), z.string()).superRefine((value, ctx) => {
      const problem = headersProblem(value);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }),
  ),
  /**
   * An MCP server as the extension (docs/mcp.md), instead of `exec` or `url`: `{"command", "args",
   * "env"}` spawns it (stdio), `{"url", "headers"}` reaches it over Streamable HTTP; `"prefix"` goes
   * before its tool names.
   */
  mcp: opt(
    z.custom<McpServerConfig>().superRefine((value, ctx) => {
      const problem = mcpProblem(value);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }),
  ),
  /** Extra argv passed to `exec`. */
  args: opt(z.array(z.string())),
  /** Informational (`go`, `python`, `typescript`, ...). */
  language: opt(z.string()),
  /** Shown by `zot-ext list`. */
  description: opt(z.string()),
  /** Skill directories (scanned recursively for SKILL.md) or direct SKILL.md paths, relative to the manifest. */
  skills: opt(z.array(z.string().min(1, 'a skills entry must not be empty'))),
  /**
   * Environment variables it needs (names). Under the host's `env: 'minimal'` they are passed when
   * the embedder allows them (`envAllow`); a missing one is a doctor warning. Their values never
   * appear in the host's diagnostics or log lines.
   */
  env: opt(z.array(z.string().min(1, 'an env entry must not be empty'))),
  /**
   * What it needs to do (docs/security.md): `commands`, `tools`, `events` / `events:<name>`,
   * `intercept` / `intercept:<event>`, `submit`, `panels`, `notes`. When present, the host never
   * grants more than this (nor more than its own policy).
   */
  permissions: opt(z.array(z.string())),
  /**
   * The OS sandbox it asks for (docs/security.md#the-sandbox): `"auto"`, `"required"`, or
   * `{ "mode"?: "auto" | "required", "network"?: "none" | "loopback" | "all" }`. It only ever makes
   * the host's policy stricter (a stricter mode, less network); it cannot grant anything.
   */
  sandbox: opt(
    z.union([
      z.enum(['auto', 'required']),
      z.strictObject({ mode: opt(z.enum(['auto', 'required'])), network: opt(z.enum(['none', 'loopback', 'all'])) }),
    ], { error: 'sandbox must be "auto", "required" or { "mode"?: "auto" | "required", "network"?: "none" | "loopback" | "all" } (a manifest can only ask for a stricter sandbox)' }),
  ),
  /** `false` disables the extension without removing it. @default true */
  enabled: z.preprocess((v) => (v === null ? undefined : v), z.boolean().default(true)),
}).superRefine((manifest, ctx) => {
  if (manifest.mcp !== undefined && (manifest.exec !== undefined || manifest.url !== undefined)) {
    ctx.addIssue({ code: 'custom', path: ['mcp'], message: 'use one of "exec" (a program to run), "url" (a remote extension) or "mcp" (an MCP server)' });
  } else if (manifest.exec !== undefined && manifest.url !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['url'], message: 'use either "exec" (a program to run) or "url" (a remote extension), not both' });
  } else if (manifest.headers !== undefined && manifest.url === undefined) {
    ctx.addIssue({ code: 'custom', path: ['headers'], message: '"headers" are sent to a remote extension only: add "url", or remove them' });
  }
});
export type Manifest = z.output<typeof Manifest>;
