// The bearer token `--token-env` names, checked in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * True when the request carries `Authorization: Bearer <token>` exactly. Both sides are hashed
 * first, so the comparison takes the same time whatever the length or content of a wrong value.
 */
export function hasBearer(request: IncomingMessage, token: string): boolean {
  const given = request.headers.authorization ?? '';
  return timingSafeEqual(digest(given), digest(`Bearer ${token}`));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
