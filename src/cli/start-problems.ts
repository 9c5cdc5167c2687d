// What doctor and run both say about a start: which diagnostics are discovery's, and the words for
// an extension that sent no hello in time.
import type { HostDiagnostic, HostWarning } from '../host/types.js';
import { DiagnosticCode, type DiscoveryDiagnostic } from '../manifest/index.js';

const DISCOVERY_CODES: ReadonlySet<string> = new Set(Object.values(DiagnosticCode));

/** A diagnostic of discovery (a manifest), not of a started extension. */
export function isDiscoveryDiagnostic(d: HostDiagnostic | DiscoveryDiagnostic): d is DiscoveryDiagnostic {
  return DISCOVERY_CODES.has(d.code);
}

/** A warning the host made of a discovery diagnostic (run prints the start report's instead). */
export function isDiscoveryWarning(w: HostWarning): boolean {
  return w.code !== undefined && w.path !== undefined && DISCOVERY_CODES.has(w.code);
}

/** An extension still starting after start(): no hello within the hello timeout. */
export function noHelloYet(ms: number): string {
  return `no hello after ${ms} ms (HELLO_TIMEOUT)`;
}
