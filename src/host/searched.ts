// Where start() looked for extensions, so that "nothing loaded" says where nothing was found.
import type { ManifestDiscovery } from '../manifest/discovery.js';
import type { HostDiagnostic } from './types.js';

/** The explicit paths, then (unless `discover: false`) the project and the global root, absolute. */
export function searchedDirs(discovery: ManifestDiscovery): string[] {
  return [...discovery.explicit, ...(discovery.scansRoots ? [discovery.projectRoot, discovery.globalRoot] : [])];
}

export function noExtensions(searched: readonly string[]): HostDiagnostic {
  const where = searched.length === 0 ? 'nowhere (discover: false and no explicit paths)' : searched.join(', ');
  return { code: 'NO_EXTENSIONS', message: `no extensions found; searched ${where}`, severity: 'info' };
}
