// What start() and reload() resolve with (docs/embedding.md, "Create and start").
import type { ExtensionHostError } from '../errors.js';
import type { DiscoveryDiagnostic } from '../manifest/index.js';
import type { ExtensionInfo, HostDiagnostic, ReadyVia } from './types.js';

export interface LoadedReport {
  name: string;
  source: ExtensionInfo['source'];
  pid: number | undefined;
  readyVia: ReadyVia;
  readyMs: number;
  logPath: string;
}

export interface FailedReport {
  name: string;
  source: ExtensionInfo['source'];
  error: ExtensionHostError;
  logPath: string;
}

export interface StartingReport {
  name: string;
  source: ExtensionInfo['source'];
  logPath: string;
}

export interface StartReport {
  loaded: LoadedReport[];
  failed: FailedReport[];
  /** Still starting: no hello within `timeouts.hello`; they join later or fail at `timeouts.helloJoin`. */
  starting: StartingReport[];
  /** Discovered but not started: disabled, shadowed, or not a process extension (theme, skills). */
  skipped: { name: string; dir: string; reason: 'disabled' | 'shadowed' | 'theme' | 'skills' }[];
  /**
   * The directories looked in, absolute, in precedence order: the explicit paths, then (unless
   * `discover: false`) `<cwd>/.<appName>/extensions` and `<home>/extensions`. When nothing was found,
   * `diagnostics` also has a `NO_EXTENSIONS` entry naming them.
   */
  searched: string[];
  diagnostics: (HostDiagnostic | DiscoveryDiagnostic)[];
  /** Milliseconds for the whole start. */
  ms: number;
}
