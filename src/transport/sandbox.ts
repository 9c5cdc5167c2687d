// The sandbox launcher: an extension's spawn options rewritten so that the OS confines it
// (docs/security.md#the-sandbox). Linux: bubblewrap (`bwrap`) — new user, mount, pid, ipc, uts and
// (unless the network is granted) network namespaces; a read-only view of the system, the
// extension's data dir and the embedder's grants writable, a fresh /proc, /dev and /tmp. macOS:
// `sandbox-exec` with a profile generated from the same policy (untested on CI). Elsewhere: none.
// Nothing here imports a higher layer: the host resolves the policy and hands it to the transport.
import { lstat, mkdir, mkdtemp, open, readlink, realpath, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { execProblem } from '../manifest/exec.js';

/** `'off'`: no sandbox (zot's behaviour). `'auto'`: sandbox where the platform can, a warning where it cannot. `'required'`: no sandbox, no start. */
export type SandboxMode = 'off' | 'auto' | 'required';

/**
 * What the extension may reach on the network. `'none'`: nothing. `'loopback'`: on Linux a private
 * loopback of its own (its processes can talk to each other over 127.0.0.1, the host's loopback
 * services stay out of reach: the same as `'none'`); on macOS the machine's loopback. `'all'`: the
 * host's network.
 */
export type SandboxNetwork = 'none' | 'loopback' | 'all';

/** The sandbox policy of the `sandbox` / `sandboxByExtension` options. */
export interface SandboxPolicy {
  mode: SandboxMode;
  /** @default 'none' */
  network?: SandboxNetwork | undefined;
  /** Paths the extension may also write (besides its data dir and a private temp dir). A missing path is skipped. @default [] */
  writable?: readonly string[] | undefined;
  /** Paths the extension may also read (besides the system, its interpreter and its own directory). A missing path is skipped. @default [] */
  readable?: readonly string[] | undefined;
  /** The bubblewrap program (Linux). @default '/usr/bin/bwrap', else `bwrap` on PATH */
  bwrap?: string | undefined;
}

/** The `sandbox` option: a mode (network `'none'`, nothing else granted) or a policy. */
export type SandboxOption = SandboxMode | SandboxPolicy;

/** What a manifest may ask for (`"sandbox"` in extension.json): only ever stricter than the host's policy. */
export type ManifestSandbox = 'auto' | 'required' | { mode?: 'auto' | 'required' | undefined; network?: SandboxNetwork | undefined };

/** An extension's sandbox, as `extensions()` reports it. */
export interface SandboxInfo {
  mode: SandboxMode;
  /** True when its process runs confined. */
  active: boolean;
  backend: 'bwrap' | 'sandbox-exec' | 'none';
  /** What it may reach (`'all'` when not confined). */
  network: SandboxNetwork;
  /** What it may write, when confined: its data dir, the embedder's grants (and a private temp dir). */
  writable: string[];
  /** Why it is not confined: `'not applicable (remote)'`, the backend's problem, ... */
  reason?: string | undefined;
}

/** A policy with the host's option, the per-extension option and the manifest applied. */
export interface ResolvedSandbox {
  mode: SandboxMode;
  network: SandboxNetwork;
  writable: readonly string[];
  readable: readonly string[];
  bwrap: string | undefined;
}

/** The sandbox programs of this machine. */
export interface SandboxBackend {
  kind: 'bwrap' | 'sandbox-exec' | 'none';
  /** The program. */
  path?: string | undefined;
  /** Why there is none. */
  reason?: string | undefined;
}

/** What the transport gets: the policy, the backend found for it, and the extension's data dir. */
export interface SandboxLaunch {
  policy: ResolvedSandbox;
  backend: SandboxBackend;
  /**
   * Its writable data dir when confined (hello_ack's `data_dir`): `<home>/data/<name>`, created 0700
   * at the spawn. The extension directory itself is read-only in the sandbox.
   */
  dataDir: string;
}

/** Whether `launch` confines its process (a mode other than `'off'` and a backend). */
export function sandboxActive(launch: SandboxLaunch | undefined): boolean {
  return launch !== undefined && launch.policy.mode !== 'off' && launch.backend.kind !== 'none';
}

/** `<home>/data/<name>`: a sandboxed extension's data dir (its name made a safe file name). */
export function sandboxDataDir(home: string, name: string): string {
  const file = encodeURIComponent(name);
  return path.join(home, 'data', /^\.+$/.test(file) ? file.replace(/\./g, '%2E') : file);
}

/** A grant refused because its path goes through a symlink (SANDBOX_GRANT_REFUSED). */
export interface RefusedGrant {
  kind: 'writable' | 'readable';
  path: string;
  /** Where the symlink leads. */
  real: string;
}

/** A grant's real path when it is the path given (no component is a symlink); `false`: a symlink; undefined: missing. */
async function grantPath(file: string): Promise<string | false | undefined> {
  let real;
  try {
    real = await realpath(file);
  } catch {
    return undefined;
  }
  return real === file ? real : false;
}

/**
 * The policy without the grants that go through a symlink (bwrap would follow it: a cloned repo's
 * `out -> ~` would make the home writable), and those refused. A missing path is kept (bound only
 * if it exists at the spawn, checked again then).
 */
export async function checkGrants(policy: ResolvedSandbox): Promise<{ policy: ResolvedSandbox; refused: RefusedGrant[] }> {
  const refused: RefusedGrant[] = [];
  const keep = async (kind: 'writable' | 'readable', list: readonly string[]): Promise<string[]> => {
    const out: string[] = [];
    for (const file of list) {
      if ((await grantPath(file)) !== false) out.push(file);
      else refused.push({ kind, path: file, real: await realpath(file).catch(() => file) });
    }
    return out;
  };
  const writable = await keep('writable', policy.writable);
  const readable = await keep('readable', policy.readable);
  return { policy: refused.length === 0 ? policy : { ...policy, writable, readable }, refused };
}

const MODES: readonly SandboxMode[] = ['off', 'auto', 'required'];
const NETWORKS: readonly SandboxNetwork[] = ['none', 'loopback', 'all'];

/** Why `value` is not a SandboxOption, or undefined. */
export function sandboxOptionProblem(value: unknown): string | undefined {
  const expected = "'off', 'auto', 'required' or { mode, network?: 'none' | 'loopback' | 'all', writable?: string[], readable?: string[], bwrap?: string }";
  if (typeof value === 'string') return MODES.includes(value as SandboxMode) ? undefined : expected;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return expected;
  const policy = value as Record<string, unknown>;
  const known = ['mode', 'network', 'writable', 'readable', 'bwrap'];
  for (const key of Object.keys(policy)) if (!known.includes(key)) return `${expected} (unknown field ${JSON.stringify(key)})`;
  if (!MODES.includes(policy.mode as SandboxMode)) return expected;
  if (policy.network !== undefined && !NETWORKS.includes(policy.network as SandboxNetwork)) return expected;
  for (const key of ['writable', 'readable']) {
    const list = policy[key];
    if (list !== undefined && !(Array.isArray(list) && list.every((p) => typeof p === 'string' && p.length > 0))) return `${expected} (${key}: an array of non-empty paths)`;
  }
  if (policy.bwrap !== undefined && (typeof policy.bwrap !== 'string' || policy.bwrap.length === 0)) return expected;
  return undefined;
}

const strictness = (mode: SandboxMode): number => MODES.indexOf(mode);

/**
 * The policy of one extension: the embedder's (per extension, else host-wide; `'off'` without
 * either), narrowed by its manifest — a stricter mode, less network; never wider. Relative
 * `writable` / `readable` paths resolve against `cwd`.
 */
export function resolveSandbox(option: SandboxOption | undefined, manifest: ManifestSandbox | undefined, cwd: string): ResolvedSandbox {
  const policy: SandboxPolicy = option === undefined ? { mode: 'off' } : typeof option === 'string' ? { mode: option } : option;
  let mode = policy.mode;
  let network = policy.network ?? 'none';
  const asked = typeof manifest === 'string' ? { mode: manifest, network: undefined } : manifest;
  if (asked?.mode !== undefined && strictness(asked.mode) > strictness(mode)) mode = asked.mode;
  if (asked?.network !== undefined && NETWORKS.indexOf(asked.network) < NETWORKS.indexOf(network)) network = asked.network;
  const abs = (list: readonly string[] | undefined) => (list ?? []).map((p) => path.resolve(cwd, p));
  return { mode, network, writable: abs(policy.writable), readable: abs(policy.readable), bwrap: policy.bwrap };
}

/** `extensions()`'s view of a launch (`launch` undefined: not a spawned process, e.g. remote). */
export function sandboxInfo(launch: SandboxLaunch | undefined, notApplicable?: string): SandboxInfo {
  if (launch === undefined || notApplicable !== undefined) {
    return { mode: launch?.policy.mode ?? 'off', active: false, backend: 'none', network: 'all', writable: [], ...(notApplicable !== undefined ? { reason: notApplicable } : {}) };
  }
  const { policy, backend } = launch;
  if (policy.mode === 'off') return { mode: 'off', active: false, backend: 'none', network: 'all', writable: [] };
  if (backend.kind === 'none') return { mode: policy.mode, active: false, backend: 'none', network: 'all', writable: [], reason: backend.reason };
  return { mode: policy.mode, active: true, backend: backend.kind, network: policy.network, writable: [launch.dataDir, ...policy.writable] };
}

// ---------------------------------------------------------------------------------------------
// Which backend this machine has: found and tried once per program path.
// ---------------------------------------------------------------------------------------------

const detected = new Map<string, Promise<SandboxBackend>>();

/** The backend for `bwrapPath` (Linux; undefined: the default search), tried once and cached. */
export function detectSandbox(bwrapPath?: string): Promise<SandboxBackend> {
  const key = bwrapPath ?? '';
  let found = detected.get(key);
  if (found === undefined) detected.set(key, (found = detect(bwrapPath)));
  return found;
}

/** A regular file this user may execute (the exec rule's check, manifest/exec.ts). */
async function executable(file: string): Promise<boolean> {
  return (await execProblem(file)) === undefined;
}

async function detect(bwrapPath: string | undefined): Promise<SandboxBackend> {
  if (process.platform === 'darwin') {
    return (await executable('/usr/bin/sandbox-exec')) ? { kind: 'sandbox-exec', path: '/usr/bin/sandbox-exec' } : { kind: 'none', reason: '/usr/bin/sandbox-exec not found' };
  }
  if (process.platform !== 'linux') return { kind: 'none', reason: `no sandbox backend on ${process.platform}` };
  const program = bwrapPath !== undefined ? ((await executable(bwrapPath)) ? bwrapPath : undefined) : (await executable('/usr/bin/bwrap')) ? '/usr/bin/bwrap' : await onPath('bwrap', process.env);
  if (program === undefined) return { kind: 'none', reason: bwrapPath !== undefined ? `bubblewrap not found at ${bwrapPath}` : 'bubblewrap (bwrap) not found: install it (Debian/Ubuntu: apt-get install bubblewrap)' };
  // It exists: can it make the namespaces here (user namespaces may be disabled, or a container may forbid them)?
  const truth = (await executable('/usr/bin/true')) ? '/usr/bin/true' : (await executable('/bin/true')) ? '/bin/true' : undefined;
  const probe = truth !== undefined ? [truth] : [process.execPath, '-e', ''];
  const { execFile } = await import('node:child_process');
  const problem = await new Promise<string | undefined>((resolve) => {
    execFile(program, ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', ...probe], { timeout: 10_000 }, (err, _stdout, stderr) => {
      if (err === null) resolve(undefined);
      else resolve((String(stderr).trim().split('\n')[0] || err.message).slice(0, 300));
    });
  });
  if (problem !== undefined) return { kind: 'none', path: program, reason: `${program} cannot create a sandbox here (user namespaces unavailable?): ${problem}` };
  return { kind: 'bwrap', path: program };
}

// ---------------------------------------------------------------------------------------------
// The spawn, rewritten.
// ---------------------------------------------------------------------------------------------

/** What is launched: the program (absolute, or a bare name looked up on the env's PATH) and where. */
export interface SandboxTarget {
  command: string;
  args: readonly string[];
  /** The extension directory: its cwd, read-only. */
  dir: string;
  /** Its data dir (hello_ack's `data_dir`): writable, created 0700 here. */
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** The extension's name (macOS temp dir). */
  name: string;
}

/** The read-only view of the system (Linux), where present. */
const SYSTEM_ROOTS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/nix/store'];

const under = (file: string, dir: string): boolean => file === dir || file.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

/** `command` found on `env`'s PATH (absolute), or undefined. */
async function onPath(command: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (command.includes('/')) return path.isAbsolute(command) ? command : undefined;
  for (const dir of (env.PATH ?? process.env.PATH ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const file = path.join(dir, command);
    if (await executable(file)) return file;
  }
  return undefined;
}

/**
 * The install prefix of a program, so that an interpreter under the home (nvm, pyenv, a venv) stays
 * runnable: `<prefix>/bin/x` -> `<prefix>`; a version manager's `<root>/shims/x` -> `<root>`.
 */
function prefixOf(file: string): string {
  const dir = path.dirname(file);
  const base = path.basename(dir);
  return base === 'bin' || base === 'shims' ? path.dirname(dir) : dir;
}

/** Never mounted as a program's prefix: the kernel's and the machine's state, the homes. */
const NEVER_UNDER = ['/run', '/proc', '/sys', '/var', '/dev'];

/**
 * Why `prefix` is no install prefix to mount (undefined: it may be): too shallow (`/home/x`, `/opt`),
 * under /run, /proc, /sys, /var or /dev, a home (or above one) itself, or a directory right in a
 * home (`~/.local`, `~/.cargo`: they hold more than an interpreter) unless it is a version
 * manager's root found through its `shims` (`~/.pyenv`).
 */
export function prefixProblem(prefix: string, homes: readonly string[], shims = false): string | undefined {
  const depth = prefix.split('/').filter((c) => c.length > 0).length;
  if (depth <= 2) return `${prefix} is too shallow to be an install prefix`;
  const system = NEVER_UNDER.find((root) => under(prefix, root));
  if (system !== undefined) return `${prefix} is under ${system}`;
  if (['/home', '/root', ...homes].some((home) => under(home, prefix))) return `${prefix} is a home directory or above one`;
  if (!shims && homes.some((home) => path.dirname(prefix) === home)) return `${prefix} is a directory of the home, not an interpreter's own prefix`;
  return undefined;
}

/**
 * The interpreter a script names on its `#!` line: an absolute path, or `env NAME` with exactly one
 * plain word (no option, no assignment, no `-S`), looked up on PATH. Anything else: none.
 */
async function shebang(file: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(file, 'r');
    const buffer = Buffer.alloc(256);
    const { bytesRead } = await handle.read(buffer, 0, 256, 0);
    const head = buffer.subarray(0, bytesRead).toString('latin1');
    if (!head.startsWith('#!')) return undefined;
    const words = head.slice(2).split('\n')[0]!.trim().split(/\s+/);
    if (words[0] === undefined || !path.isAbsolute(words[0])) return undefined;
    if (path.basename(words[0]) === 'env') {
      const rest = words.slice(1);
      if (rest.length !== 1 || rest[0]!.startsWith('-') || rest[0]!.includes('=') || rest[0]!.includes('/')) return undefined;
      return onPath(rest[0]!, env);
    }
    return words[0];
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/**
 * The prefixes outside the system view that the program (and its script interpreter) need: only
 * for a file that exists and is a regular executable (its real path), and only a prefix that
 * prefixProblem() accepts (the extension chooses its `#!` line: it must not choose mounts).
 */
async function programRoots(command: string, env: NodeJS.ProcessEnv, systemRoots: readonly string[]): Promise<string[]> {
  const roots = new Set<string>();
  const homes = [...new Set([env.HOME, process.env.HOME, homedir()].filter((h): h is string => typeof h === 'string' && path.isAbsolute(h)).map((h) => path.resolve(h)))];
  const add = async (file: string | undefined) => {
    if (file === undefined || !path.isAbsolute(file)) return;
    const real = await realpath(file).catch(() => undefined);
    if (real === undefined || !(await executable(real))) return;
    for (const candidate of [path.resolve(file), real]) {
      const prefix = prefixOf(candidate);
      if (systemRoots.some((root) => under(prefix, root)) || prefixProblem(prefix, homes, path.basename(path.dirname(candidate)) === 'shims') !== undefined) continue;
      roots.add(prefix);
    }
  };
  await add(command);
  await add(await shebang(command, env));
  return [...roots];
}

/** The data dir, created 0700 (its parents too) when missing. */
async function makeDataDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
}

/**
 * bwrap's arguments for `target` under `policy`, ending with `--` and the program: the command
 * becomes the bwrap program, these its arguments. The program is resolved on PATH first.
 */
export async function bwrapArgs(policy: ResolvedSandbox, target: SandboxTarget): Promise<string[]> {
  const args = ['--unshare-all'];
  if (policy.network === 'all') args.push('--share-net');
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL');
  const systemRoots: string[] = [];
  for (const root of SYSTEM_ROOTS) {
    let info;
    try {
      info = await lstat(root);
    } catch {
      continue;
    }
    if (info.isSymbolicLink()) args.push('--symlink', await readlink(root), root);
    else if (info.isDirectory()) {
      args.push('--ro-bind', root, root);
      systemRoots.push(root);
    }
  }
  if (policy.network === 'all') {
    // /etc/resolv.conf may point outside /etc (systemd-resolved).
    const resolv = await realpath('/etc/resolv.conf').catch(() => undefined);
    if (resolv !== undefined && !systemRoots.some((root) => under(resolv, root))) args.push('--ro-bind-try', resolv, resolv);
  }
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  let program = (await onPath(target.command, target.env)) ?? target.command;
  const roots = await programRoots(program, target.env, systemRoots);
  for (const root of roots) args.push('--ro-bind-try', root, root);
  // A program whose path as named is not mounted (`~/.local/bin/node -> ~/.nvm/.../bin/node`) runs by its real path.
  const visible = (file: string) => [...systemRoots, ...roots, target.dir].some((root) => under(file, root));
  if (path.isAbsolute(program) && !visible(program)) {
    const real = await realpath(program).catch(() => undefined);
    if (real !== undefined && visible(real)) program = real;
  }
  // Later mounts cover earlier ones: the grants first, then the extension directory and its manifest
  // (so a grant that contains the directory cannot make the manifest writable again).
  // A grant through a symlink is not bound (checked again here: the path may have changed since start()).
  for (const file of policy.readable) if (typeof (await grantPath(file)) === 'string') args.push('--ro-bind-try', file, file);
  for (const file of policy.writable) if (typeof (await grantPath(file)) === 'string') args.push('--bind-try', file, file);
  // The extension directory (its code, manifest, .git, package.json) is read-only, even inside a
  // writable grant; its data dir (hello_ack's data_dir under the sandbox) is writable.
  args.push('--ro-bind', target.dir, target.dir);
  await makeDataDir(target.dataDir);
  args.push('--bind', target.dataDir, target.dataDir);
  // Whatever bwrap created to hold the mounts (the root, /home/<user> above a bound dir) is read-only.
  args.push('--remount-ro', '/', '--chdir', target.dir, '--setenv', 'TMPDIR', '/tmp', '--', program, ...target.args);
  return args;
}

/** An SBPL string literal. */
const sbpl = (text: string): string => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** macOS: the system locations a program needs to start (read-only). */
const DARWIN_READABLE = ['/usr', '/bin', '/sbin', '/System', '/Library', '/opt/homebrew', '/usr/local', '/private/etc', '/etc', '/dev', '/private/var/db/timezone', '/var/db/timezone', '/Applications/Xcode.app', '/Library/Developer/CommandLineTools'];

/**
 * A `sandbox-exec` profile (SBPL) for the policy: deny by default; read the system, the program's
 * prefixes, the extension directory and the `readable` grants; write the data dir, `tmp` and the
 * `writable` grants (never the extension directory); the network as granted; signals only within the sandbox.
 */
export function sandboxExecProfile(policy: ResolvedSandbox, where: { dir: string; dataDir: string; tmp: string; programRoots?: readonly string[] }): string {
  const readable = [...DARWIN_READABLE, ...(where.programRoots ?? []), ...policy.readable, where.dir, where.dataDir];
  const writable = [where.dataDir, where.tmp, ...policy.writable];
  const lines = [
    '(version 1)',
    '(deny default)',
    '(allow process-fork)',
    '(allow process-exec)',
    '(allow signal (target same-sandbox))',
    '(allow process-info* (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow mach-lookup)',
    '(allow ipc-posix-shm)',
    '(allow file-read-metadata)',
    `(allow file-read* (literal "/") ${readable.map((p) => `(subpath ${sbpl(p)})`).join(' ')})`,
    `(allow file-write* (literal "/dev/null") (literal "/dev/tty") ${writable.map((p) => `(subpath ${sbpl(p)})`).join(' ')})`,
    // The extension directory stays read-only, even inside a writable grant (the last rule wins).
    `(deny file-write* (subpath ${sbpl(where.dir)}))`,
    `(allow file-write* (subpath ${sbpl(where.dataDir)}))`,
  ];
  if (policy.network === 'loopback') lines.push('(allow network-bind (local ip "localhost:*"))', '(allow network-inbound (local ip "localhost:*"))', '(allow network-outbound (remote ip "localhost:*"))');
  else if (policy.network === 'all') lines.push('(allow network*)', '(allow system-socket)');
  return `${lines.join('\n')}\n`;
}

/**
 * The spawn of `target` under `launch` (a backend that confines): the program and arguments to
 * run instead, and the environment. The caller checked `launch.backend.kind !== 'none'`.
 */
export async function sandboxedSpawn(launch: SandboxLaunch, target: SandboxTarget): Promise<{ command: string; args: string[]; env: NodeJS.ProcessEnv; cleanup?: () => void }> {
  let { policy } = launch;
  const { backend } = launch;
  if (backend.kind === 'bwrap') return { command: backend.path!, args: await bwrapArgs(policy, target), env: target.env };
  // sandbox-exec: a private temp dir per start, under the system's.
  const tmp = await realpath(await mkdtemp(path.join(tmpdir(), `zot-ext-${target.name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40)}-`)));
  const program = (await onPath(target.command, target.env)) ?? target.command;
  await makeDataDir(target.dataDir);
  // Grants through a symlink are refused again at each spawn (one may have appeared since the start).
  policy = (await checkGrants(policy)).policy;
  const profile = sandboxExecProfile(policy, { dir: target.dir, dataDir: target.dataDir, tmp, programRoots: await programRoots(program, target.env, ['/usr', '/bin', '/sbin', '/System', '/Library']) });
  return { command: backend.path!, args: ['-p', profile, program, ...target.args], env: { ...target.env, TMPDIR: tmp }, cleanup: () => void rm(tmp, { recursive: true, force: true }).catch(() => undefined) };
}
