// The frames between the host and its extensions outside of requests: each frame an extension sends
// routed to the part that owns it (after the permission check, within the rate limits), and the
// lifecycle events emit() sends to the extensions subscribed to them.
import { monotonicMs } from '../clock.js';
import { ErrorCode, ExtensionHostError } from '../errors.js';
import { encodeFrame, eventProblem } from '../protocol/frame-check.js';
import type { ExtensionFrame, PanelRenderFrame, UnregisterToolFrame } from '../protocol/frames.js';
import { jsonProblem } from '../protocol/json-check.js';
import { NOTIFY_LEVELS, type NotifyLevel } from '../protocol/names.js';
import type { HostContext, LoadedExtension } from './context.js';
import { callToolRequest, cancelCallTool } from './call-tool.js';
import { becomeReady } from './lifecycle.js';
import { closePanelFrame, openPanel, renderPanelFrame } from './panels.js';
import { registerCommand, registerToolFrame, subscribe, unregisterTool } from './registrations.js';
import { permits, permittedNames } from './security.js';
import type { RateLimits } from './types.js';

const KNOWN_LEVELS: ReadonlySet<string> = new Set(NOTIFY_LEVELS);

/** The handler of an extension's 'frame' events: every frame that is not a response or hello. */
export function routeFrame(ctx: HostContext, ext: LoadedExtension, frame: ExtensionFrame | UnregisterToolFrame): void {
  // Guard by identity: a stale process (after reload) can never touch the new state.
  if (ctx.byName.get(ext.name) !== ext || ext.state === 'stopped') return;
  if (ext.state === 'starting') ext.lastFrameAt = monotonicMs();
  switch (frame.type) {
    case 'register_command':
      if (!permits(ctx, ext, 'commands')) return;
      return registerCommand(ctx, ext, frame.name, frame.description ?? '');
    case 'register_tool':
      if (!permits(ctx, ext, 'tools')) return;
      return registerToolFrame(ctx, ext, frame);
    case 'subscribe':
      return subscribe(ctx, ext, permittedNames(ctx, ext, 'events', frame.events ?? []), permittedNames(ctx, ext, 'intercept', frame.intercept ?? []));
    case 'ready':
      return becomeReady(ctx, ext, 'ready');
    case 'notify': {
      if (!permits(ctx, ext, 'notes') || !withinRate(ctx, ext, 'notify')) return;
      const level = frame.level ?? 'info';
      if (KNOWN_LEVELS.has(level)) {
        ctx.out.call('notify', { extension: ext.name, level: level as NotifyLevel, message: frame.message });
        return;
      }
      // zot passes any level through: the raw one goes along (`rawLevel`), typed callbacks see info.
      ctx.diagnostics.diagnose({ code: 'UNKNOWN_LEVEL', message: `${ext.name}: notify level ${JSON.stringify(level)} is not one of ${NOTIFY_LEVELS.join(', ')}; shown as info`, extension: ext.name, severity: 'warning' });
      ctx.out.call('notify', { extension: ext.name, level: 'info', rawLevel: level, message: frame.message });
      return;
    }
    case 'clear_notes':
      if (!permits(ctx, ext, 'notes') || !withinRate(ctx, ext, 'clearNotes')) return;
      ctx.out.call('clearNotes', { extension: ext.name });
      return;
    case 'submit':
      if (frame.text.trim().length === 0 || !permits(ctx, ext, 'submit') || !withinRate(ctx, ext, 'submit')) return;
      ctx.out.call('submit', { extension: ext.name, text: frame.text });
      return;
    case 'panel_render':
      if (!permits(ctx, ext, 'panels')) return;
      return renderWithinRate(ctx, ext, frame);
    case 'panel_close':
      if (!permits(ctx, ext, 'panels')) return;
      // A render held back for the window's end must not outlive the panel.
      ext.rates?.panelRender?.drop(frame.panel_id);
      return closePanelFrame(ctx, ext, frame.panel_id);
    case 'open_panel':
      // zot's spontaneous panel (also during a tool call or command): the command action's path.
      if (!permits(ctx, ext, 'panels') || !withinRate(ctx, ext, 'openPanel')) return;
      openPanel(ctx, ext, frame.panel);
      return;
    case 'submit_slash':
      return submitSlash(ctx, ext, frame.text);
    case 'call_tool':
      return callToolRequest(ctx, ext, frame);
    case 'call_tool_cancel':
      return cancelCallTool(ext, frame.id);
    case 'unregister_tool':
      if (!permits(ctx, ext, 'tools')) return;
      return unregisterTool(ctx, ext, frame.name);
    case 'shutdown_ack':
      return;
    default:
      // hello and responses never get here (the process layer handles them).
      return;
  }
}

/**
 * zot's `submit_slash` (docs/protocol.md "zot versions"): a slash command to run as if typed, handed
 * to the `submitSlash` callback (ignored without one), under the `submit` scope and rate limit; text
 * that does not start with "/" is refused, as zot does. Logged either way.
 */
function submitSlash(ctx: HostContext, ext: LoadedExtension, raw: string): void {
  const text = raw.trim();
  if (!text.startsWith('/')) {
    ctx.diagnostics.diagnose({ code: 'SUBMIT_SLASH_REFUSED', message: `${ext.name}: submit_slash text must start with "/": ${JSON.stringify(text.slice(0, 80))} ignored`, extension: ext.name, severity: 'warning' });
    return;
  }
  if (!permits(ctx, ext, 'submit') || !withinRate(ctx, ext, 'submit')) return;
  ext.process.logLine(`submit_slash ${JSON.stringify(text.slice(0, 200))}${ctx.options.callbacks?.submitSlash === undefined ? ' ignored (no submitSlash callback)' : ''}`);
  ctx.out.call('submitSlash', { extension: ext.name, text });
}

// ---------------------------------------------------------------------------------------------
// The per-extension bound of `submit`, `notify` and spontaneous `open_panel` frames (rateLimits): a
// flood costs a count and one diagnostic per window, not a callback per frame; other extensions'
// frames are untouched.
// ---------------------------------------------------------------------------------------------

export const DEFAULT_RATE_LIMITS: Readonly<Required<{ [K in keyof RateLimits]: number }>> = { submit: 10, notify: 100, clearNotes: 100, panelRender: 60, openPanel: 5, windowMs: 1000 };

export type RatedFrame = 'submit' | 'notify' | 'clearNotes' | 'openPanel';

/** The wire name of each rated kind, in messages. */
const WIRE: Record<RatedFrame | 'panelRender', string> = { submit: 'submit', notify: 'notify', clearNotes: 'clear_notes', panelRender: 'panel_render', openPanel: 'open_panel' };

/**
 * One fixed window of one frame kind: the first `max` frames of a window pass, the rest are counted;
 * a window that dropped any is reported once, when it ends (or at flush(): exit, stop).
 */
export class FrameWindow {
  private start = -Infinity;
  private passed = 0;
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly report: (dropped: number) => void,
    private readonly now: () => number = monotonicMs,
  ) {}

  /** Whether this frame goes on to the callback. */
  admit(): boolean {
    const now = this.now();
    if (now - this.start >= this.windowMs) {
      this.flush();
      this.start = now;
      this.passed = 0;
    }
    if (this.passed < this.max) {
      this.passed++;
      return true;
    }
    if (this.dropped++ === 0) {
      this.timer = setTimeout(() => this.flush(), this.start + this.windowMs - now);
      this.timer.unref();
    }
    return false;
  }

  /** Reports what this window dropped so far, if anything. */
  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.dropped === 0) return;
    const dropped = this.dropped;
    this.dropped = 0;
    this.report(dropped);
  }
}

/**
 * The `panel_render` bound of one extension: the first `max` of a window pass; later ones are held,
 * the latest per panel replacing the one before, and delivered when the window ends, so the panel
 * ends up as the extension last drew it. Memory: one frame per open panel of the extension (a frame
 * for a panel it does not own passes on to be refused at once).
 */
export class RenderWindow {
  private readonly held = new Map<string, PanelRenderFrame>();
  private coalesced = 0;
  private readonly window: FrameWindow;

  constructor(
    max: number,
    windowMs: number,
    /** `held`: delivered at the window's end rather than as it came. */
    private readonly deliver: (frame: PanelRenderFrame, held: boolean) => void,
    private readonly report: (coalesced: number) => void,
  ) {
    // The window's end (its timer, or the next frame after it) delivers what was held.
    this.window = new FrameWindow(max, windowMs, () => this.flush());
  }

  /** Passes the frame on now, or holds it as its panel's latest. */
  render(frame: PanelRenderFrame, owned: boolean): void {
    if (!owned || this.window.admit()) {
      this.deliver(frame, false);
      return;
    }
    this.held.set(frame.panel_id, frame);
    this.coalesced++;
  }

  /** The panel closed: its held render goes nowhere. */
  drop(panelId: string): void {
    this.held.delete(panelId);
  }

  /** Delivers the held renders (each panel's latest) and reports how many were coalesced. */
  flush(): void {
    if (this.coalesced === 0) return;
    const frames = [...this.held.values()];
    const coalesced = this.coalesced - frames.length;
    this.held.clear();
    this.coalesced = 0;
    for (const frame of frames) this.deliver(frame, true);
    if (coalesced > 0) this.report(coalesced);
  }

  /** At the extension's end: held renders are dropped (its panels close with it); what the window coalesced is reported. */
  end(): void {
    this.held.clear();
    this.window.flush();
  }
}

/** An extension's windows, made at its first frame of each kind. */
export type FrameRates = Partial<Record<RatedFrame, FrameWindow>> & { panelRender?: RenderWindow | undefined };

/** A `panel_render` of `ext`, within its `rateLimits.panelRender` bound. */
function renderWithinRate(ctx: HostContext, ext: LoadedExtension, frame: PanelRenderFrame): void {
  const rates = (ext.rates ??= {});
  const window = (rates.panelRender ??= new RenderWindow(
    ...limitsOf(ctx, 'panelRender'),
    (frame, held) => {
      // Delivered later: only while the extension is current and still owns the panel.
      if (!held || (ctx.byName.get(ext.name) === ext && ext.state !== 'stopped' && ctx.panels.get(frame.panel_id)?.includes(ext) === true)) renderPanelFrame(ctx, ext, frame);
    },
    (coalesced) => rateLimited(ctx, ext, 'panelRender', `${coalesced.toLocaleString('en-US')} panel_render frames coalesced (only the latest of each panel was shown)`),
  ));
  window.render(frame, ctx.panels.get(frame.panel_id)?.includes(ext) === true);
}

function limitsOf(ctx: HostContext, kind: RatedFrame | 'panelRender'): [max: number, windowMs: number] {
  const limits = ctx.options.rateLimits;
  return [limits?.[kind] ?? DEFAULT_RATE_LIMITS[kind], limits?.windowMs ?? DEFAULT_RATE_LIMITS.windowMs];
}

function rateLimited(ctx: HostContext, ext: LoadedExtension, kind: RatedFrame | 'panelRender', what: string): void {
  const [max, windowMs] = limitsOf(ctx, kind);
  ctx.diagnostics.diagnose({
    code: 'RATE_LIMITED',
    message: `${ext.name}: ${what}: more than ${max} within ${windowMs} ms (rateLimits.${kind}); see ${ext.logPath}`,
    extension: ext.name,
    severity: 'warning',
  });
}

/** Whether `ext`'s `kind` frame may reach the callback now (within rateLimits). */
function withinRate(ctx: HostContext, ext: LoadedExtension, kind: RatedFrame): boolean {
  const rates = (ext.rates ??= {});
  return (rates[kind] ??= frameWindow(ctx, ext, kind)).admit();
}

function frameWindow(ctx: HostContext, ext: LoadedExtension, kind: RatedFrame): FrameWindow {
  return new FrameWindow(...limitsOf(ctx, kind), (dropped) => rateLimited(ctx, ext, kind, `${dropped.toLocaleString('en-US')} ${WIRE[kind]} frames dropped`));
}

// ---------------------------------------------------------------------------------------------
// Events out
// ---------------------------------------------------------------------------------------------

const TYPE_EVENT = { type: 'event' } as const;

/**
 * ExtensionHost.emit(event): the event frame, checked once, to every ready extension that subscribed
 * to it, in load order, without waiting. Returns how many it was sent to. Every event that passes the
 * check takes the next `sequence`. A snapshot-era extension (negotiation.ts `isSnapshotEra`) gets
 * the event exactly as given; one that declared a capability gets zot's fields too (`session_id`,
 * `cwd`, `sequence`, each unless the event has it). At most two encodings, one per kind.
 */
export function sendEvent(ctx: HostContext, event: object): number {
  let frame: Record<string, unknown>;
  try {
    frame = Object.assign({ type: 'event' }, event, TYPE_EVENT);
  } catch (err) {
    throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, 'emit: the event could not be read (a getter or a Proxy trap threw)', { cause: err });
  }
  const problem = eventProblem(frame);
  if (problem !== undefined) throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `emit: invalid event (${problem})`);
  const sequence = ++ctx.events.sequence;
  const targets = ctx.loaded.filter((ext) => ext.state === 'ready' && ext.events.has(frame.event as string));
  if (targets.length === 0) return 0;
  let snapshot: string | undefined;
  let zot: string | undefined;
  let sent = 0;
  // One string per kind: each connection queues the same line.
  for (const ext of targets) {
    const line = ext.process.snapshotEra ? (snapshot ??= encodeEvent(frame)) : (zot ??= encodeEvent(withZotFields(ctx, frame, sequence)));
    if (ext.process.sendLine(line)) sent++;
  }
  return sent;
}

/** `frame` with zot's fields after `event`, as zot orders them; the event's own values win. */
function withZotFields(ctx: HostContext, frame: Record<string, unknown>, sequence: number): Record<string, unknown> {
  const { type, event, ...fields } = frame;
  return {
    type,
    event,
    // Made at first use with Web Crypto: node:crypto at import costs every embedder (test/import-cost.test.ts).
    session_id: frame.session_id ?? (ctx.events.sessionId ??= globalThis.crypto.randomUUID()),
    cwd: frame.cwd ?? ctx.cwd,
    sequence: frame.sequence ?? sequence,
    ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
  };
}

function encodeEvent(frame: Record<string, unknown>): string {
  try {
    return encodeFrame(frame);
  } catch (err) {
    throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `emit: the event cannot be sent as JSON: it ${jsonProblem(frame) ?? (err as Error).message}`, { cause: err });
  }
}
