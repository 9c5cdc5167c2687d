import type { HostCallbacks, HostEvents } from './types.js';

/**
 * The host event each callback is also emitted as (same argument), so that a second observer needs
 * no wrapper around the callbacks. `toolsChanged` and `warning` are emitted by their own code paths
 * as 'tools:changed' and 'warning'.
 */
export const CALLBACK_EVENTS = {
  prompt: 'prompt',
  submit: 'submit',
  insert: 'insert',
  display: 'display',
  notify: 'notify',
  clearNotes: 'notes:clear',
  openPanel: 'panel:open',
  renderPanel: 'panel:render',
  closePanel: 'panel:close',
} as const satisfies { [K in keyof HostCallbacks]?: keyof HostEvents };

// Each event carries exactly its callback's argument.
type CallbackArg<K extends keyof HostCallbacks> = Parameters<NonNullable<HostCallbacks[K]>>[0];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const argsMatch: { [K in keyof typeof CALLBACK_EVENTS]: Same<HostEvents[(typeof CALLBACK_EVENTS)[K]], [CallbackArg<K>]> } = {
  prompt: true,
  submit: true,
  insert: true,
  display: true,
  notify: true,
  clearNotes: true,
  openPanel: true,
  renderPanel: true,
  closePanel: true,
};
void argsMatch;
