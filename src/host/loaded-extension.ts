import { ExtensionHostError } from '../errors.js';
import { DiagnosticLimiter } from '../process/diagnostic-limiter.js';
import type { ExtensionProcess } from '../process/extension-process.js';
import type { ExtensionInfo, ExtensionState, HostDiagnostic, ReadyVia, RegisteredCommand, RegisteredTool } from './types.js';

/** A host diagnostic about an extension, as its limiter carries it. */
export interface LimitedDiagnostic {
  d: HostDiagnostic;
  log: boolean;
}

/** The host's record of one extension: its connection, state and what it registered. */
export class LoadedExtension {
  state: ExtensionState = 'starting';
  readyVia: ReadyVia | undefined;
  readyMs: number | undefined;
  error: ExtensionHostError | undefined;
  version: string | undefined;
  capabilities: string[] = [];
  /** Registrations by key (commands: lower case). Whether each is active lives in the host's registries. */
  readonly commands = new Map<string, Omit<RegisteredCommand, 'active'>>();
  readonly tools = new Map<string, Omit<RegisteredTool, 'active'> & { schema: Record<string, unknown> }>();
  readonly events = new Set<string>();
  readonly intercept = new Set<string>();
  /** Resolves when the extension is ready, failed or gone. */
  readonly settled: Promise<void>;
  private resolveSettled!: () => void;
  readonly startedAt = performance.now();
  lastFrameAt = 0;
  /** Characters its registrations hold (see registration-limits.ts). */
  registrationChars = 0;
  /** panel_render / panel_close frames for its own panels after they closed, dropped. */
  latePanelFrames = 0;
  /** The host's own diagnostics about this extension (the process limits its own). */
  readonly diagnostics: DiagnosticLimiter<LimitedDiagnostic>;

  constructor(
    readonly name: string,
    readonly dir: string,
    readonly source: ExtensionInfo['source'],
    readonly order: number,
    readonly process: ExtensionProcess,
    emitDiagnostic: (code: string, message: string, detail: LimitedDiagnostic) => void,
  ) {
    this.diagnostics = new DiagnosticLimiter({ emit: emitDiagnostic });
    this.settled = new Promise((resolve) => {
      this.resolveSettled = resolve;
    });
  }

  get logPath(): string {
    return this.process.logPath;
  }

  markReady(via: ReadyVia): boolean {
    if (this.state !== 'starting' || this.process.hello === undefined) return false;
    this.state = 'ready';
    this.readyVia = via;
    this.readyMs = Math.round(performance.now() - this.startedAt);
    this.resolveSettled();
    return true;
  }

  /** Moves to a terminal state; returns the previous state when it changed. */
  end(state: 'failed' | 'exited' | 'stopped', error?: ExtensionHostError): ExtensionState | undefined {
    if (this.state === 'failed' || this.state === 'exited' || this.state === 'stopped') return undefined;
    const previous = this.state;
    this.state = state;
    if (error !== undefined) this.error = error;
    this.resolveSettled();
    return previous;
  }

  /** A snapshot; `isActive` says whether a registration of this extension owns its name. */
  info(isActive: { command(name: string): boolean; tool(name: string): boolean }): ExtensionInfo {
    return {
      name: this.name,
      dir: this.dir,
      source: this.source,
      state: this.state,
      pid: this.process.pid,
      logPath: this.logPath,
      version: this.version,
      capabilities: [...this.capabilities],
      readyVia: this.readyVia,
      readyMs: this.readyMs,
      commands: [...this.commands.values()].map(({ name, description }) => ({ name, description, active: isActive.command(name) })),
      tools: [...this.tools.values()].map(({ name, description, deferred }) => ({ name, description, deferred, active: isActive.tool(name) })),
      subscriptions: { events: [...this.events], intercept: [...this.intercept] },
      error: this.error,
      order: this.order,
      latePanelFrames: this.latePanelFrames,
    };
  }
}
