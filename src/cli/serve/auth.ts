// The bearer token `--token-env` names, checked in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * True when the request carries `Authorization: Bearer <token>` exactly. Both sides are hashed
 * first, so the comparison takes the same time whatever the length or content of a wrong value.
 */
export function hasBearer(request: IncomingMessage, token: string): boolean {
  return tokenMatches(request.headers.authorization ?? '', `Bearer ${token}`);
}

/** True when `given` is `token`, compared in constant time (both hashed first: any length, any content). */
export function tokenMatches(given: string, token: string): boolean {
  return timingSafeEqual(digest(given), digest(token));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
