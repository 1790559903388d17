import { z } from 'zod';

/** One browser origin, `scheme://host[:port]`, normalized the way browsers send it. */
export const Origin = z
  .string()
  .trim()
  .transform((s) => s.toLowerCase().replace(/\/$/, ''))
  .refine((s) => URL.canParse(s) && new URL(s).origin === s, {
    message: 'an origin is scheme://host[:port], without a path',
  });

/** `BATON_ALLOWED_ORIGINS`: a comma-separated list of origins. */
export const OriginList = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  )
  .pipe(z.array(Origin));

const loopback = ['127.0.0.1', 'localhost', '[::1]'];
const urlHost = (host: string): string => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);

/**
 * The origins a browser may open a connection from: Baton's own (the host and port it
 * listens on, with the loopback spellings of it when it listens on loopback or on every
 * interface) and the configured ones. Anything else a browser sends (another site, `null`)
 * is refused. A request without an Origin header is not from a browser page (the CLI, a
 * Node client) and is let through to the token check.
 */
export function originPolicy(
  configured: readonly string[],
  listening: { host: string; port: number },
): (origin: string | undefined) => boolean {
  const host = urlHost(listening.host.toLowerCase());
  const hosts = [host, ...(loopback.includes(host) || host === '0.0.0.0' || host === '[::]' ? loopback : [])];
  const allowed = new Set([...hosts.map((h) => `http://${h}:${listening.port}`), ...configured]);
  return (origin) => origin === undefined || allowed.has(origin.toLowerCase());
}
