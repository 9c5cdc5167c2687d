// Discovery's unit of work: a manifest to read (Target), and what came of one directory (Slot).
import path from 'node:path';
import type { DiagnosticCode, DiagnosticSeverity, DiscoveryDiagnostic } from './diagnostics.js';
import type { DiscoveredExtension, ExtensionSource } from './discovered.js';

/** The outcome for one directory (or explicit path), in load order. */
export interface Slot {
  /** Not shared: dedup() fills in `order` and `shadowedBy`. */
  extension?: DiscoveredExtension | undefined;
  diagnostics: DiscoveryDiagnostic[];
}

/** A manifest to read. */
export interface Target {
  dir: string;
  file: string;
  manifestPath: string;
  source: ExtensionSource;
}

export const isTarget = (item: Target | Slot): item is Target => !('diagnostics' in item);

export const target = (dir: string, file: string, source: ExtensionSource): Target => ({
  dir,
  file,
  manifestPath: path.join(dir, file),
  source,
});

/** A slot holding one diagnostic. */
export function problem(
  code: DiagnosticCode,
  severity: DiagnosticSeverity,
  message: string,
  at: string,
  extension?: string,
): Slot {
  return { diagnostics: [{ code, severity, message, path: at, extension }] };
}
