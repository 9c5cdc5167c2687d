// What discovery returns: the extensions it found, in load order, and its diagnostics.
import type { DiscoveryDiagnostic } from './diagnostics.js';
import type { Manifest } from './schema.js';
import type { SkillInfo } from './skills.js';

/** Where an extension was found; also its precedence (explicit beats project beats global). */
export type ExtensionSource = 'explicit' | 'project' | 'global';

/** `process` is spawned; `skills` and `theme` bundles never are. */
export type ExtensionKind = 'process' | 'skills' | 'theme';

/** The extension that wins over a shadowed one. */
export interface ShadowingExtension {
  name: string;
  dir: string;
  source: ExtensionSource;
}

/** One extension with a valid manifest, as discovery found it. */
export interface DiscoveredExtension {
  /** The manifest name: unique key, log name, must match the `hello` frame. */
  name: string;
  /** Real absolute path of the extension directory (symlinks resolved). */
  dir: string;
  /** Absolute path of the manifest file. */
  manifestPath: string;
  source: ExtensionSource;
  /** `process` when the manifest has `exec`; else `skills` when it lists skills; else `theme`. */
  kind: ExtensionKind;
  /** The manifest's `enabled` (default true). Disabled extensions are listed, not spawned. */
  enabled: boolean;
  /** Set when an earlier extension has the same name; this one is never spawned. */
  shadowedBy?: ShadowingExtension | undefined;
  /** The parsed manifest, unknown fields included. */
  manifest: Manifest;
  /** The skills the extension ships (see `skills` in the manifest). */
  skills: SkillInfo[];
  /** `theme.json` or `themes/theme.json`, when the extension ships one. */
  themePath?: string | undefined;
  /** Position in load order among all listed extensions (0-based; equals the array index). */
  order: number;
}

export interface DiscoveryResult {
  /** Every extension with a valid manifest, in load order, disabled and shadowed ones included. */
  extensions: DiscoveredExtension[];
  /** Every problem found, in load order of what it concerns. */
  diagnostics: DiscoveryDiagnostic[];
}

/** True for the extensions a host spawns: process kind, enabled, not shadowed. */
export function isSpawnable(extension: DiscoveredExtension): boolean {
  return extension.kind === 'process' && extension.enabled && extension.shadowedBy === undefined;
}
