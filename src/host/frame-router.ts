import type { ExtensionFrame } from '../protocol/frames.js';
import { NOTIFY_LEVELS, type NotifyLevel } from '../protocol/names.js';
import type { HostContext } from './context.js';
import { becomeReady } from './extension-state.js';
import type { LoadedExtension } from './loaded-extension.js';
import { closePanelFrame, renderPanelFrame } from './panels.js';
import { registerCommand, registerTool, subscribe } from './registrations.js';

const KNOWN_LEVELS: ReadonlySet<string> = new Set(NOTIFY_LEVELS);

/** The handler of an extension's 'frame' events: every frame that is not a response or hello. */
export function routeFrame(ctx: HostContext, ext: LoadedExtension, frame: ExtensionFrame): void {
  // Guard by identity: a stale process (after reload) can never touch the new state.
  if (ctx.byName.get(ext.name) !== ext || ext.state === 'stopped') return;
  if (ext.state === 'starting') ext.lastFrameAt = performance.now();
  switch (frame.type) {
    case 'register_command':
      return registerCommand(ctx, ext, frame.name, frame.description ?? '');
    case 'register_tool':
      return registerTool(ctx, ext, frame.name, frame.description ?? '', frame.schema ?? { type: 'object' }, frame.deferred ?? false);
    case 'subscribe':
      return subscribe(ctx, ext, frame.events ?? [], frame.intercept ?? []);
    case 'ready':
      return becomeReady(ctx, ext, 'ready');
    case 'notify': {
      let level = frame.level ?? 'info';
      if (!KNOWN_LEVELS.has(level)) {
        ctx.diagnostics.diagnose({ code: 'UNKNOWN_LEVEL', message: `${ext.name}: notify level ${JSON.stringify(level)} is not one of ${NOTIFY_LEVELS.join(', ')}; shown as info`, extension: ext.name, severity: 'warning' });
        level = 'info';
      }
      ctx.out.call('notify', { extension: ext.name, level: level as NotifyLevel, message: frame.message });
      return;
    }
    case 'clear_notes':
      ctx.out.call('clearNotes', { extension: ext.name });
      return;
    case 'submit':
      if (frame.text.trim().length === 0) return;
      ctx.out.call('submit', { extension: ext.name, text: frame.text });
      return;
    case 'panel_render':
      return renderPanelFrame(ctx, ext, frame);
    case 'panel_close':
      return closePanelFrame(ctx, ext, frame.panel_id);
    case 'shutdown_ack':
      return;
    default:
      // hello and responses never get here (the process layer handles them).
      return;
  }
}
