import { ErrorCode, ExtensionHostError } from '../errors.js';
import type { CommandResponseFrame, PanelKeyName, PanelRenderFrame } from '../protocol/frames.js';
import type { HostContext } from './context.js';
import type { LoadedExtension } from './loaded-extension.js';
import type { PanelKey, PanelView } from './types.js';

type PanelSpec = NonNullable<CommandResponseFrame['open_panel']>;

/** A command answered open_panel: the panel, or why it was refused. */
export function openPanel(ctx: HostContext, ext: LoadedExtension, spec: PanelSpec): PanelView | ExtensionHostError {
  const owner = ctx.panels.get(spec.id);
  if (owner !== undefined && owner !== ext) {
    refusePanel(ctx, ext, spec.id, owner, 'open_panel');
    return new ExtensionHostError(ErrorCode.BAD_RESPONSE, `${ext.name}: panel ${JSON.stringify(spec.id)} is already shown by ${owner.name}`, { extension: ext.name, logPath: ext.logPath });
  }
  const panel: PanelView = { extension: ext.name, panelId: spec.id, title: spec.title, lines: spec.lines ?? [], footer: spec.footer };
  ctx.panels.set(spec.id, ext);
  ctx.closedPanels.opened(spec.id);
  ctx.out.call('openPanel', panel);
  return panel;
}

/** A panel_render frame; only the panel's owner may render it. */
export function renderPanelFrame(ctx: HostContext, ext: LoadedExtension, frame: PanelRenderFrame): void {
  if (!ownsPanel(ctx, ext, frame.panel_id, 'panel_render')) return;
  ctx.out.call('renderPanel', { extension: ext.name, panelId: frame.panel_id, title: frame.title, lines: frame.lines ?? [], footer: frame.footer });
}

/** A panel_close frame; only the panel's owner may close it. */
export function closePanelFrame(ctx: HostContext, ext: LoadedExtension, panelId: string): void {
  if (!ownsPanel(ctx, ext, panelId, 'panel_close')) return;
  ctx.panels.delete(panelId);
  ctx.closedPanels.closed(panelId, ext);
  ctx.out.call('closePanel', { extension: ext.name, panelId, by: 'extension' });
}

function ownsPanel(ctx: HostContext, ext: LoadedExtension, panelId: string, what: string): boolean {
  const owner = ctx.panels.get(panelId);
  if (owner === ext) return true;
  if (owner === undefined && latePanelFrame(ctx, ext, panelId, what)) return false;
  refusePanel(ctx, ext, panelId, owner, what);
  return false;
}

/** A frame for `ext`'s own panel after it closed: counted and dropped, logged once per close. */
function latePanelFrame(ctx: HostContext, ext: LoadedExtension, panelId: string, what: string): boolean {
  const late = ctx.closedPanels.late(panelId, ext);
  if (late === undefined) return false;
  ext.latePanelFrames++;
  if (late === 1) ext.process.logLine(`${what} for its panel ${JSON.stringify(panelId)} after it closed: dropped (later ones are only counted)`);
  return true;
}

function refusePanel(ctx: HostContext, ext: LoadedExtension, panelId: string, owner: LoadedExtension | undefined, what: string): void {
  const message = owner === undefined ? `${ext.name}: ${what} for panel ${JSON.stringify(panelId)}, which is not open; refused` : `${ext.name}: ${what} for panel ${JSON.stringify(panelId)}, which belongs to ${owner.name}; refused`;
  ctx.diagnostics.diagnose({ code: 'PANEL_REFUSED', message, extension: ext.name, severity: 'warning' });
}

/** ExtensionHost.panelKey. */
export function panelKey(ctx: HostContext, panelId: string, key: PanelKey, text?: string): boolean {
  if (typeof key !== 'string' || key.length === 0) throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `panelKey: the key must be a non-empty string, got ${JSON.stringify(key)}`);
  const owner = ctx.panels.get(panelId);
  if (owner === undefined || owner.state !== 'ready') return false;
  // The wire type names the spec's keys; another name goes out as it is.
  const name = key as PanelKeyName;
  return owner.process.send(text === undefined ? { type: 'panel_key', panel_id: panelId, key: name } : { type: 'panel_key', panel_id: panelId, key: name, text });
}

/** ExtensionHost.closePanel: the user closed it. */
export function closePanelByUser(ctx: HostContext, panelId: string): boolean {
  const owner = ctx.panels.get(panelId);
  if (owner === undefined) return false;
  ctx.panels.delete(panelId);
  ctx.closedPanels.closed(panelId, owner);
  return owner.process.send({ type: 'panel_close', panel_id: panelId });
}

export function openPanels(ctx: HostContext): { panelId: string; extension: string }[] {
  return [...ctx.panels].map(([panelId, ext]) => ({ panelId, extension: ext.name }));
}

/** `ext` exited: its panels close, `by: 'exit'`. */
export function closePanelsOf(ctx: HostContext, ext: LoadedExtension): void {
  for (const [panelId, owner] of ctx.panels) {
    if (owner !== ext) continue;
    ctx.panels.delete(panelId);
    ctx.out.call('closePanel', { panelId, extension: ext.name, by: 'exit' });
  }
}

/** Every extension stops (stop, reload): every panel closes, `by: 'exit'`. */
export function closeAllPanels(ctx: HostContext): void {
  for (const [panelId, owner] of ctx.panels) ctx.out.call('closePanel', { panelId, extension: owner.name, by: 'exit' });
  ctx.panels.clear();
  ctx.closedPanels.clear();
}
