// Name conflicts: the first extension of a name wins; later ones are listed as shadowed. Names are
// compared by nameKey() (NFC, case-folded): `Guard` and `guard` are one extension, not two.
import { DiagnosticCode, type DiscoveryDiagnostic } from './diagnostics.js';
import type { DiscoveredExtension, DiscoveryResult } from './discovered.js';
import { nameKey } from './limits.js';
import type { Slot } from './slot.js';

/** Orders slots into the result: dedup by name, first wins; the rest are listed as shadowed. */
export function dedup(slots: readonly Slot[]): DiscoveryResult {
  const extensions: DiscoveredExtension[] = [];
  const diagnostics: DiscoveryDiagnostic[] = [];
  const winners = new Map<string, DiscoveredExtension>();
  for (const slot of slots) {
    diagnostics.push(...slot.diagnostics);
    if (slot.extension === undefined) continue;
    const ext = slot.extension;
    ext.order = extensions.length;
    const key = nameKey(ext.name);
    const winner = winners.get(key);
    if (winner === undefined) {
      winners.set(key, ext);
    } else {
      ext.shadowedBy = { name: winner.name, dir: winner.dir, source: winner.source };
      const same = winner.source === ext.source;
      const alike = winner.name === ext.name ? '' : ` (${JSON.stringify(ext.name)} and ${JSON.stringify(winner.name)} differ only by case or Unicode normalisation, so they name one extension)`;
      diagnostics.push({
        code: same ? DiagnosticCode.DUPLICATE_NAME : DiagnosticCode.SHADOWED,
        severity: 'warning',
        message: same
          ? `two ${ext.source} extensions are named "${winner.name}": ${winner.dir} is loaded, ${ext.dir} is ignored; change "name" in one of their extension.json files${alike}`
          : `${ext.source} extension "${ext.name}" in ${ext.dir} is shadowed by the ${winner.source} one in ${winner.dir} and will not be spawned; remove or rename one of them if that is not intended${alike}`,
        path: ext.manifestPath,
        extension: ext.name,
      });
    }
    extensions.push(ext);
  }
  return { extensions, diagnostics };
}
