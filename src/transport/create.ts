// Which transport a launch gets. A new kind of extension (remote) is a Launch variant and a case here.
import type { ExtensionLog } from '../process/log.js';
import type { ChildHandle } from './child.js';
import { MemoryTransport } from './memory.js';
import { StdioTransport } from './stdio.js';
import type { Transport } from './transport.js';

/** Where a connection comes from: a real subprocess, or streams supplied by the caller (in-memory). */
export type Launch =
  | { kind: 'spawn'; exec: string; args?: readonly string[] | undefined; env?: NodeJS.ProcessEnv | undefined }
  | { kind: 'connect'; connect: () => ChildHandle };

export interface TransportContext {
  /** The manifest name. */
  name: string;
  /** The extension directory. */
  dir: string;
  log: ExtensionLog;
  maxFrameBytes: number;
  /** Grace after the input ends before the peer is forced. */
  shutdownMs?: number | undefined;
  /** Grace after SIGTERM before SIGKILL. */
  killMs?: number | undefined;
}

export function createTransport(launch: Launch, context: TransportContext): Transport {
  const { maxFrameBytes, shutdownMs, killMs } = context;
  switch (launch.kind) {
    case 'spawn':
      return new StdioTransport({ name: context.name, dir: context.dir, log: context.log, exec: launch.exec, args: launch.args, env: launch.env, maxFrameBytes, shutdownMs, killMs });
    case 'connect':
      return new MemoryTransport({ connect: launch.connect, maxFrameBytes, shutdownMs, killMs });
  }
}
