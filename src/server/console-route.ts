import { createReadStream, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `npm run console:build` (run by `npm ci` through `prepare`) writes the console. */
export const consoleDist = fileURLToPath(new URL('../../console/dist', import.meta.url));

/** A page route: answers a request it serves and returns true, or returns false and leaves it alone. */
export type PageRoute = (req: IncomingMessage, res: ServerResponse) => boolean;

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

/** A Host header as a browser sends it: a name or address and a port, nothing to smuggle into a header. */
const plainHost = /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

/**
 * The page may load only what Baton serves, and talk only to Baton (its Socket.IO over
 * WebSocket on the same host and port); no inline script, no other site, no framing.
 */
export function contentSecurityPolicy(host: string | undefined): string {
  const ws = host && plainHost.test(host) ? ` ws://${host}` : '';
  return [
    "default-src 'self'",
    `connect-src 'self'${ws}`,
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The URL that opens the console logged in: the token rides in the fragment, which no browser sends to a server. */
export function consoleUrl(url: string, token: string): string {
  return `${url}/#token=${encodeURIComponent(token)}`;
}

const notBuilt = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Baton Console: not built</title></head>
<body><h1>The Baton Console is not built</h1>
<p>Baton serves the console from <code>console/dist</code>, which is missing. Build it with
<code>npm run console:build</code> (<code>npm ci</code> runs it too), then reload this page.</p>
<p>The API is unaffected: Socket.IO at <code>/socket.io/</code>, health at <code>/healthz</code>.</p></body></html>`;

/**
 * The console's static files: `/` (its index.html) and the built assets under `dist`, with
 * their content types, a strict CSP, long caching for Vite's content-hashed assets and none
 * for the page. A path that leaves `dist` (`..`, an encoded slash or NUL) is never read; a
 * console that was not built answers a 503 page naming the build command.
 */
export function consolePages(dist: string = consoleDist): PageRoute {
  const root = resolve(dist);
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const file = fileOf(root, path);
    if (!file) return false;
    const headers = {
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'content-security-policy': contentSecurityPolicy(req.headers.host),
    };
    const size = sizeOf(file);
    if (size === null) {
      if (path !== '/' && path !== '/index.html') return false;
      res.writeHead(503, { ...headers, 'content-type': types['.html']!, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : notBuilt);
      return true;
    }
    res.writeHead(200, {
      ...headers,
      'content-type': types[extname(file)] ?? 'application/octet-stream',
      'content-length': String(size),
      // Vite names every built asset by its content hash: a new build is a new name.
      'cache-control': path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    if (req.method === 'HEAD') res.end();
    else
      createReadStream(file)
        .on('error', () => res.destroy())
        .pipe(res);
    return true;
  };
}

/** The file under `root` a URL path names, or null for one that is not a plain path inside it. */
function fileOf(root: string, path: string): string | null {
  if (path === '/') return join(root, 'index.html');
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  const segments = decoded.split('/').slice(1);
  if (segments.some((s) => s === '' || s === '.' || s === '..' || /[\\\0]/.test(s) || s.startsWith('.'))) return null;
  const file = resolve(root, ...segments);
  return file.startsWith(root + sep) ? file : null;
}

function sizeOf(file: string): number | null {
  try {
    const stat = statSync(file);
    return stat.isFile() ? stat.size : null;
  } catch {
    return null;
  }
}
