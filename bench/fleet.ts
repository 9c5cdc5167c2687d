/** The same N echo children driven raw and through the host: what fan-out and intercept both need. */
import { guarded, type BenchContext } from './context.js';
import type { EchoExtension } from './extensions.js';
import { startHost, type HostLike } from './host.js';
import { RawPeer } from './raw.js';
import type { Impl } from './report.js';

export interface Fleet {
  peers: RawPeer[];
  host: HostLike | undefined;
  close(): Promise<void>;
}

/** Starts raw peers and a host over `extensions`; a side that fails is added to `disabled`. */
export async function startFleet(ctx: BenchContext, label: string, extensions: readonly EchoExtension[], disabled: Set<Impl>): Promise<Fleet> {
  const fleet: Fleet = {
    peers: [],
    host: undefined,
    close: () => Promise.all([...fleet.peers.map((p) => p.close()), fleet.host?.stop()]).then(() => undefined),
  };
  await guarded(ctx, label, 'raw', disabled, async () => {
    fleet.peers = await RawPeer.spawnAll(extensions.map((e) => ({ command: e.command, args: e.args, cwd: e.dir })));
    await Promise.all(fleet.peers.map((p) => p.handshake()));
  });
  if (ctx.host.ok) {
    const ctor = ctx.host.ExtensionHost;
    await guarded(ctx, label, 'host', disabled, async () => {
      fleet.host = await startHost(ctor, ctx.workspace, extensions);
    });
  }
  return fleet;
}
