import path from 'node:path';
import type { ExtensionInfo, FailedReport, HostDiagnostic, HostWarning, StartReport, ToolInfo } from '../../host/types.js';
import type { DiscoveryDiagnostic } from '../../manifest/index.js';
import { discoveryFor, realRoots, type Command, type CommandContext } from '../context.js';
import { invalidExtensions, type InvalidExtension } from '../invalid.js';
import { SANDBOX_OPTIONS, sandboxText } from '../sandbox.js';
import { TRUST_OPTIONS, createHost, explicitPaths, isUntrusted, trustText, untrustedHint } from '../create-host.js';
import { nullForUndefined } from './list.js';
import { isDiscoveryDiagnostic as isDiscovery, noHelloYet } from '../start-problems.js';
import { terminalSafe as safe } from '../terminal-safe.js';

type Diagnostic = HostDiagnostic | DiscoveryDiagnostic;

export const doctor: Command = {
  name: 'doctor',
  usage: '[paths...]',
  summary: 'start every extension as an agent would and report what happened',
  description: [
    'Runs the same discovery and start path as an agent (paths given are loaded first, like --ext),',
    'then reports: manifest errors, disabled and shadowed extensions, spawn and handshake failures',
    '(exit status or signal, log path), ready vs auto-ready and how long each took, registered',
    'commands and tools, registration conflicts, warnings, and each stderr log path. Everything it',
    'started is stopped before it exits. Exit code 1 when any extension failed or has an invalid',
    'manifest; with --strict also when there is any warning (a project extension shadowing a global',
    'one of its name is not a warning).',
    '',
    'Project extensions (<cwd>/.zot/extensions) came with the repository: on a terminal doctor asks',
    'before it starts each one (y = this once, a = always in this project, n = no); otherwise only',
    'those trusted "always" start, unless --trust. One not started is listed as untrusted (not a',
    'failure; a warning for --strict). --no-project skips them.',
  ].join('\n'),
  options: {
    json: { type: 'boolean', description: 'print the report as JSON' },
    'no-discover': { type: 'boolean', description: 'load only the given paths' },
    ...SANDBOX_OPTIONS,
    strict: { type: 'boolean', description: 'exit 1 on warnings too (refused names, bad frames, conflicts, untrusted project extensions, ...)' },
    ...TRUST_OPTIONS,
  },
  async run(ctx) {
    const explicit = explicitPaths(ctx);
    const host = createHost(ctx, { explicit, discover: ctx.values['no-discover'] !== true });
    const warnings: HostWarning[] = [];
    host.on('warning', (w) => warnings.push(w));
    let report: StartReport;
    let infos: ExtensionInfo[];
    let tools: ToolInfo[];
    try {
      report = await host.start();
      infos = host.extensions();
      tools = host.tools();
    } finally {
      await host.stop();
    }
    const roots = await realRoots(discoveryFor(ctx));
    const known = [...infos.map((i) => i.dir), ...report.skipped.map((s) => s.dir)];
    const invalid = invalidExtensions(report.diagnostics.filter(isDiscovery), known, roots, explicit);
    const failed = infos.filter((i) => i.state !== 'ready' && i.trust !== 'denied');
    const strict = ctx.values.strict === true;
    const warningCount = countWarnings(report) + warnings.length + infos.filter((i) => i.trust === 'denied').length + unlistedUntrusted(report, infos).length;
    const ok = failed.length === 0 && invalid.length === 0 && (!strict || warningCount === 0);

    if (ctx.values.json === true) {
      ctx.out.line(JSON.stringify({ ...toJson(ctx, host.logDir, report, infos, tools, invalid, warnings, ok), strict, warningCount }, nullForUndefined, 2));
    } else {
      printReport(ctx, host.logDir, report, infos, invalid);
      if (strict && warningCount > 0) ctx.out.line(`--strict: ${warningCount} warning${warningCount === 1 ? '' : 's'}`);
    }
    return ok ? 0 : 1;
  },
};

/**
 * Warnings for --strict: every warning diagnostic (conflicts included) and warning event, but a
 * shadowed extension (a project one overriding a global one of its name is what scopes are for).
 */
function countWarnings(report: StartReport): number {
  return report.diagnostics.filter((d) => d.severity === 'warning' && !(isDiscovery(d) && d.code === 'SHADOWED')).length;
}

/**
 * Untrusted project extensions that are not loaded extensions: one that would shadow a global one
 * of its name (that one runs instead and has the name); only report.failed lists it.
 */
function unlistedUntrusted(report: StartReport, infos: readonly ExtensionInfo[]): FailedReport[] {
  return report.failed.filter((f) => isUntrusted(f) && !infos.some((i) => i.name === f.name && i.source === f.source));
}

function readyText(info: ExtensionInfo): string {
  switch (info.readyVia) {
    case 'ready':
      return `ready in ${info.readyMs} ms`;
    case 'idle':
      return `auto-ready after ${info.readyMs} ms (no ready frame; went quiet)`;
    case 'grace':
      return `auto-ready after ${info.readyMs} ms (no ready frame before the grace period ended)`;
    default:
      return info.state;
  }
}

/**
 * A remote extension's manifest headers by name: where each value comes from and whether that
 * variable is set (`undefined` for a literal). Never a value.
 */
function headerStatus(headers: ExtensionInfo['headers'], env: NodeJS.ProcessEnv): { name: string; variable: string | undefined; set: boolean | undefined }[] {
  return (headers ?? []).map(({ name, variable }) => ({ name, variable, set: variable === undefined ? undefined : env[variable] !== undefined && env[variable] !== '' }));
}

function headerLines(headers: ExtensionInfo['headers'], env: NodeJS.ProcessEnv): string[] {
  return headerStatus(headers, env).map(({ name, variable, set }) => (variable === undefined ? `${name} (literal)` : `${name} (from $${variable}, ${set === true ? 'set' : 'not set'})`));
}

function printReport(ctx: CommandContext, logDir: string, report: StartReport, infos: ExtensionInfo[], invalid: InvalidExtension[]): void {
  const { out } = ctx;
  const ok = out.style('green', '✓');
  const bad = out.style('red', '✗');
  const skip = out.style('gray', '-');
  out.line(`home     ${ctx.home}`);
  out.line(`project  ${path.join(ctx.cwd, `.${ctx.appName}`, 'extensions')}`);
  out.line(`logs     ${logDir}`);
  out.line();
  const byExtension = (name: string) => report.diagnostics.filter((d) => d.extension === name && !isDiscovery(d));
  for (const info of infos) {
    const head = safe(`${info.name}${info.version === undefined ? '' : ` ${info.version}`} (${info.source})`);
    if (info.trust === 'denied') {
      out.line(`${out.style('yellow', '!')} ${head} ${out.style('yellow', 'untrusted')}: ${safe(`not started: ${untrustedHint(ctx)}`)}`);
      out.line(`    dir: ${safe(info.dir)}`);
      continue;
    }
    if (info.state === 'ready') out.line(`${ok} ${head} ${readyText(info)}`);
    else {
      const what = info.state === 'exited' ? `exited after ${readyText(info)}` : 'failed';
      out.line(`${bad} ${head} ${out.style('red', what)}: ${safe(errorOf(info, report).message)}`);
    }
    if (info.url !== undefined) {
      out.line(`    url: ${safe(info.url)}`);
      const headers = headerLines(info.headers, ctx.io.env);
      if (headers.length > 0) out.line(`    headers: ${safe(headers.join(', '))}`);
    }
    const commands = info.commands.map((c) => `/${c.name}${c.active ? '' : ' (shadowed)'}`);
    const tools = info.tools.map((t) => `${t.name}${t.deferred ? ' (deferred)' : ''}${t.active ? '' : ' (shadowed)'}`);
    if (commands.length > 0) out.line(`    commands: ${safe(commands.join(', '))}`);
    if (tools.length > 0) out.line(`    tools: ${safe(tools.join(', '))}`);
    const subs = info.subscriptions;
    if (subs.events.length > 0) out.line(`    events: ${safe(subs.events.join(', '))}`);
    if (subs.intercept.length > 0) out.line(`    intercepts: ${subs.intercept.join(', ')}`);
    const { granted, requested } = info.permissions;
    if (requested !== undefined || granted.length < 7) {
      out.line(`    permissions: ${safe(granted.length === 0 ? '(none)' : granted.join(', '))}${requested === undefined ? '' : ` (requested: ${safe(requested.length === 0 ? '(none)' : requested.join(', '))})`}`);
    }
    if (info.sandbox.mode !== 'off') out.line(`    sandbox: ${safe(sandboxText(info.sandbox))}`);
    const trust = trustText(info);
    if (trust !== undefined) out.line(`    trust: ${trust}`);
    for (const d of byExtension(info.name)) out.line(`    ${out.style('yellow', d.code === 'REGISTRATION_CONFLICT' ? 'conflict' : 'warning')}: ${safe(d.message)}`);
    out.line(`    log: ${safe(info.logPath)}`);
  }
  const unlisted = unlistedUntrusted(report, infos);
  for (const f of unlisted) {
    out.line(`${out.style('yellow', '!')} ${safe(`${f.name} (${f.source})`)} ${out.style('yellow', 'untrusted')}: ${safe(`not started (the global one of its name runs instead): ${untrustedHint(ctx)}`)}`);
    if (f.path !== undefined) out.line(`    dir: ${safe(f.path)}`);
  }
  for (const s of report.skipped) {
    const why = s.reason === 'shadowed' ? shadowText(report, s.name, s.dir) : s.reason === 'disabled' ? 'disabled' : `not started (${s.reason} only)`;
    out.line(`${skip} ${safe(s.name)} ${out.style('gray', safe(why))}: ${safe(s.dir)}`);
  }
  for (const b of invalid) out.line(`${bad} ${safe(b.name)} (${b.scope}) ${out.style('red', 'invalid')}: ${safe(b.diagnostic.message)}`);

  const shown = new Set<Diagnostic>(invalid.map((b) => b.diagnostic));
  const others = report.diagnostics.filter((d) => !shown.has(d) && (isDiscovery(d) ? d.code !== 'SHADOWED' && d.code !== 'DUPLICATE_NAME' : !infos.some((i) => i.name === d.extension)));
  if (others.length > 0) {
    out.line();
    for (const d of others) out.line(`${out.style(d.severity === 'error' ? 'red' : 'yellow', d.severity)}: ${safe(d.message)}`);
  }

  const count = (n: number, what: string) => (n > 0 ? [`${n} ${what}`] : []);
  // Still starting (no hello yet) when doctor stopped it: failed, as HELLO_TIMEOUT.
  const failed = infos.filter((i) => i.state !== 'ready' && i.state !== 'exited' && i.trust !== 'denied').length;
  const exited = infos.filter((i) => i.state === 'exited').length;
  const summary = [
    ...count(infos.filter((i) => i.state === 'ready').length, 'ready'),
    ...count(failed, 'failed'),
    ...count(exited, 'exited after ready'),
    ...count(invalid.length, 'invalid'),
    ...count(infos.filter((i) => i.trust === 'denied').length + unlisted.length, 'untrusted'),
    ...count(report.skipped.filter((s) => s.reason === 'disabled').length, 'disabled'),
    ...count(report.skipped.filter((s) => s.reason === 'shadowed').length, 'shadowed'),
  ];
  out.line();
  out.line(`${summary.length === 0 ? 'no extensions found' : summary.join(', ')} (${report.ms} ms)`);
}

/**
 * Why an extension is not ready: its error, or for one still starting when start() returned (no
 * hello within the hello timeout) a HELLO_TIMEOUT naming its log.
 */
function errorOf(info: ExtensionInfo, report: StartReport): { code: string; message: string; exitCode?: number | null | undefined; signal?: NodeJS.Signals | null | undefined } {
  if (info.error !== undefined) return info.error;
  if (info.state === 'starting') {
    return { code: 'HELLO_TIMEOUT', message: `${noHelloYet(report.ms)}; it was still starting when doctor stopped it; see ${info.logPath}` };
  }
  return { code: info.state, message: info.state };
}

function shadowText(report: StartReport, name: string, dir: string): string {
  const d = report.diagnostics.find((x) => isDiscovery(x) && (x.code === 'SHADOWED' || x.code === 'DUPLICATE_NAME') && x.extension === name && x.path.startsWith(dir + path.sep));
  return d === undefined ? 'shadowed' : `shadowed (${d.message.split(';')[0]})`;
}

function errorJson(e: ReturnType<typeof errorOf>) {
  return { code: e.code, message: e.message, exitCode: e.exitCode, signal: e.signal };
}

function toJson(ctx: CommandContext, logDir: string, report: StartReport, infos: ExtensionInfo[], tools: ToolInfo[], invalid: InvalidExtension[], warnings: HostWarning[], ok: boolean) {
  // The host lists the schemas of active tools only: a deferred tool not activated yet, or one
  // shadowed by another registration, has `schema: null`.
  const schemaOf = (extension: string, name: string) => tools.find((t) => t.extension === extension && t.name === name)?.schema;
  return {
    ok,
    home: ctx.home,
    cwd: ctx.cwd,
    logDir,
    ms: report.ms,
    extensions: [
      ...infos.map((i) => ({
        name: i.name,
        version: i.version,
        source: i.source,
        dir: i.dir,
        ...(i.url !== undefined ? { url: i.url } : {}),
        // Names and where each value comes from, never a value (as in the text report).
        ...(i.headers !== undefined ? { headers: headerStatus(i.headers, ctx.io.env) } : {}),
        state: i.state,
        trust: i.trust,
        readyVia: i.readyVia,
        readyMs: i.readyMs,
        logPath: i.logPath,
        capabilities: i.capabilities,
        commands: i.commands,
        tools: i.tools.map((t) => ({ ...t, schema: schemaOf(i.name, t.name) })),
        subscriptions: i.subscriptions,
        error: i.error !== undefined || i.state === 'starting' ? errorJson(errorOf(i, report)) : undefined,
        // Its OS sandbox, when one was asked for (the --sandbox flag, or its manifest).
        ...(i.sandbox.mode !== 'off' ? { sandbox: i.sandbox } : {}),
      })),
      // An untrusted project extension a global one of its name runs instead of: listed as a denied one is.
      ...unlistedUntrusted(report, infos).map((f) => ({
        name: f.name,
        version: undefined,
        source: f.source,
        dir: f.path,
        state: 'failed',
        trust: 'denied',
        readyVia: undefined,
        readyMs: undefined,
        logPath: undefined,
        capabilities: [],
        commands: [],
        tools: [],
        subscriptions: { events: [], intercept: [] },
        error: errorJson(f.error),
      })),
    ],
    skipped: report.skipped,
    invalid: invalid.map((b) => ({ name: b.name, scope: b.scope, dir: b.dir, code: b.diagnostic.code, message: b.diagnostic.message })),
    diagnostics: report.diagnostics,
    warnings: warnings.map((w) => ({ message: w.message, extension: w.extension, code: w.code, logPath: w.logPath })),
  };
}
