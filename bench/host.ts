/**
 * Our host, loaded at run time so the runner works before ExtensionHost exists (the host column
 * then reads "n/a"). The shape below is the subset of the public API the scenarios use.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
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
  intercepts: {
    toolCall(input: { toolId: string; toolName: string; args: Record<string, unknown> }): Promise<unknown>;
  };
}

type HostConstructor = new (options: Record<string, unknown>) => HostLike;

export type HostModule =
  | { ok: true; from: string; ExtensionHost: HostConstructor }
  | { ok: false; reason: string; skipped?: boolean | undefined };

/**
 * Imports ExtensionHost from `src` (../src/index.ts, through tsx), `dist` (../dist/index.js), or any
 * other module path or URL (e.g. a build of an older commit, to measure a change); `none` skips the
 * host column. Never throws.
 */
export async function loadHost(spec: string): Promise<HostModule> {
  if (spec === 'none') return { ok: false, reason: 'not measured (--host none)', skipped: true };
  const url =
    spec === 'src'
      ? new URL('../src/index.ts', import.meta.url)
      : spec === 'dist'
        ? new URL('../dist/index.js', import.meta.url)
        : /^[a-z]+:/i.test(spec)
          ? new URL(spec)
          : pathToFileURL(resolve(spec));
  const from = spec === 'src' || spec === 'dist' ? spec : url.href;
  if (url.protocol === 'file:' && !existsSync(url)) return { ok: false, reason: `${from} not found` };
  try {
    const mod = (await import(url.href)) as Record<string, unknown>;
    const ctor = mod.ExtensionHost;
    if (typeof ctor !== 'function') return { ok: false, reason: `ExtensionHost is not exported from ${from}` };
    return { ok: true, from, ExtensionHost: ctor as HostConstructor };
  } catch (error) {
    return { ok: false, reason: `import of ${from} failed: ${(error as Error).message}` };
  }
}

/** Constructs and starts a host over `extensions`; throws if any of them failed to load. */
export async function startHost(
  ctor: HostConstructor,
  workspace: BenchWorkspace,
  extensions: readonly EchoExtension[],
): Promise<HostLike> {
  const host = new ctor({
    cwd: workspace.root,
    home: workspace.home,
    logDir: workspace.logDir,
    explicit: extensions.map((e) => e.dir),
    discover: false,
    callbacks: {},
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
