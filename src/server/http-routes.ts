import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { PageRoute } from './console-route.js';

/** Socket.IO (engine.io) takes every request under this path; Baton answers the rest. */
export const SOCKET_IO_PATH = '/socket.io/';

const pathOf = (url: string | undefined): string => (url ?? '/').split('?')[0]!;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** A further HTTP route (the MCP endpoint at `/mcp`), by exact path. */
export type HttpRoute = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Answers every plain HTTP request Socket.IO did not take, so none waits for Node's
 * timeout: `/healthz` (GET or HEAD), the `routes`, the `pages` (the console's files), a
 * clear 404 for a Socket.IO path without its trailing slash, and a 404 for everything else.
 */
export function answerHttp(
  req: IncomingMessage,
  res: ServerResponse,
  health: () => unknown,
  routes: Readonly<Record<string, HttpRoute>> = {},
  pages?: PageRoute,
): void {
  const path = pathOf(req.url);
  if (Object.hasOwn(routes, path)) return routes[path]!(req, res);
  if (path !== '/healthz' && !path.startsWith('/socket.io') && pages?.(req, res)) return;
  if (path === '/healthz') {
    if (req.method === 'GET' || req.method === 'HEAD') return json(res, 200, health());
    return json(
      res,
      405,
      { ok: false, error: { code: 'unsupported', message: '/healthz answers GET and HEAD' } },
      { allow: 'GET, HEAD' },
    );
  }
  if (path.startsWith('/socket.io'))
    return json(res, 404, {
      ok: false,
      error: { code: 'not_found', message: `Socket.IO is served at ${SOCKET_IO_PATH} (with the trailing slash)` },
    });
  json(res, 404, {
    ok: false,
    error: {
      code: 'not_found',
      message: `nothing at ${path}: Baton serves ${[SOCKET_IO_PATH, ...Object.keys(routes)].join(', ')} and /healthz`,
    },
  });
}

/** The routes behind the Origin allow-list of the Socket.IO handshake: a browser page that is not allowed gets a typed 403. */
export function originChecked(
  routes: Readonly<Record<string, HttpRoute>>,
  allowed: (origin: string | undefined) => boolean,
): Record<string, HttpRoute> {
  return Object.fromEntries(
    Object.entries(routes).map(([path, route]): [string, HttpRoute] => [
      path,
      (req, res) =>
        allowed(req.headers.origin)
          ? route(req, res)
          : json(res, 403, { ok: false, error: { code: 'unauthorized', message: 'origin not allowed' } }),
    ]),
  );
}

/** An upgrade request outside Socket.IO's path is answered 404 at once instead of dropped later. */
export function refuseStrayUpgrade(req: IncomingMessage, socket: Duplex): void {
  if (pathOf(req.url).startsWith(SOCKET_IO_PATH)) return;
  if (socket.writable) socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
}
