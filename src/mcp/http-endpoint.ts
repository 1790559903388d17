import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ErrorCode } from '../domain/errors.js';
import { TRANSPORT_MAX_BYTES } from '../server/limits.js';
import type { McpCredentials, McpScope } from './credentials.js';
import type { ToolRegistry } from './tool-registry.js';

/** Where Baton serves its orchestrator MCP server, on its own HTTP port. */
export const MCP_PATH = '/mcp';

const INSTRUCTIONS =
  'Baton runs coding agents (Codex, Claude, ACP agents) in durable threads. Start a thread with thread_start, ' +
  'wait for its answer with thread_wait, read it with thread_read; thread_send, thread_interrupt and thread_fork act on it. ' +
  'Hand a task to another agent with delegate_task, follow it with task_status or thread_wait, stop it with task_cancel. ' +
  'Pass a clientRequestId to every mutating tool so a retry changes nothing.';

export interface McpEndpointOptions {
  credentials: McpCredentials;
  tools: ToolRegistry;
  logger: Logger;
}

/** `Authorization: Bearer <token>`: the token, or null for anything else. */
function bearer(header: string | undefined): string | null {
  const match = /^Bearer +([^\s]+) *$/i.exec(header ?? '');
  return match ? match[1]! : null;
}

function refuse(
  res: ServerResponse,
  status: number,
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ ok: false, error: { code, message } }));
}

/**
 * The MCP endpoint: Streamable HTTP in its stateless form. Each POST is authenticated on its
 * own (a bearer token, checked by the credential port, before any MCP processing: a missing or
 * unknown one is a 401 with a typed JSON error) and served by a fresh MCP server bound to the
 * caller's scope, so no session state outlives a request and every request is checked. What
 * a tool call waits on (thread_wait) ends when its request does: the caller goes away, or
 * `close()`.
 */
export class McpEndpoint {
  /** The MCP server of each request in flight, and when its response is done. */
  private readonly live = new Map<Server, Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(private readonly options: McpEndpointOptions) {}

  /** Answers one HTTP request to `MCP_PATH`. */
  readonly route = (req: IncomingMessage, res: ServerResponse): void => {
    this.handle(req, res).catch((error: unknown) => {
      this.options.logger.error({ err: error }, 'the MCP endpoint failed a request');
      if (!res.headersSent) refuse(res, 500, 'internal', 'the MCP endpoint failed this request');
      else res.destroy();
    });
  };

  /**
   * Takes no new requests and ends the ones in flight: a call that waits (thread_wait) answers
   * that Baton is stopping, and whatever has not answered within `graceMs` is cut off.
   */
  async close(graceMs = 1_000): Promise<void> {
    this.stopping.abort();
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.live.values()),
      new Promise<void>((resolve) => (grace = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(grace);
    await Promise.all([...this.live.keys()].map((server) => server.close()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.stopping.signal.aborted)
      return refuse(res, 503, 'invalid_transition', 'Baton is stopping: /mcp takes no new requests');
    const token = bearer(req.headers.authorization);
    const verified = token === null ? null : this.options.credentials.verify(token);
    if (!verified) {
      this.options.logger.warn({ address: req.socket.remoteAddress }, 'refused an MCP request without a valid token');
      return refuse(res, 401, 'unauthorized', 'unauthorized: /mcp needs Authorization: Bearer <token>', {
        'www-authenticate': 'Bearer realm="baton"',
      });
    }
    // Stateless: no session to delete and no standalone stream to open (an SDK client takes the 405 in its stride).
    if (req.method !== 'POST')
      return refuse(res, 405, 'unsupported', `${MCP_PATH} answers POST (stateless Streamable HTTP)`, {
        allow: 'POST',
      });
    const server = this.serverFor(verified.scope);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      maxRequestBodySize: TRANSPORT_MAX_BYTES,
    });
    this.live.set(
      server,
      new Promise<void>((resolve) =>
        res.on('close', () => {
          this.live.delete(server);
          void server.close();
          resolve();
        }),
      ),
    );
    await server.connect(transport);
    await transport.handleRequest(req, res);
  }

  private serverFor(scope: McpScope): Server {
    const server = new Server(
      { name: 'baton', version: '0.1.0' },
      { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
    );
    const { tools } = this.options;
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.list(scope) }));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const progressToken = request.params._meta?.progressToken;
      const progress =
        progressToken === undefined
          ? undefined
          : (progress: number, message: string) =>
              void extra
                .sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message } })
                .catch(() => undefined); // the caller is gone: its call ends with its request
      return tools.call(request.params.name, request.params.arguments, {
        scope,
        signal: AbortSignal.any([extra.signal, this.stopping.signal]),
        stopping: this.stopping.signal,
        ...(progress ? { progress } : {}),
      });
    });
    return server;
  }
}
