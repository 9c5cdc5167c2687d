import type { DiscoveryDiagnostic } from '../../manifest/index.js';
import { discoveryFor, expectArgs, realRoots, type Command, type Scope } from '../context.js';
import { headCommit } from '../git.js';
import { invalidExtensions } from '../invalid.js';
import { terminalSafe as safe } from '../terminal-safe.js';

/** One row of `zot-ext list` (also the `--json` shape). */
export interface ListRow {
  name: string;
  version: string | undefined;
  scope: Scope;
  state: 'enabled' | 'disabled' | 'shadowed' | 'invalid';
  kind: 'process' | 'skills' | 'theme' | undefined;
  description: string | undefined;
  path: string;
  /** The commit checked out in the extension's own .git (a git install), else undefined. */
  commit: string | undefined;
  /** invalid: what is wrong; shadowed: which extension wins. */
  problem?: string | undefined;
}

export const list: Command = {
  name: 'list',
  usage: '',
  summary: 'list installed extensions of both scopes',
  description: [
    'Lists the extensions in <cwd>/.zot/extensions (project) and <home>/extensions (global), in load',
    'order, with name, version, commit (of a git install), scope, state (enabled, disabled, shadowed, invalid), description and',
    'path. Spawns nothing. Warnings (e.g. an exec that is not executable) follow the table.',
  ].join('\n'),
  options: {
    json: { type: 'boolean', description: 'print JSON: {home, roots, extensions, diagnostics}' },
  },
  async run(ctx) {
    expectArgs(ctx, list, 0, 0);
    // Spawns nothing, so the exec checks run here (missing or not executable).
    const discovery = discoveryFor(ctx, [], { checkExec: true });
    const [{ extensions, diagnostics }, roots] = await Promise.all([discovery.discover(), realRoots(discovery)]);
    const commits = await Promise.all(extensions.map((ext) => headCommit(ext.dir)));
    const rows: ListRow[] = extensions.map((ext, i) => ({
      name: ext.name,
      version: ext.manifest.version,
      scope: ext.source === 'project' ? 'project' : 'global',
      state: ext.shadowedBy !== undefined ? 'shadowed' : ext.enabled ? 'enabled' : 'disabled',
      kind: ext.kind,
      description: ext.manifest.description,
      path: ext.dir,
      commit: commits[i],
      problem: ext.shadowedBy === undefined ? undefined : `shadowed by the ${ext.shadowedBy.source} one in ${ext.shadowedBy.dir}`,
    }));
    const broken = invalidExtensions(diagnostics, extensions.map((e) => e.dir), roots);
    for (const b of broken) {
      rows.push({ name: b.name, version: undefined, scope: b.scope, state: 'invalid', kind: undefined, description: undefined, path: b.dir, commit: undefined, problem: b.diagnostic.message });
    }
    const invalid = broken.map((b) => b.diagnostic);
    const warnings = diagnostics.filter((d) => !invalid.includes(d) && d.code !== 'SHADOWED');

    if (ctx.values.json === true) {
      ctx.out.line(JSON.stringify({ home: ctx.home, roots: { project: discovery.projectRoot, global: discovery.globalRoot }, extensions: rows, diagnostics }, nullForUndefined, 2));
      return 0;
    }
    if (rows.length === 0) {
      ctx.out.line(`no extensions installed (project: ${discovery.projectRoot}, global: ${discovery.globalRoot})`);
      return 0;
    }
    const { out } = ctx;
    const stateStyle = { enabled: 'green', disabled: 'gray', shadowed: 'yellow', invalid: 'red' } as const;
    // A COMMIT column only when something was installed from git.
    const withCommit = rows.some((r) => r.commit !== undefined);
    out.table([
      ['NAME', 'VERSION', ...(withCommit ? ['COMMIT'] : []), 'SCOPE', 'STATE', 'DESCRIPTION', 'PATH'].map((h) => out.style('bold', h)),
      ...rows.map((r) => [
        safe(r.name),
        safe(r.version ?? '-'),
        ...(withCommit ? [r.commit?.slice(0, 7) ?? '-'] : []),
        r.scope,
        out.style(stateStyle[r.state], r.state),
        r.state === 'invalid' ? '-' : safe(oneLine(r.description ?? '-')),
        safe(r.path),
      ]),
    ]);
    const notes: DiscoveryDiagnostic[] = [...invalid, ...warnings];
    if (notes.length > 0) out.line();
    for (const d of notes) out.line(`${out.style(d.severity === 'error' ? 'red' : 'yellow', d.severity)}: ${safe(d.message)}`);
    return 0;
  },
};

/** JSON.stringify replacer: absent values print as null, so every row has the same keys. */
export function nullForUndefined(_key: string, value: unknown): unknown {
  return value === undefined ? null : value;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 60 ? `${flat.slice(0, 59)}…` : flat;
}
