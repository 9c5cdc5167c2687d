/**
 * Zod-free check of a lifecycle event the host sends (`emit()`), accepting exactly what the
 * `EventFrame` schema in frames.ts accepts (a test holds the two together): known events need
 * their fields with the right types (extra fields are sent along), other names pass as custom
 * events. No zod here: emit() must work, and stay cheap, without loading it.
 */
import { type EventName, KNOWN_EVENTS } from './names.js';

type Field = 'string' | 'number' | 'record';

const FIELDS: Record<EventName, Record<string, Field>> = {
  session_start: {},
  turn_start: { step: 'number' },
  turn_end: { stop: 'string' },
  tool_call: { tool_id: 'string', tool_name: 'string', tool_args: 'record' },
  tool_confirmation_requested: { tool_id: 'string', tool_name: 'string', tool_preview: 'string' },
  assistant_message: { text: 'string' },
};

/** A JSON object as zod's `z.record(z.string(), …)` sees one: a plain object without enumerable symbol keys. */
function isRecord(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const ctor: unknown = (value as { constructor?: unknown }).constructor;
  if (typeof ctor === 'function') {
    const proto: unknown = (ctor as { prototype?: unknown }).prototype;
    if (typeof proto !== 'object' || proto === null || Array.isArray(proto) || !Object.prototype.hasOwnProperty.call(proto, 'isPrototypeOf')) return false;
  }
  return !Object.getOwnPropertySymbols(value).some((key) => Object.prototype.propertyIsEnumerable.call(value, key));
}

const EXPECTED: Record<Field, string> = { string: 'a string', number: 'a finite number', record: 'a JSON object' };

function fits(value: unknown, field: Field): boolean {
  if (field === 'string') return typeof value === 'string';
  if (field === 'number') return typeof value === 'number' && Number.isFinite(value);
  return isRecord(value);
}

function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) : `a ${typeof value}`;
}

/** Why `event` (an `emit()` argument) is not a valid event, or `undefined` when it is. */
export function eventProblem(event: Record<string, unknown>): string | undefined {
  const name = event.event;
  if (typeof name !== 'string') return `event must be a string naming the event, got ${shown(name)}`;
  if (!KNOWN_EVENTS.has(name)) return undefined;
  const fields = FIELDS[name as EventName];
  for (const field in fields) {
    const kind = fields[field]!;
    if (!fits(event[field], kind)) return `${name} needs ${field}: ${EXPECTED[kind]}, got ${shown(event[field])}`;
  }
  return undefined;
}
