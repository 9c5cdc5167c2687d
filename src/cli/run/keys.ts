import type { PanelKey } from '../../host/types.js';

/** What readline's keypress event reports. */
export interface Keypress {
  name?: string | undefined;
  ctrl?: boolean | undefined;
  meta?: boolean | undefined;
  sequence?: string | undefined;
}

export type PanelInput = { key: PanelKey; text?: string | undefined } | { close: true };

const NAMED: Readonly<Record<string, PanelKey>> = {
  up: 'up',
  down: 'down',
  left: 'left',
  right: 'right',
  return: 'enter',
  enter: 'enter',
  tab: 'tab',
  pageup: 'pageup',
  pagedown: 'pagedown',
  home: 'home',
  end: 'end',
  backspace: 'backspace',
  delete: 'delete',
};

/**
 * A terminal key as the focused panel gets it: named keys by their spec name, printable characters
 * as `rune`. Esc and Ctrl+C close the panel (the user closing it: zot does this on both and never
 * forwards Esc as a `panel_key`). Anything else: undefined.
 */
export function toPanelInput(str: string | undefined, key: Keypress | undefined): PanelInput | undefined {
  if (key?.ctrl === true && key.name === 'c') return { close: true };
  if (key?.ctrl === true) return undefined;
  // A lone ESC is reported with meta set.
  if (key?.name === 'escape') return { close: true };
  if (key?.meta === true) return undefined;
  const named = key?.name === undefined ? undefined : NAMED[key.name];
  if (named !== undefined) return { key: named };
  if (str !== undefined && [...str].length === 1 && str.codePointAt(0)! >= 0x20 && str !== '\x7f') return { key: 'rune', text: str };
  return undefined;
}
