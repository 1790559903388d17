import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * Whether a client offered the expected token. Both sides are hashed to 32 bytes first,
 * so the comparison cannot throw on a different byte length (a non-ASCII token of the
 * same string length) and its time says nothing about the token's length or content.
 */
export function sameToken(offered: unknown, expected: string): boolean {
  return typeof offered === 'string' && timingSafeEqual(digest(offered), digest(expected));
}
