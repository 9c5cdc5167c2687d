import { ErrorCode, ExtensionHostError } from '../errors.js';
import { encodeFrame } from '../protocol/encode.js';
import { eventProblem } from '../protocol/event-check.js';
import { jsonProblem } from '../protocol/json-check.js';
import type { HostContext } from './context.js';

const TYPE_EVENT = { type: 'event' } as const;

/**
 * ExtensionHost.emit(event): the event frame, checked once and encoded once, to every ready
 * extension that subscribed to it, in load order, without waiting. Returns how many it was sent to.
 */
export function sendEvent(ctx: HostContext, event: object): number {
  const frame: Record<string, unknown> = Object.assign({ type: 'event' }, event, TYPE_EVENT);
  const problem = eventProblem(frame);
  if (problem !== undefined) throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `emit: invalid event (${problem})`);
  const name = frame.event as string;
  let line: string | undefined;
  let sent = 0;
  for (const ext of ctx.loaded) {
    if (ext.state !== 'ready' || !ext.events.has(name)) continue;
    if (line === undefined) {
      try {
        line = encodeFrame(frame);
      } catch (err) {
        throw new ExtensionHostError(ErrorCode.INVALID_ARGUMENT, `emit: the event cannot be sent as JSON: it ${jsonProblem(frame) ?? (err as Error).message}`, { cause: err });
      }
    }
    if (ext.process.sendLine(line)) sent++;
  }
  return sent;
}
