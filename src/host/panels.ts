// Panels: a panel is the pair (extension, panel id), so no extension can squat or drive another's.
// `ctx.panels` maps an id to the extensions that have it open; closed panels are remembered so that
// the late frames of an extension for its own closed panel are dropped quietly.
import { ErrorCode, ExtensionHostError } from '../errors.js';
import type { CommandResponseFrame, PanelKeyName, PanelRenderFrame } from '../protocol/frames.js';
import type { HostContext, LoadedExtension } from './context.js';
import { describeValue } from './options.js';
import type { PanelCallOptions, PanelKey, PanelView } from './types.js';

type PanelSpec = NonNullable<CommandResponseFrame['open_panel']>;

/** A command answered open_panel: the panel, or why it was refused. */
export function openPanel(ctx: HostContext, ext: LoadedExtension, spec: PanelSpec): PanelView | ExtensionHostError {
  const panel: PanelView = { extension: ext.name, panelId: spec.id, title: spec.title, lines: spec.lines ?? [], footer: spec.footer };
  const owners = ctx.panels.get(spec.id);
  if (owners === undefined) ctx.panels.set(spec.id, [ext]);
  else if (!owners.includes(ext)) owners.push(ext);
  ctx.closedPanels.opened(spec.id, ext);
  for (const call of ext.interactive) call.opened(spec.id);
  ctx.out.call('openPanel', panel);
  return panel;
}

/** A panel_render frame; an extension renders only its own open panels. */
export function renderPanelFrame(ctx: HostContext, ext: LoadedExtension, frame: PanelRenderFrame): void {
  if (!ownsPanel(ctx, ext, frame.panel_id, 'panel_render')) return;
  ctx.out.call('renderPanel', { extension: ext.name, panelId: frame.panel_id, title: frame.title, lines: frame.lines ?? [], footer: frame.footer });
}

/** A panel_close frame; an extension closes only its own open panels. */
export function closePanelFrame(ctx: HostContext, ext: LoadedExtension, panelId: string): void {
  if (!ownsPanel(ctx, ext, panelId, 'panel_close')) return;
  removeOwner(ctx, panelId, ext);
  ctx.closedPanels.closed(panelId, ext);
  ctx.out.call('closePanel', { extension: ext.name, panelId, by: 'extension' });
}

function ownsPanel(ctx: HostContext, ext: LoadedExtension, panelId: string, what: string): boolean {
  const owners = ctx.panels.get(panelId) ?? [];
  if (owners.includes(ext)) return true;
  if (latePanelFrame(ctx, ext, panelId, what)) return false;
  refusePanel(ctx, ext, panelId, owners, what);
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

function refusePanel(ctx: HostContext, ext: LoadedExtension, panelId: string, others: readonly LoadedExtension[], what: string): void {
  const id = JSON.stringify(panelId);
  const message = others.length === 0 ? `${ext.name}: ${what} for panel ${id}, which is not open; refused` : `${ext.name}: ${what} for panel ${id}, which belongs to ${names(others)}; refused`;
  ctx.diagnostics.diagnose({ code: 'PANEL_REFUSED', message, extension: ext.name, severity: 'warning' });
}

/** The extension whose panel `panelId` a call of the embedder means; throws when that is ambiguous. */
function target(ctx: HostContext, call: string, panelId: string, options: PanelCallOptions | undefined): LoadedExtension | undefined {
  let extension: unknown;
  try {
    extension = options?.extension;
  } catch (err) {
    throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `${call}: options could not be read`, { cause: err });
  }
  if (extension !== undefined && typeof extension !== 'string') throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `${call}: options.extension must be a string, got ${describeValue(extension)}`);
  const owners = ctx.panels.get(panelId);
  if (owners === undefined) return undefined;
  if (extension !== undefined) return owners.find((ext) => ext.name === extension);
  if (owners.length > 1) throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `${call}: panel ${JSON.stringify(panelId)} is open in several extensions (${names(owners)}); pass { extension } to say whose`);
  return owners[0];
}

/** ExtensionHost.panelKey. */
export function panelKey(ctx: HostContext, panelId: string, key: PanelKey, text?: string, options?: PanelCallOptions): boolean {
  if (typeof key !== 'string' || key.length === 0) throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `panelKey: the key must be a non-empty string, got ${describeValue(key)}`);
  if (text !== undefined && typeof text !== 'string') throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `panelKey: text must be a string, got ${describeValue(text)}`);
  const owner = target(ctx, 'panelKey', panelId, options);
  if (owner === undefined || owner.state !== 'ready') return false;
  // The wire type names the spec's keys; another name goes out as it is.
  const name = key as PanelKeyName;
  return owner.process.send(text === undefined ? { type: 'panel_key', panel_id: panelId, key: name } : { type: 'panel_key', panel_id: panelId, key: name, text });
}

/** ExtensionHost.closePanel: the user closed it. */
export function closePanelByUser(ctx: HostContext, panelId: string, options?: PanelCallOptions): boolean {
  const owner = target(ctx, 'closePanel', panelId, options);
  if (owner === undefined) return false;
  removeOwner(ctx, panelId, owner);
  ctx.closedPanels.closed(panelId, owner);
  const sent = owner.process.send({ type: 'panel_close', panel_id: panelId });
  for (const call of owner.interactive) call.closedByUser(panelId, (id) => ctx.panels.get(id)?.includes(owner) === true, ctx.timeouts.interactiveGrace);
  return sent;
}

export function openPanels(ctx: HostContext): { panelId: string; extension: string }[] {
  const open: { panelId: string; extension: string }[] = [];
  for (const [panelId, owners] of ctx.panels) for (const ext of owners) open.push({ panelId, extension: ext.name });
  return open;
}

/** `ext` exited: its panels close, `by: 'exit'`; other extensions' panels of the same ids stay. */
export function closePanelsOf(ctx: HostContext, ext: LoadedExtension): void {
  for (const [panelId, owners] of ctx.panels) {
    if (!owners.includes(ext)) continue;
    removeOwner(ctx, panelId, ext);
    ctx.out.call('closePanel', { panelId, extension: ext.name, by: 'exit' });
  }
}

/** Every extension stops (stop, reload): every panel closes, `by: 'exit'`. */
export function closeAllPanels(ctx: HostContext): void {
  for (const [panelId, owners] of ctx.panels) for (const owner of owners) ctx.out.call('closePanel', { panelId, extension: owner.name, by: 'exit' });
  ctx.panels.clear();
  ctx.closedPanels.clear();
}

function removeOwner(ctx: HostContext, panelId: string, ext: LoadedExtension): void {
  const owners = ctx.panels.get(panelId);
  if (owners === undefined) return;
  const rest = owners.filter((o) => o !== ext);
  if (rest.length === 0) ctx.panels.delete(panelId);
  else ctx.panels.set(panelId, rest);
}

const names = (exts: readonly LoadedExtension[]): string => exts.map((e) => e.name).join(', ');

// ---------------------------------------------------------------------------------------------
// Interactive tool calls (zot's register_tool.interactive): no default deadline while the user
// decides. The panels the extension opens while such a call runs belong to that call; when the user
// closes the last of them and the extension does not answer within the grace, the call fails.
// ---------------------------------------------------------------------------------------------

/** One interactive tool call in flight (calls.ts), in its extension's `interactive` set. */
export class InteractiveCall {
  /** Aborts the request at the end of the grace (its reason: `failure`). */
  readonly controller = new AbortController();
  private readonly panels = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  /** Set when the grace ran out. */
  failure: ExtensionHostError | undefined;

  constructor(
    private readonly tool: string,
    private readonly ext: LoadedExtension,
  ) {}

  /** Its extension opened (or opened again) `panelId`: the call waits for the user again. */
  opened(panelId: string): void {
    this.panels.add(panelId);
    this.disarm();
  }

  /** The user closed `panelId`; with none of the call's panels open (`isOpen`), the grace starts. */
  closedByUser(panelId: string, isOpen: (panelId: string) => boolean, graceMs: number): void {
    if (!this.panels.has(panelId) || this.timer !== undefined) return;
    for (const id of this.panels) if (isOpen(id)) return;
    const { ext } = this;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.failure = new ExtensionHostError(ErrorCode.ABORTED, `tool ${this.tool}: the user closed panel ${JSON.stringify(panelId)} and ${ext.name} did not answer within ${graceMs} ms (timeouts.interactiveGrace)`, { extension: ext.name, logPath: ext.logPath });
      this.controller.abort(this.failure);
    }, graceMs);
    this.timer.unref();
  }

  /** The call settled. */
  end(): void {
    this.disarm();
    this.ext.interactive.delete(this);
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// zot's examples keep rendering a panel for a moment after it closed (the user pressed Esc while an
// update was on its way). Those frames are dropped quietly; this remembers the latest closed panels,
// each the pair (owner, panel id), so that a frame for a panel the sender never had is still refused.
// ---------------------------------------------------------------------------------------------

/** How many closed panels are remembered; the oldest is forgotten first. */
export const CLOSED_PANELS_LIMIT = 256;

interface Closed<Owner> {
  owner: Owner;
  late: number;
}

export class ClosedPanels<Owner> {
  // By panel id, in order of the latest close; each id's owners are few (one per extension).
  private readonly byId = new Map<string, Closed<Owner>[]>();
  private count = 0;

  constructor(private readonly limit = CLOSED_PANELS_LIMIT) {}

  get size(): number {
    return this.count;
  }

  closed(panelId: string, owner: Owner): void {
    const entries = this.forget(panelId, owner) ?? [];
    entries.push({ owner, late: 0 });
    this.count++;
    this.byId.delete(panelId);
    this.byId.set(panelId, entries);
    while (this.count > this.limit) {
      const [oldestId, oldest] = this.byId.entries().next().value!;
      oldest.shift();
      this.count--;
      if (oldest.length === 0) this.byId.delete(oldestId);
    }
  }

  /** `owner` opened `panelId` again (without `owner`: every owner of that id is forgotten). */
  opened(panelId: string, owner?: Owner): void {
    if (owner !== undefined) {
      this.forget(panelId, owner);
      return;
    }
    this.count -= this.byId.get(panelId)?.length ?? 0;
    this.byId.delete(panelId);
  }

  /**
   * A frame from `from` for the closed panel `panelId`: when `from` owned it, how many such frames
   * came since it closed (this one included); `undefined` when the panel was not `from`'s.
   */
  late(panelId: string, from: Owner): number | undefined {
    const entry = this.byId.get(panelId)?.find((e) => e.owner === from);
    return entry === undefined ? undefined : ++entry.late;
  }

  clear(): void {
    this.byId.clear();
    this.count = 0;
  }

  /** Drops (owner, panelId); returns the id's remaining entries (still in the map), if any. */
  private forget(panelId: string, owner: Owner): Closed<Owner>[] | undefined {
    const entries = this.byId.get(panelId);
    if (entries === undefined) return undefined;
    const i = entries.findIndex((e) => e.owner === owner);
    if (i !== -1) {
      entries.splice(i, 1);
      this.count--;
    }
    if (entries.length === 0) this.byId.delete(panelId);
    return entries;
  }
}
