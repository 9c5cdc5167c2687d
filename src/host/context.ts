import type { InterceptChain } from '../intercept/chain.js';
import type { SystemPromptPreparer } from '../intercept/system-prompt.js';
import type { ChainStep } from '../intercept/types.js';
import type { ExtensionProcess } from '../process/extension-process.js';
import type { ClosedPanels } from './closed-panels.js';
import type { HostDiagnostics } from './diagnostics.js';
import type { Embedder } from './embedder.js';
import type { InterceptWarnings } from './intercept-warnings.js';
import type { LoadedExtension } from './loaded-extension.js';
import type { TimeoutValues } from './options.js';
import type { HostTracer } from './tracing.js';
import type { Registry } from './registry.js';
import type { ExtensionHostOptions } from './types.js';

export type HostStatus = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped';

export interface CommandValue {
  description: string;
}

export interface ToolValue {
  description: string;
  schema: Record<string, unknown>;
  deferred: boolean;
}

/**
 * The state of one ExtensionHost, shared by the files that act on it (loader, frame router,
 * registrations, commands, tools, panels, interceptors, exit handling): each is a set of functions
 * taking this object, so no part holds a reference to another. Internal; built by ExtensionHost.
 */
export interface HostContext {
  readonly options: ExtensionHostOptions;
  readonly timeouts: TimeoutValues;
  readonly cwd: string;
  readonly appName: string;
  readonly home: string;
  readonly logDir: string;
  provider: string;
  model: string;
  status: HostStatus;
  /** The extensions of the current start, in load order. */
  loaded: LoadedExtension[];
  /** `loaded` by name: the identity check that keeps a stale process (after reload) out. */
  readonly byName: Map<string, LoadedExtension>;
  /** The directories discovery searched in the last start. */
  searched: string[];
  readonly commandRegistry: Registry<CommandValue>;
  readonly toolRegistry: Registry<ToolValue>;
  /** Deferred tools activated since start. */
  readonly activated: Set<string>;
  /** Open panels: each panel id and the extensions that have it open (a panel is the pair), in open order. */
  readonly panels: Map<string, LoadedExtension[]>;
  readonly closedPanels: ClosedPanels<LoadedExtension>;
  /** One chain step per extension that subscribed to an intercept. */
  readonly adapters: Map<LoadedExtension, ChainStep>;
  /** The chain's extension steps as last computed (interceptors.ts); dropped whenever a state, an adapter or the load set changes. */
  adapterList: ChainStep[] | undefined;
  /** Each event's ready subscribers as last computed (event-fanout.ts); dropped whenever a state, a subscription or the load set changes. */
  subscribers: Map<string, ExtensionProcess[]> | undefined;
  readonly chain: InterceptChain;
  readonly preparer: SystemPromptPreparer;
  readonly interceptWarnings: InterceptWarnings;
  readonly diagnostics: HostDiagnostics;
  readonly out: Embedder;
  /** 'commands:changed' once per burst of registrations. */
  readonly commandsChangedSoon: () => void;
  /** `toolsChanged` once per burst (see tools.ts `toolsChangedSoon`). */
  readonly announceToolsSoon: () => void;
  /** Starts a restart attempt of `old` (loader.ts `respawnExtension`); a hook so restarts.ts needs no loader import. */
  readonly respawn: (old: LoadedExtension, reason: string) => { ext: LoadedExtension; started: Promise<void> };
  /** With `tracing` on, from the first start(): the host's spans (tracing.ts). */
  tracer: HostTracer | undefined;
}
