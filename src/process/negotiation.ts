// The protocol extensions this host speaks (docs/protocol.md, "Extensions to the zot protocol").
import type { ProtocolCapability } from '../protocol/names.js';

/** What the host grants when asked: `trace` is not implemented on the host side yet. */
export const HOST_CAPABILITIES: readonly ProtocolCapability[] = ['cancel', 'progress'];

/** The negotiated subset of `declared` (hello.capabilities), in the host's order; empty for a plain zot extension. */
export function negotiate(declared: readonly string[] | undefined): ProtocolCapability[] {
  if (declared === undefined || declared.length === 0) return [];
  return HOST_CAPABILITIES.filter((c) => declared.includes(c));
}
