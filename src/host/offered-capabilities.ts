// Which protocol extensions the host offers one extension in its handshake (process/negotiation.ts).
import { HOST_CAPABILITIES, TRACING_CAPABILITIES } from '../process/negotiation.js';
import type { ProtocolCapability } from '../protocol/names.js';
import type { InMemoryExtension } from './types.js';

/** Set by the test kit (`createTestHost({ capabilities })`): what an in-process extension is offered. Internal. */
const memoryOffers = new WeakMap<InMemoryExtension, readonly ProtocolCapability[]>();

/** Internal (the test kit's): offer exactly `capabilities` to `ext` (those the host supports). */
export function offerToInMemory(ext: InMemoryExtension, capabilities: readonly ProtocolCapability[]): void {
  memoryOffers.set(ext, capabilities);
}

/** The capabilities offered: `trace` only with tracing on (or when the test kit offers it). */
export function offeredCapabilities(tracing: boolean, memory: InMemoryExtension | undefined): readonly ProtocolCapability[] {
  const offer = memory === undefined ? undefined : memoryOffers.get(memory);
  if (offer !== undefined) return TRACING_CAPABILITIES.filter((c) => offer.includes(c));
  return tracing ? TRACING_CAPABILITIES : HOST_CAPABILITIES;
}
