// Workspace trust: whether a project extension (`<cwd>/.<app>/extensions`, code that came with the
// repository) may start. The `trust` option decides before anything of it runs; the callback's
// answers hold for the host's life while the extension's content hash stays the same (reload() and
// restarts ask again only when it changed), and `'always'` is stored per project in
// `<home>/trust.json` (written whole to a temp file and renamed, bounded, never overwritten when it
// cannot be read as ours).
import { createReadStream, type Stats } from 'node:fs';
import { mkdir, readFile, realpath, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { resolveExec } from '../manifest/exec.js';
import { nameKey } from '../manifest/limits.js';
import { isRemote, remoteUrl } from '../manifest/mcp.js';
import { redactUrl } from '../manifest/remote.js';
import { MAX_TIMER_MS } from '../protocol/limits.js';
import type { ExtensionSpec, HostContext, LoadedExtension } from './context.js';
import { describeValue } from './options.js';
import type { HostDiagnostic, TrustDecision, TrustRequest, TrustState } from './types.js';

/** The store's file name in the host's home (the app's state directory). */
export const TRUST_STORE_FILE = 'trust.json';
/** A larger store is not read (nor overwritten): a diagnostic, and nothing is remembered. */
export const MAX_TRUST_STORE_BYTES = 1024 * 1024;
/** Projects kept in the store; past it the least recently trusted ones are dropped (they are asked again). */
export const MAX_TRUST_PROJECTS = 256;
/** Extensions kept per project; past it the least recently trusted ones are dropped. */
export const MAX_TRUST_PER_PROJECT = 128;
/** Bytes of one program file that enter the hash (its size always does). */
const MAX_HASHED_BYTES = 256 * 1024 * 1024;

/** What the trust decision of one extension came to; `error` (UNTRUSTED) when it may not start. */
export interface TrustOutcome {
  state: TrustState;
  error?: ExtensionHostError | undefined;
}

/**
 * One host's trust decisions, by extension directory, with the hash each was made for; stop()
 * dismisses the question being asked (and those after it) until the next start().
 */
export class TrustSession {
  // `asked`: the decision is an answer of the callback not yet confirmed before a spawn (confirmTrust).
  readonly decisions = new Map<string, { hash: string; decision: TrustDecision; asked: boolean }>();
  /** The real path of the host's cwd, found at the first question: the store's key of this project. */
  project: string | undefined;
  /** A question of the current start was dismissed by stop(): nothing of that start is spawned. */
  dismissed = false;
  private stopping = new AbortController();

  /** stop(): no answer is waited for any more. */
  stop(): void {
    this.stopping.abort('stopped');
  }

  /** start() / reload(): questions may be asked again. */
  resume(): void {
    if (this.stopping.signal.aborted) this.stopping = new AbortController();
    this.dismissed = false;
  }

  /** Aborted by stop(). */
  get stopped(): AbortSignal {
    return this.stopping.signal;
  }
}

const SUBJECT: ReadonlySet<TrustState> = new Set<TrustState>(['once', 'always', 'denied']);

/** Whether `ext`'s start is gated by the trust callback (a project extension under a callback). */
export function gatedByTrust(ext: LoadedExtension): boolean {
  return SUBJECT.has(ext.slot.trust);
}

/**
 * The trust outcome of each project extension of a start, decided one at a time (a person may be
 * answering) before any of them runs. Others are `exempt` and not in the map.
 */
export async function decideTrust(ctx: HostContext, specs: readonly ExtensionSpec[]): Promise<Map<ExtensionSpec, TrustOutcome>> {
  const outcomes = new Map<ExtensionSpec, TrustOutcome>();
  const project = specs.filter((s) => s.source === 'project');
  if (project.length === 0) return outcomes;
  const option = ctx.options.trust ?? 'all';
  if (option === 'all') {
    for (const spec of project) outcomes.set(spec, { state: 'all' });
    return outcomes;
  }
  if (option === 'none') {
    for (const spec of project) outcomes.set(spec, denied(spec, "the host's trust option is 'none'"));
    return outcomes;
  }
  const store = await TrustStore.open(ctx);
  for (const spec of project) outcomes.set(spec, await decideOne(ctx, spec, store));
  return outcomes;
}

/** A restart of `ext` (gated by trust): its hash again, asked again only when it changed. */
export async function recheckTrust(ctx: HostContext, ext: LoadedExtension): Promise<TrustOutcome> {
  const option = ctx.options.trust;
  if (typeof option !== 'function') return ext.slot.trust === 'denied' ? denied(ext.slot.spec, "the host's trust option is 'none'") : { state: ext.slot.trust };
  const outcome = await decideOne(ctx, ext.slot.spec, await TrustStore.open(ctx));
  return outcome.error === undefined ? confirmTrust(ctx, ext.slot.spec, outcome) : outcome;
}

/**
 * Right before the spawn of an extension the callback allowed: its hash once more (a question may
 * have taken minutes, during which the files could change). Changed since the decision: asked again
 * (`changed: true`); changed again while that question was asked: denied.
 */
export async function confirmTrust(ctx: HostContext, spec: ExtensionSpec, outcome: TrustOutcome): Promise<TrustOutcome> {
  if (typeof ctx.options.trust !== 'function' || outcome.error !== undefined) return outcome;
  const decided = ctx.trust.decisions.get(spec.dir);
  // Only an answer the callback just gave left time for a change: a stored or earlier decision was
  // checked against a hash taken a moment ago (decideOne), so the files are not hashed twice.
  if (decided === undefined || !decided.asked) return outcome;
  decided.asked = false;
  if ((await contentHash(spec, ctx.trust.project)) === decided.hash) return outcome;
  const again = await decideOne(ctx, spec, await TrustStore.open(ctx));
  if (again.error !== undefined) return again;
  const now = ctx.trust.decisions.get(spec.dir);
  if (now !== undefined && (await contentHash(spec, ctx.trust.project)) === now.hash) return again;
  ctx.trust.decisions.delete(spec.dir);
  return denied(spec, 'its files changed while the trust question was asked');
}

async function decideOne(ctx: HostContext, spec: ExtensionSpec, store: TrustStore): Promise<TrustOutcome> {
  const hash = await contentHash(spec, ctx.trust.project);
  const session = ctx.trust.decisions.get(spec.dir);
  if (session?.hash === hash) return outcomeOf(spec, session.decision, 'it was denied earlier in this host');
  const stored = store.hashOf(spec.name);
  if (stored === hash) {
    ctx.trust.decisions.set(spec.dir, { hash, decision: 'always', asked: false });
    return { state: 'always' };
  }
  const changed = (stored !== undefined && stored !== hash) || session !== undefined;
  const answer = await ask(ctx, spec, hash, changed);
  if (typeof answer !== 'string') return denied(spec, answer.reason);
  ctx.trust.decisions.set(spec.dir, { hash, decision: answer, asked: true });
  if (answer === 'always') await store.save(spec, hash);
  return outcomeOf(spec, answer, "the trust callback answered 'deny'");
}

function outcomeOf(spec: ExtensionSpec, decision: TrustDecision, deniedBecause: string): TrustOutcome {
  return decision === 'deny' ? denied(spec, deniedBecause) : { state: decision };
}

function denied(spec: ExtensionSpec, reason: string): TrustOutcome {
  const message = `project extension ${spec.name} (${spec.dir}) was not started: ${reason}`;
  return { state: 'denied', error: new ExtensionHostError(ErrorCode.UNTRUSTED, message, { extension: spec.name }) };
}

const DECISIONS: ReadonlySet<unknown> = new Set<TrustDecision>(['once', 'always', 'deny']);

/** Asks the callback about one extension, within `timeouts.trust`; anything but a valid answer is a reason to deny. */
async function ask(ctx: HostContext, spec: ExtensionSpec, hash: string, changed: boolean): Promise<TrustDecision | { reason: string }> {
  const callback = ctx.options.trust as (request: TrustRequest) => TrustDecision | Promise<TrustDecision>;
  const stopped = ctx.trust.stopped;
  const dismiss = () => {
    ctx.trust.dismissed = true;
    return { reason: 'the host stopped before the trust callback answered' };
  };
  if (stopped.aborted) return dismiss();
  const controller = new AbortController();
  const onStop = () => controller.abort('stopped');
  stopped.addEventListener('abort', onStop, { once: true });
  const ms = ctx.timeouts.trust;
  const timer = ms <= MAX_TIMER_MS ? setTimeout(() => controller.abort('timeout'), ms) : undefined;
  let onAbort = () => {};
  const aborted = new Promise<{ aborted: unknown }>((resolve) => {
    onAbort = () => resolve({ aborted: controller.signal.reason });
    controller.signal.addEventListener('abort', onAbort, { once: true });
  });
  const diagnose = (code: string, message: string) => ctx.diagnostics.diagnose({ code, message, extension: spec.name, severity: 'error' } satisfies HostDiagnostic);
  try {
    const request = trustRequest(ctx, spec, hash, changed, controller.signal);
    const answer = await Promise.race([Promise.resolve().then(() => callback(request)), aborted]);
    if (typeof answer === 'object' && answer !== null && 'aborted' in answer) {
      if (answer.aborted !== 'timeout') return dismiss();
      diagnose('TRUST_TIMEOUT', `trust: no answer about project extension ${spec.name} within ${ms} ms (timeouts.trust); not started`);
      return { reason: `no answer from the trust callback within ${ms} ms` };
    }
    if (DECISIONS.has(answer)) return answer as TrustDecision;
    diagnose('TRUST_INVALID_ANSWER', `trust: the callback answered ${describeValue(answer)} about project extension ${spec.name}, not 'once', 'always' or 'deny'; not started`);
    return { reason: `the trust callback answered ${describeValue(answer)}` };
  } catch (err) {
    const why = err instanceof Error ? err.message : describeValue(err);
    diagnose('CALLBACK_THREW', `trust callback threw about project extension ${spec.name}: ${why}; not started`);
    return { reason: `the trust callback threw (${why})` };
  } finally {
    clearTimeout(timer);
    controller.signal.removeEventListener('abort', onAbort);
    stopped.removeEventListener('abort', onStop);
  }
}

function trustRequest(ctx: HostContext, spec: ExtensionSpec, hash: string, changed: boolean, signal: AbortSignal): TrustRequest {
  const program = programOf(spec);
  const request: TrustRequest = {
    name: spec.name,
    dir: spec.dir,
    source: 'project',
    project: ctx.trust.project ?? ctx.cwd,
    exec: program === undefined ? undefined : { command: resolveExec(program.command, spec.dir).command, args: [...program.args] },
    permissions: spec.permissionsRequested === undefined ? undefined : [...spec.permissionsRequested],
    hash,
    changed,
    signal,
  };
  const url = remoteUrl(spec);
  if (url !== undefined) request.url = redactUrl(url);
  return request;
}

/** What `spec` spawns: its `exec` and `args`, or its MCP server's `command` and `args`; undefined for a remote or in-memory one. */
function programOf(spec: ExtensionSpec): { command: string; args: readonly string[] } | undefined {
  if (spec.mcp !== undefined) return 'command' in spec.mcp ? { command: spec.mcp.command, args: spec.mcp.args ?? [] } : undefined;
  if (isRemote(spec) || spec.exec === undefined || spec.exec === '') return undefined;
  return { command: spec.exec, args: spec.args ?? [] };
}

/**
 * Stores `'always'` for the project extension `spec` in `<home>/trust.json`, for the project `cwd`
 * (its real path) at the extension's content hash now: the record a trust callback's `'always'`
 * makes (`zot-ext install --project`: the user installed it on purpose). A change to its files asks
 * again. `problems`: why it was not stored (the store is unusable or could not be written).
 */
export async function storeAlways(where: { home: string; cwd: string }, spec: ExtensionSpec): Promise<{ hash: string; problems: string[] }> {
  const problems: string[] = [];
  const ctx: StoreContext = { home: where.home, cwd: where.cwd, trust: { project: undefined }, diagnostics: { diagnose: (d) => void problems.push(d.message) } };
  const store = await TrustStore.open(ctx);
  const hash = await contentHash(spec, ctx.trust.project);
  await store.save(spec, hash);
  return { hash, problems };
}

// ---------------------------------------------------------------------------------------------
// The content hash: the manifest and the program files it names. What those programs load (a
// node_modules, a module next to them) is not in it: docs/security.md says so.
// ---------------------------------------------------------------------------------------------

type Hash = ReturnType<(typeof import('node:crypto'))['createHash']>;

/**
 * `sha256:<hex>` over the manifest's bytes and each program file (its path from the directory, size
 * and bytes); `project` (the real path of the host's cwd) widens which args count as files.
 */
async function contentHash(spec: ExtensionSpec, project?: string): Promise<string> {
  // Loaded here, on the trust path only (docs/performance.md: node:crypto at import costs every embedder).
  const { createHash } = await import('node:crypto');
  const hash = createHash('sha256');
  hash.update('zot-trust-v1\0manifest\0');
  hash.update(spec.manifestPath === undefined ? 'none' : await readFile(spec.manifestPath).catch(() => 'unreadable'));
  for (const { file, info } of await programFiles(spec, project)) {
    hash.update(`\0file\0${path.relative(spec.dir, file)}\0`);
    await hashFile(hash, file, info);
  }
  return `sha256:${hash.digest('hex')}`;
}

/**
 * The program (its `exec`, or its MCP server's `command`, when it is a path) and every arg that is a
 * regular file inside the extension's directory or anywhere under the project (with the stat that
 * found it so: hashFile() does not stat it again).
 */
async function programFiles(spec: ExtensionSpec, project: string | undefined): Promise<{ file: string; info?: Stats }[]> {
  const program = programOf(spec);
  if (program === undefined) return [];
  const files: { file: string; info?: Stats }[] = [];
  const exec = resolveExec(program.command, spec.dir);
  if (!exec.onPath) files.push({ file: exec.command });
  const inside = (root: string, file: string) => {
    const rel = path.relative(root, file);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  };
  for (const arg of program.args) {
    if (arg === '') continue;
    const file = path.resolve(spec.dir, arg);
    if (files.some((f) => f.file === file) || !(inside(spec.dir, file) || (project !== undefined && inside(project, file)))) continue;
    const info = await stat(file).catch(() => undefined);
    if (info?.isFile() === true) files.push({ file, info });
  }
  return files;
}

/** Its size and bytes (at most MAX_HASHED_BYTES); `known`: its stat already taken. */
async function hashFile(hash: Hash, file: string, known?: Stats): Promise<void> {
  const info = known ?? (await stat(file).catch(() => undefined));
  if (info === undefined) return void hash.update('missing');
  // Never a FIFO or a device (it may never end).
  if (!info.isFile()) return void hash.update('not-a-file');
  hash.update(`${info.size}\0`);
  try {
    for await (const chunk of createReadStream(file, { end: MAX_HASHED_BYTES - 1 })) hash.update(chunk as Buffer);
  } catch {
    hash.update('\0unreadable');
  }
}

// ---------------------------------------------------------------------------------------------
// The store: `<home>/trust.json`, { version: 1, projects: { <cwd real path>: { extensions: {
// <name key>: { hash, dir, at } } } } }. Read at each start that asks; a write reads it again,
// changes this project's entry and keeps the rest as it was.
// ---------------------------------------------------------------------------------------------

interface StoredExtension {
  hash: string;
  dir: string;
  /** ISO time of the decision. */
  at: string;
}

type StoreData = { version: 1; projects: Record<string, { extensions: Record<string, StoredExtension> }> };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the store needs of a host: its home and cwd, the project's key once found, where problems go. */
type StoreContext = Pick<HostContext, 'home' | 'cwd'> & { trust: { project: string | undefined }; diagnostics: { diagnose(d: HostDiagnostic): void } };

class TrustStore {
  private constructor(
    private readonly ctx: StoreContext,
    readonly file: string,
    /** The project's key: the real path of the host's cwd. */
    private readonly project: string,
    private data: StoreData | undefined,
    /** Why the file is neither read nor written (a diagnostic said so), when it is not usable. */
    private readonly unusable: string | undefined,
  ) {}

  static async open(ctx: StoreContext): Promise<TrustStore> {
    const project = (ctx.trust.project ??= await realpath(ctx.cwd).catch(() => ctx.cwd));
    const file = path.join(ctx.home, TRUST_STORE_FILE);
    const home = await realpath(ctx.home).catch(() => ctx.home);
    // A home inside the project (ZOT_HOME=<cwd>/.zot) would let the repository ship its own answers.
    if (home === project || home.startsWith(project + path.sep)) {
      const why = `the trust store ${file} is inside the project ${project}, which could ship its own decisions; 'always' is not remembered (decisions hold for this host only)`;
      return new TrustStore(ctx, file, project, undefined, problem(ctx, 'TRUST_STORE_IN_PROJECT', why));
    }
    const read = await readStore(file);
    if ('problem' in read) return new TrustStore(ctx, file, project, undefined, problem(ctx, 'TRUST_STORE_INVALID', `${read.problem}; it is left as it is and not written: decisions hold for this host only (fix or remove the file to store 'always' again)`));
    return new TrustStore(ctx, file, project, read.data, undefined);
  }

  /** The stored hash of an `'always'` decision about `name` in this project. */
  hashOf(name: string): string | undefined {
    const entry = this.data?.projects[this.project]?.extensions[nameKey(name)];
    return entry === undefined || typeof entry.hash !== 'string' ? undefined : entry.hash;
  }

  /** Stores `'always'` for `spec` at `hash`; a failure is a diagnostic (the decision still holds for this host). */
  async save(spec: ExtensionSpec, hash: string): Promise<void> {
    if (this.unusable !== undefined) return;
    // Again: another host may have written since this one read it.
    const read = await readStore(this.file);
    if ('problem' in read) {
      problem(this.ctx, 'TRUST_STORE_INVALID', `${read.problem}; 'always' for ${spec.name} is not stored`);
      return;
    }
    const data = read.data;
    const projects = data.projects;
    const entry = (projects[this.project] ??= { extensions: {} });
    entry.extensions[nameKey(spec.name)] = { hash, dir: spec.dir, at: new Date().toISOString() };
    bound(data, this.project);
    const tmp = `${this.file}.${process.pid}.${Date.now()}.tmp`;
    try {
      await mkdir(path.dirname(this.file), { recursive: true });
      await writeFile(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
      await rename(tmp, this.file);
      this.data = data;
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      problem(this.ctx, 'TRUST_STORE_WRITE_FAILED', `trust: could not write ${this.file}: ${err instanceof Error ? err.message : String(err)}; 'always' for ${spec.name} holds for this host only`);
    }
  }
}

function problem(ctx: StoreContext, code: string, message: string): string {
  ctx.diagnostics.diagnose({ code, message, severity: 'warning' });
  return message;
}

/** The store's data; a missing file is an empty store; anything unreadable or not ours is a problem (and left alone). */
async function readStore(file: string): Promise<{ data: StoreData } | { problem: string }> {
  let text: string;
  try {
    const info = await stat(file);
    if (info.size > MAX_TRUST_STORE_BYTES) return { problem: `the trust store ${file} is larger than ${MAX_TRUST_STORE_BYTES} bytes` };
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { data: { version: 1, projects: {} } };
    return { problem: `the trust store ${file} cannot be read: ${err instanceof Error ? err.message : String(err)}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: `the trust store ${file} is not valid JSON` };
  }
  if (!isObject(value) || value.version !== 1 || !isObject(value.projects)) return { problem: `the trust store ${file} is not a version 1 trust store` };
  // Entries of another shape are kept as they are and never read as decisions.
  for (const [key, project] of Object.entries(value.projects)) {
    if (!isObject(project) || !isObject(project.extensions)) delete value.projects[key];
  }
  return { data: value as StoreData };
}

/** Keeps the store within its bounds: the least recently trusted extensions and projects go first. */
function bound(data: StoreData, current: string): void {
  const latest = (p: { extensions: Record<string, StoredExtension> }) => Object.values(p.extensions).reduce((m, e) => (typeof e.at === 'string' && e.at > m ? e.at : m), '');
  const own = data.projects[current]!.extensions;
  const keys = Object.keys(own).sort((a, b) => String(own[a]!.at).localeCompare(String(own[b]!.at)));
  for (const key of keys.slice(0, Math.max(0, keys.length - MAX_TRUST_PER_PROJECT))) delete own[key];
  const others = Object.keys(data.projects)
    .filter((p) => p !== current)
    .sort((a, b) => latest(data.projects[a]!).localeCompare(latest(data.projects[b]!)));
  while (others.length > 0 && (others.length + 1 > MAX_TRUST_PROJECTS || JSON.stringify(data).length > MAX_TRUST_STORE_BYTES / 2)) delete data.projects[others.shift()!];
}
