// Shared by the ExtensionHost integration tests: hosts over real fixture processes (stopped after the
// file) and a recorder of every callback whose waits resolve on the call itself (see wait.ts).
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { ExtensionHostError } from '../../src/errors.js';
import { ExtensionHost } from '../../src/host/host.js';
import type { ExtensionHostOptions, HostCallbacks, StartReport } from '../../src/host/types.js';
import { tempDir } from './fixtures.js';
import { WAIT_MS, withDeadline } from './wait.js';

type CallbackName = keyof HostCallbacks;
export type CallbackArg<K extends CallbackName> = Parameters<NonNullable<HostCallbacks[K]>>[0];
export type RecordedCall = { [K in CallbackName]: { kind: K; arg: CallbackArg<K> } }[CallbackName];

/** Records every host callback in order; `waitFor` resolves on a recorded or future matching call. */
export class Recorder {
  readonly calls: RecordedCall[] = [];
  readonly callbacks: HostCallbacks;
  private readonly listeners = new Set<(call: RecordedCall) => void>();

  /** `omit` leaves callbacks out, like an agent that does not support them (e.g. `submit` in print mode). */
  constructor(omit: readonly CallbackName[] = []) {
    const names: CallbackName[] = ['prompt', 'submit', 'insert', 'display', 'notify', 'clearNotes', 'openPanel', 'renderPanel', 'closePanel', 'toolsChanged', 'warning'];
    const callbacks: Record<string, (arg: unknown) => void> = {};
    for (const kind of names) {
      if (omit.includes(kind)) continue;
      callbacks[kind] = (arg) => {
        const call = { kind, arg } as RecordedCall;
        this.calls.push(call);
        for (const listener of [...this.listeners]) listener(call);
      };
    }
    this.callbacks = callbacks as HostCallbacks;
  }

  /** Arguments of every recorded call of one callback, in order. */
  of<K extends CallbackName>(kind: K): CallbackArg<K>[] {
    return this.calls.filter((c) => c.kind === kind).map((c) => c.arg as CallbackArg<K>);
  }

  /** The first call of `kind` matching `predicate`, already recorded or still to come. */
  waitFor<K extends CallbackName>(kind: K, predicate: (arg: CallbackArg<K>) => boolean = () => true, ms = WAIT_MS): Promise<CallbackArg<K>> {
    return withDeadline(`callback ${kind}`, ms, (resolve) => {
      const seen = this.of(kind).find(predicate);
      if (seen !== undefined) {
        resolve(seen);
        return () => undefined;
      }
      const listener = (call: RecordedCall) => {
        if (call.kind === kind && predicate(call.arg as CallbackArg<K>)) resolve(call.arg as CallbackArg<K>);
      };
      this.listeners.add(listener);
      return () => this.listeners.delete(listener);
    });
  }

  /** The number of calls recorded so far; pass it to `since` to look only at later calls. */
  mark(): number {
    return this.calls.length;
  }

  /** Calls of `kind` recorded after `mark`. */
  since<K extends CallbackName>(mark: number, kind: K): CallbackArg<K>[] {
    return this.calls
      .slice(mark)
      .filter((c) => c.kind === kind)
      .map((c) => c.arg as CallbackArg<K>);
  }
}

export interface Started {
  host: ExtensionHost;
  report: StartReport;
  rec: Recorder;
}

/**
 * A per-file workspace: temp `home`, `logDir` and `cwd`; every host made through it is stopped in
 * afterAll (the leak check in test/setup.ts then asserts no process is left).
 */
export function hostKit(): {
  dir: string;
  /** Creates (does not start) a host with `discover: false` and a Recorder's callbacks. */
  create: (options?: ExtensionHostOptions & { omit?: readonly CallbackName[] | undefined }) => { host: ExtensionHost; rec: Recorder };
  /** Creates and starts a host. */
  start: (options?: ExtensionHostOptions & { omit?: readonly CallbackName[] | undefined }) => Promise<Started>;
} {
  const temp = tempDir('zot-host-test-');
  const hosts: ExtensionHost[] = [];
  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.stop()));
    temp.cleanup();
  });
  const create = (options: ExtensionHostOptions & { omit?: readonly CallbackName[] | undefined } = {}) => {
    const { omit, ...rest } = options;
    const rec = new Recorder(omit);
    const host = new ExtensionHost({
      cwd: temp.dir,
      home: path.join(temp.dir, 'home'),
      logDir: path.join(temp.dir, 'logs'),
      discover: false,
      ...rest,
      callbacks: { ...rec.callbacks, ...rest.callbacks },
    });
    hosts.push(host);
    return { host, rec };
  };
  return {
    dir: temp.dir,
    create,
    start: async (options = {}) => {
      const { host, rec } = create(options);
      const report = await host.start();
      return { host, report, rec };
    },
  };
}

/** The text of a tool result's only text block (fails loudly on anything else). */
export function textOf(result: { content: { type: string; text?: string | undefined }[] }): string {
  const [block, ...rest] = result.content;
  if (block === undefined || block.type !== 'text' || rest.length > 0) throw new Error(`expected one text block, got ${JSON.stringify(result.content)}`);
  return block.text ?? '';
}

/** The ExtensionHostError the constructor throws for `options` (fails when it does not throw one). */
export function constructionError(options: unknown): ExtensionHostError {
  try {
    new ExtensionHost(options as ExtensionHostOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(ExtensionHostError);
    return error as ExtensionHostError;
  }
  throw new Error('expected the constructor to throw');
}
