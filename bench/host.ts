/**
 * Our host, loaded at run time so the runner works before ExtensionHost exists (the host column
 * then reads "n/a"). The shape below is the subset of the public API the scenarios use.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchWorkspace, EchoExtension } from './extensions.js';

export interface HostToolResult {
  content?: Array<{ type: string; text?: string }> | undefined;
  isError?: boolean | undefined;
}

export interface HostLike {
  start(): Promise<{ loaded: readonly unknown[]; failed: readonly unknown[] }>;
  stop(): Promise<void>;
  callTool(name: string, args: Record<string, unknown>): Promise<HostToolResult>;
  emit(event: { event: string; [key: string]: unknown }): void;
  runCommand(input: string): Promise<{ handled: boolean; failure?: unknown }>;
  commands(): readonly unknown[];
  on(event: 'commands:changed', listener: (commands: readonly unknown[]) => void): unknown;
  off(event: 'commands:changed', listener: (commands: readonly unknown[]) => void): unknown;
  intercepts: {
    toolCall(input: { toolId: string; toolName: string; args: Record<string, unknown> }): Promise<unknown>;
  };
}

type HostConstructor = new (options: Record<string, unknown>) => HostLike;

/** The subset of `ManifestDiscovery` the discovery scenario uses. */
export interface DiscoveryLike {
  discover(): Promise<{ extensions: readonly unknown[] }>;
}
export type DiscoveryConstructor = new (options: { cwd: string; home: string }) => DiscoveryLike;

export type HostModule =
  | {
      ok: true;
      from: string;
      ExtensionHost: HostConstructor;
      /** The same module's ManifestDiscovery (undefined for a build without it). */
      ManifestDiscovery: DiscoveryConstructor | undefined;
      /** The module's URL (what the cold-import probes load, unless it is src/). */
      url: string;
    }
  | { ok: false; reason: string; skipped?: boolean | undefined };

/** The repository root. */
export const REPO = fileURLToPath(new URL('../', import.meta.url));
/** The built entry point the `dist` host and the cold-import scenario load. */
export const DIST = join(REPO, 'dist', 'index.js');

/** Newest modification time of any file under `dir`, in ms. */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** True when dist/ exists and is not older than any file of src/. */
export function distIsFresh(): boolean {
  return existsSync(DIST) && newestMtime(join(REPO, 'src')) <= statSync(DIST).mtimeMs;
}

/** True when the nearest package.json above `file` says `"type": "module"` (Node then loads `.js` as ESM). */
function inModuleScope(file: string): boolean {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        return (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: unknown }).type === 'module';
      } catch {
        return false;
      }
    }
    if (dirname(dir) === dir) return false;
  }
}

/**
 * Imports ExtensionHost from `auto` (`dist` when the build is up to date, else `src`), `src` (../src/index.ts, through tsx), `dist` (../dist/index.js), or any
 * other module path or URL (e.g. a build of an older commit, to measure a change); `none` skips the
 * host column. Never throws.
 */
export async function loadHost(requested: string): Promise<HostModule> {
  if (requested === 'none') return { ok: false, reason: 'not measured (--host none)', skipped: true };
  const spec = requested === 'auto' ? (distIsFresh() ? 'dist' : 'src') : requested;
  const url =
    spec === 'src'
      ? new URL('../src/index.ts', import.meta.url)
      : spec === 'dist'
        ? new URL('../dist/index.js', import.meta.url)
        : /^[a-z]+:/i.test(spec)
          ? new URL(spec)
          : pathToFileURL(resolve(spec));
  const from =
    requested === 'auto'
      ? spec === 'dist'
        ? 'dist (auto: the build is up to date)'
        : 'src (auto: dist/ is missing or older than src/; `npm run build` for published numbers)'
      : spec === 'src' || spec === 'dist'
        ? spec
        : url.href;
  if (url.protocol === 'file:' && !existsSync(url)) return { ok: false, reason: `${from} not found` };
  if (url.protocol === 'file:' && url.pathname.endsWith('.js') && !inModuleScope(fileURLToPath(url))) {
    // A copied dist/ without its package.json: Node would read the ESM build as CommonJS and tsx
    // would transform it on the fly (numbers several us per call off, measured).
    return { ok: false, reason: `${from}: no package.json with "type": "module" above it (copy one next to the build)` };
  }
  try {
    const mod = (await import(url.href)) as Record<string, unknown>;
    const ctor = mod.ExtensionHost;
    if (typeof ctor !== 'function') return { ok: false, reason: `ExtensionHost is not exported from ${from}` };
    const discovery = typeof mod.ManifestDiscovery === 'function' ? (mod.ManifestDiscovery as DiscoveryConstructor) : undefined;
    return { ok: true, from, ExtensionHost: ctor as HostConstructor, ManifestDiscovery: discovery, url: url.href };
  } catch (error) {
    return { ok: false, reason: `import of ${from} failed: ${(error as Error).message}` };
  }
}

/** Constructs and starts a host over `extensions`; throws if any of them failed to load. */
export async function startHost(
  ctor: HostConstructor,
  workspace: BenchWorkspace,
  extensions: readonly Pick<EchoExtension, 'dir'>[],
  /** More host options (the sandbox scenario's `sandbox`). */
  options: Record<string, unknown> = {},
): Promise<HostLike> {
  const host = new ctor({
    cwd: workspace.root,
    home: workspace.home,
    logDir: workspace.logDir,
    explicit: extensions.map((e) => e.dir),
    discover: false,
    callbacks: {},
    ...options,
  });
  const report = await host.start();
  if (report.failed.length > 0 || report.loaded.length !== extensions.length) {
    await host.stop();
    throw new Error(`host loaded ${report.loaded.length}/${extensions.length}: ${JSON.stringify(report.failed)}`);
  }
  return host;
}

/** tools/call through the host -> the text of the first content block; isError throws. */
export async function hostCall(host: HostLike, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await host.callTool(name, args);
  const text = result.content?.[0]?.text ?? '';
  if (result.isError === true) throw new Error(`tool error: ${text}`);
  return text;
}
