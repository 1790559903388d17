import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerMessages, KEPT_HEADERS, type RecordedExchanges } from './mcp-exchange.js';

/** Headers that belong to one hop: the proxy's own connections set theirs. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

const bearer = (header: string | undefined): string | null => /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1] ?? null;

/**
 * Stands between the recorded agents and Baton's MCP endpoint (`upstream`, its URL) while a
 * scenario is recorded: the agents are told its URL instead of the endpoint's. Each request
 * is passed on unchanged and its answer streamed back as it comes (a `thread_wait` holds its
 * agent exactly as the endpoint holds it); one whose credential a recorded session holds
 * (`sessionOf`) is written down in that session's exchanges, with its answer. Calls with
 * other credentials (the scenario's own, with Baton's token) are passed on and not recorded.
 * A recording harness owns it: nothing in Baton's own endpoint knows of it.
 */
export class McpRecordingProxy {
  private server: Server | null = null;

  constructor(
    private readonly upstream: string,
    private readonly sessionOf: (token: string) => RecordedExchanges | null,
  ) {}

  /** Listens on loopback; resolves with the URL the agents are to be given. */
  async start(): Promise<string> {
    const server = createServer((req, res) => {
      this.pass(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}${new URL(this.upstream).pathname}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  private async pass(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const token = bearer(req.headers.authorization);
    const kept = Object.fromEntries(
      KEPT_HEADERS.flatMap((name) => {
        const value = req.headers[name];
        return typeof value === 'string' ? [[name, value]] : [];
      }),
    );
    const answered = (token ? this.sessionOf(token) : null)?.begin({
      method: req.method ?? 'GET',
      headers: kept,
      ...(raw ? { body: parsed(raw) } : {}),
    });
    // The agent gone before its answer: so is the request it made (its wait ends with it).
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const headers = Object.entries(req.headers).flatMap(([name, value]) =>
      typeof value === 'string' && !HOP_HEADERS.has(name) ? [[name, value] as [string, string]] : [],
    );
    const upstream = await fetch(this.upstream, {
      method: req.method ?? 'GET',
      headers,
      ...(raw ? { body: raw } : {}),
      signal: gone.signal,
    });
    res.writeHead(
      upstream.status,
      Object.fromEntries([...upstream.headers].filter(([name]) => !HOP_HEADERS.has(name))),
    );
    let text = '';
    const decoder = new TextDecoder();
    if (upstream.body)
      for await (const chunk of upstream.body) {
        res.write(chunk);
        text += decoder.decode(chunk, { stream: true });
      }
    res.end();
    answered?.({ status: upstream.status, messages: answerMessages(upstream.headers.get('content-type'), text) });
  }
}

/** A request body as JSON (what MCP clients send), else as the text it is. */
function parsed(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}
