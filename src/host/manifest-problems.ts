// Manifests discovery refused (bad JSON, a schema violation, no exec, ...) as host diagnostics, so
// that an embedder reading host.diagnostics() or listening to 'diagnostic' sees why an extension is
// missing, not only start()'s report.
import { ErrorCode } from '../errors.js';
import { DiagnosticCode, type DiscoveryDiagnostic } from '../manifest/diagnostics.js';
import type { HostDiagnostics } from './diagnostics.js';
import type { HostDiagnostic } from './types.js';

/** Per start at most this many are listed, then one summary counts the rest: a root of 10,000 bad manifests costs 101 entries. */
export const MAX_MANIFEST_DIAGNOSTICS = 100;

/** The discovery codes of a manifest that cannot be loaded (as errors: a stray directory in a root without one is only a warning). */
const REFUSED: ReadonlySet<string> = new Set([
  DiagnosticCode.MANIFEST_MISSING,
  DiagnosticCode.MANIFEST_UNREADABLE,
  DiagnosticCode.MANIFEST_TOO_LARGE,
  DiagnosticCode.MANIFEST_INVALID_JSON,
  DiagnosticCode.MANIFEST_INVALID,
  DiagnosticCode.NAME_UNSAFE,
  DiagnosticCode.EXEC_MISSING,
]);

/** Made here: start()'s report lists discovery's own diagnostics instead. */
const made = new WeakSet<HostDiagnostic>();

/** Whether `d` is a refused manifest's host diagnostic (the report has discovery's original). */
export function fromDiscovery(d: HostDiagnostic): boolean {
  return made.has(d);
}

/** Records every refused manifest of one discovery as a MANIFEST_INVALID diagnostic naming its path, up to the bound. */
export function reportRefusedManifests(diagnostics: HostDiagnostics, found: readonly DiscoveryDiagnostic[]): void {
  let listed = 0;
  let more = 0;
  for (const d of found) {
    if (d.severity !== 'error' || !REFUSED.has(d.code)) continue;
    if (listed === MAX_MANIFEST_DIAGNOSTICS) {
      more++;
      continue;
    }
    listed++;
    const refused: HostDiagnostic = { code: ErrorCode.MANIFEST_INVALID, message: d.message, path: d.path, severity: 'error' };
    if (d.extension !== undefined) refused.extension = d.extension;
    made.add(refused);
    diagnostics.unattached(refused);
  }
  if (more === 0) return;
  const summary: HostDiagnostic = {
    code: ErrorCode.MANIFEST_INVALID,
    message: `${more} more manifests could not be loaded (not listed here); start()'s report.diagnostics lists every one, and zot-ext doctor checks them`,
    severity: 'error',
  };
  made.add(summary);
  diagnostics.unattached(summary);
}
