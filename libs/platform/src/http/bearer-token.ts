import { createHash, timingSafeEqual } from 'node:crypto';
import type { Secret } from '@paygate/config';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** True when `given` is `expected`, compared in constant time (digests, so lengths leak nothing). */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** Whether an `authorization` header value is `Bearer <token>` with this token. */
export function bearerTokenMatches(authorization: unknown, token: Secret): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(typeof authorization === 'string' ? authorization : '');
  return match !== null && sameSecret(match[1].trim(), token.reveal());
}
