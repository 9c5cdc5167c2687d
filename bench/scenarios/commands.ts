/**
 * Commands registered after ready: one extension, once ready, is told to register N commands (the
 * echo child's `/flood N`, all in one write). Host: from `runCommand('/flood N')` until a
 * `commands:changed` lists all of them (what an embedder's command palette waits for). Raw: from
 * sending the same `command_invoked` until its answer, which comes after the N registrations,
 * each parsed and dropped. A fresh process per run and side (spawned untimed): the host's registry
 * must start empty each time.
 */
import { elapsedMs, guarded, nowNs, order, spawnRuns, type BenchContext } from '../context.js';
import { startHost } from '../host.js';
import { RawPeer } from '../raw.js';
import { emptyValues, type Impl, type Row } from '../report.js';

export async function runCommands(ctx: BenchContext): Promise<Row[]> {
  const n = ctx.sizes.lateCommands;
  const values = emptyValues();
  const ext = ctx.workspace.extension({ flood: true });
  const disabled = new Set<Impl>();
  const runs = spawnRuns(ctx);
  for (let run = 0; run < runs; run++) {
    for (const impl of order(run, ['raw', 'host'])) {
      await guarded(ctx, 'commands', impl, disabled, async () => {
        if (impl === 'raw') {
          const peer = await RawPeer.spawn({ command: ext.command, args: ext.args, cwd: ext.dir });
          try {
            await peer.handshake();
            const t0 = nowNs();
            await peer.request({ type: 'command_invoked', name: 'flood', args: String(n) });
            values.raw.push(elapsedMs(t0));
          } finally {
            await peer.close();
          }
          return;
        }
        if (!ctx.host.ok) return;
        const host = await startHost(ctx.host.ExtensionHost, ctx.workspace, [ext]);
        try {
          const want = n + 1; // and `flood` itself
          let listener: ((commands: readonly unknown[]) => void) | undefined;
          const all = new Promise<void>((resolve) => {
            listener = (commands) => {
              if (commands.length >= want) resolve();
            };
            host.on('commands:changed', listener);
          });
          const t0 = nowNs();
          const outcome = await host.runCommand(`/flood ${n}`);
          await all;
          const ms = elapsedMs(t0);
          if (listener !== undefined) host.off('commands:changed', listener);
          if (!outcome.handled || host.commands().length !== want) throw new Error(`host has ${host.commands().length} of ${want} commands`);
          values.host.push(ms);
        } finally {
          await host.stop();
        }
      });
    }
    ctx.progress(`commands: run ${run + 1}/${runs}`);
  }
  return [
    {
      scenario: `${n} commands registered after ready`,
      metric: 'until the host lists them all (raw: parsed)',
      unit: 'ms',
      values,
    },
  ];
}
