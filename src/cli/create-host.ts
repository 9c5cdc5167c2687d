import path from 'node:path';
import { ExtensionHost } from '../host/host.js';
import type { FrameTapEntry, HostCallbacks } from '../host/types.js';
import { looksLikeUrl } from '../manifest/remote.js';
import type { CommandContext } from './context.js';

/** Explicit extension paths from the command line, resolved against the directory the user typed them in; URLs (remote extensions) as given. */
export function explicitPaths(ctx: CommandContext): string[] {
  return ctx.args.map((p) => (looksLikeUrl(p) ? p : path.resolve(ctx.io.cwd, p)));
}

/** A host configured from the global options, as an agent would run it. */
export function createHost(
  ctx: CommandContext,
  options: {
    explicit: readonly string[];
    discover: boolean;
    callbacks?: HostCallbacks | undefined;
    frameTap?: ((frame: FrameTapEntry) => void) | undefined;
    /** Tool names the agent owns. @default the host's (read, write, edit, bash, skill) */
    builtinTools?: readonly string[] | undefined;
  },
): ExtensionHost {
  return new ExtensionHost({
    cwd: ctx.cwd,
    appName: ctx.appName,
    home: ctx.home,
    explicit: options.explicit,
    discover: options.discover,
    env: ctx.io.env,
    callbacks: options.callbacks,
    ...(options.frameTap === undefined ? {} : { frameTap: options.frameTap }),
    ...(options.builtinTools === undefined ? {} : { builtinTools: options.builtinTools }),
  });
}
