import { z } from 'zod';

const tokenKey = 'baton.token';

/** A token as Baton takes it: any non-empty string without whitespace or controls, of a sane length. */
export const Token = z
  .string()
  .trim()
  .min(1)
  .max(4096)
  .regex(/^[^\s\u0000-\u001f]+$/);

/**
 * Login by URL: `npm start` prints `http://HOST:PORT/#token=...`. The fragment never
 * reaches a server; the page takes the token from it into sessionStorage (this tab only)
 * and rewrites the address bar without it, so it is not left in history or a bookmark.
 */
export function takeTokenFromUrl(): void {
  const match = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (!match) return;
  let value: string;
  try {
    value = decodeURIComponent(match[1]!);
  } catch {
    value = '';
  }
  const token = Token.safeParse(value);
  if (token.success) sessionStorage.setItem(tokenKey, token.data);
  history.replaceState(null, '', `${location.pathname}${location.search}#/threads`);
}

export function storedToken(): string | null {
  const token = Token.safeParse(sessionStorage.getItem(tokenKey));
  return token.success ? token.data : null;
}

export function storeToken(token: string): void {
  sessionStorage.setItem(tokenKey, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(tokenKey);
}
