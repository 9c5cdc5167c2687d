import os from 'node:os';
import path from 'node:path';

export interface ResolveHomeOptions {
  /** Names the `$<APP>_HOME` variable and the per-platform directory. @default 'zot' */
  appName?: string | undefined;
  /** Environment to read `$<APP>_HOME`, `XDG_STATE_HOME` and `LOCALAPPDATA` from. @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
  /** Platform whose rules apply (and whose path separator is used). @default process.platform */
  platform?: NodeJS.Platform | undefined;
  /** The user's home directory. @default os.homedir() */
  homedir?: string | undefined;
}

/** The variable that overrides the home directory: `ZOT_HOME` for `zot`, `MY_AGENT_HOME` for `my-agent`. */
export function homeEnvVar(appName: string): string {
  return `${appName.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_HOME`;
}

/**
 * The app's home directory (extensions live in `<home>/extensions`, logs in `<home>/logs`), per the
 * spec: `$<APP>_HOME` if set; else `$XDG_STATE_HOME/<app>` on any platform when XDG_STATE_HOME is set
 * (absolute paths only, as the XDG spec requires); else `~/Library/Application Support/<app>` on
 * macOS, `%LOCALAPPDATA%\<app>` on Windows (`~\AppData\Local\<app>` without LOCALAPPDATA), and
 * `~/.local/state/<app>` elsewhere. Empty variables count as unset.
 */
export function resolveHome(options: ResolveHomeOptions = {}): string {
  const app = options.appName ?? 'zot';
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const p = platform === 'win32' ? path.win32 : path.posix;
  const set = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };

  const explicit = set(homeEnvVar(app));
  if (explicit !== undefined) return explicit;

  const xdg = set('XDG_STATE_HOME');
  if (xdg !== undefined && p.isAbsolute(xdg)) return p.join(xdg, app);

  const home = options.homedir ?? os.homedir();
  if (platform === 'darwin') return p.join(home, 'Library', 'Application Support', app);
  if (platform === 'win32') return p.join(set('LOCALAPPDATA') ?? p.join(home, 'AppData', 'Local'), app);
  return p.join(home, '.local', 'state', app);
}
