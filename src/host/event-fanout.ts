import { ErrorCode, ExtensionHostError } from '../errors.js';
import type { ExtensionProcess } from '../process/extension-process.js';
import { encodeFrame } from '../protocol/encode.js';
import { eventProblem } from '../protocol/event-check.js';
import { jsonProblem } from '../protocol/json-check.js';
import type { HostContext } from './context.js';

const TYPE_EVENT = { type: 'event' } as const;

/**
 * The processes of the ready extensions subscribed to each event, in load order: made at the first
 * emit() after a state, a subscription or the load set changed (`ctx.subscribers = undefined`), so
 * emit() checks no extension. One entry per event someone subscribed to: bounded by the subscriptions.
 */
function subscribers(ctx: HostContext): ReadonlyMap<string, readonly ExtensionProcess[]> {
  if (ctx.subscribers !== undefined) return ctx.subscribers;
  const lists = new Map<string, ExtensionProcess[]>();
  for (const ext of ctx.loaded) {
    if (ext.state !== 'ready') continue;
    for (const event of ext.events) {
      const list = lists.get(event);
      if (list === undefined) lists.set(event, [ext.process]);
      else list.push(ext.process);
    }
  }
  ctx.subscribers = lists;
  return lists;
}

/**
 * ExtensionHost.emit(event): the event frame, checked once and encoded once, to every ready
 * extension that subscribed to it, in load order, without waiting. Returns how many it was sent to.
 */
export function sendEvent(ctx: HostContext, event: object): number {
  const frame: Record<string, unknown> = Object.assign({ type: 'event' }, event, TYPE_EVENT);
  const problem = eventProblem(frame);
  if (problem !== undefined) throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `emit: invalid event (${problem})`);
  // A list is made with its first subscriber: never empty.
  const targets = subscribers(ctx).get(frame.event as string);
  if (targets === undefined) return 0;
  let line: string;
  try {
    line = encodeFrame(frame);
  } catch (err) {
    throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `emit: the event cannot be sent as JSON: it ${jsonProblem(frame) ?? (err as Error).message}`, { cause: err });
  }
  let sent = 0;
  // One string for all: each connection queues the same line.
  for (let i = 0; i < targets.length; i++) if (targets[i]!.sendLine(line)) sent++;
  return sent;
}
