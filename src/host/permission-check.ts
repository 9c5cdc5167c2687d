// Enforcement of permission scopes (permissions.ts) on the frames the host receives. A refused
// frame reaches no callback, registry or chain; each extension gets one diagnostic per scope it
// lacks (later refusals of that scope are counted, not reported), so a flood costs nothing.
import { ErrorCode, ExtensionHostError } from '../errors.js';
import type { HostContext } from './context.js';
import type { LoadedExtension } from './loaded-extension.js';
import { allowsName } from './permissions.js';

type Simple = 'commands' | 'tools' | 'submit' | 'panels' | 'notes';

const WHAT: Record<Simple, string> = {
  commands: 'register_command',
  tools: 'register_tool',
  submit: 'submit',
  panels: 'a panel',
  notes: 'notify / clear_notes',
};

/** True when `ext` may; otherwise the refusal is reported (once per scope) and counted. */
export function permits(ctx: HostContext, ext: LoadedExtension, scope: Simple): boolean {
  if (ext.security.granted[scope]) return true;
  refuse(ctx, ext, scope, `${ext.name}: ${WHAT[scope]} refused: its permissions do not include "${scope}"`);
  return false;
}

/** The names of `names` that `ext` may subscribe to (`events` or `intercept`); the others are reported. */
export function permittedNames(ctx: HostContext, ext: LoadedExtension, scope: 'events' | 'intercept', names: readonly string[]): readonly string[] {
  const list = ext.security.granted[scope];
  if (list === true || names.length === 0) return names;
  const ok = names.filter((n) => allowsName(list, n));
  if (ok.length < names.length) {
    const denied = names.filter((n) => !allowsName(list, n));
    const shown = denied.slice(0, 5).map((n) => JSON.stringify(n.slice(0, 80))).join(', ') + (denied.length > 5 ? `, and ${denied.length - 5} more` : '');
    refuse(ctx, ext, scope, `${ext.name}: subscribe to ${scope === 'events' ? 'events' : 'intercept'} ${shown} refused: its permissions do not include ${scope === 'events' ? '"events"' : '"intercept"'} for them`);
  }
  return ok;
}

/** The failure of a command whose open_panel answer was refused. */
export function panelRefusal(ext: LoadedExtension): ExtensionHostError {
  return new ExtensionHostError(ErrorCode.PERMISSION_DENIED, `${ext.name}: open_panel refused: its permissions do not include "panels"`, { extension: ext.name, logPath: ext.logPath });
}

function refuse(ctx: HostContext, ext: LoadedExtension, scope: string, message: string): void {
  const seen = ext.countRefusal(scope);
  if (seen === 0) ctx.diagnostics.diagnose({ code: 'PERMISSION_DENIED', message: `${message} (later refusals of "${scope}" are only counted)`, extension: ext.name, severity: 'warning' });
}
