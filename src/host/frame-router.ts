import type { ExtensionFrame } from '../protocol/frames.js';
import { NOTIFY_LEVELS, type NotifyLevel } from '../protocol/names.js';
import type { HostContext } from './context.js';
import { becomeReady } from './extension-state.js';
import { withinRate } from './frame-rates.js';
import type { LoadedExtension } from './loaded-extension.js';
import { closePanelFrame, renderPanelFrame } from './panels.js';
import { permits, permittedNames } from './permission-check.js';
import { registerCommand, registerTool, subscribe } from './registrations.js';
import { monotonicMs } from '../clock.js';

const KNOWN_LEVELS: ReadonlySet<string> = new Set(NOTIFY_LEVELS);

/** The handler of an extension's 'frame' events: every frame that is not a response or hello. */
export function routeFrame(ctx: HostContext, ext: LoadedExtension, frame: ExtensionFrame): void {
  // Guard by identity: a stale process (after reload) can never touch the new state.
  if (ctx.byName.get(ext.name) !== ext || ext.state === 'stopped') return;
  if (ext.state === 'starting') ext.lastFrameAt = monotonicMs();
  switch (frame.type) {
    case 'register_command':
      if (!permits(ctx, ext, 'commands')) return;
      return registerCommand(ctx, ext, frame.name, frame.description ?? '');
    case 'register_tool':
      if (!permits(ctx, ext, 'tools')) return;
      return registerTool(ctx, ext, frame.name, frame.description ?? '', frame.schema ?? { type: 'object' }, frame.deferred ?? false);
    case 'subscribe':
      return subscribe(ctx, ext, permittedNames(ctx, ext, 'events', frame.events ?? []), permittedNames(ctx, ext, 'intercept', frame.intercept ?? []));
    case 'ready':
      return becomeReady(ctx, ext, 'ready');
    case 'notify': {
      if (!permits(ctx, ext, 'notes') || !withinRate(ctx, ext, 'notify')) return;
      let level = frame.level ?? 'info';
      if (!KNOWN_LEVELS.has(level)) {
        ctx.diagnostics.diagnose({ code: 'UNKNOWN_LEVEL', message: `${ext.name}: notify level ${JSON.stringify(level)} is not one of ${NOTIFY_LEVELS.join(', ')}; shown as info`, extension: ext.name, severity: 'warning' });
        level = 'info';
      }
      ctx.out.call('notify', { extension: ext.name, level: level as NotifyLevel, message: frame.message });
      return;
    }
    case 'clear_notes':
      if (!permits(ctx, ext, 'notes')) return;
      ctx.out.call('clearNotes', { extension: ext.name });
      return;
    case 'submit':
      if (frame.text.trim().length === 0 || !permits(ctx, ext, 'submit') || !withinRate(ctx, ext, 'submit')) return;
      ctx.out.call('submit', { extension: ext.name, text: frame.text });
      return;
    case 'panel_render':
      if (!permits(ctx, ext, 'panels')) return;
      return renderPanelFrame(ctx, ext, frame);
    case 'panel_close':
      if (!permits(ctx, ext, 'panels')) return;
      return closePanelFrame(ctx, ext, frame.panel_id);
    case 'shutdown_ack':
      return;
    default:
      // hello and responses never get here (the process layer handles them).
      return;
  }
}
