import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  anthropicErrorStatus,
  anthropicErrorType,
  blockEvents,
  errorBody,
  estimateTokens,
  messageEvents,
  messageJson,
  messageStart,
  sseFrame,
  type MessagesSseEvent,
  type ReplyBlock,
  type ReplyMeta,
} from './messages-sse.js';

/**
 * Baton's Anthropic Messages API server (`POST /v1/messages`, SSE or JSON) on 127.0.0.1,
 * scripted turn by turn: the Claude twin of the Responses-API `ScriptedModelServer`. The
 * Claude agent reaches it through `ANTHROPIC_BASE_URL` (`baseUrl`, without `/v1`).
 * `POST /v1/messages/count_tokens`, `GET /v1/models` and HEAD probes are answered too and
 * every request is recorded (secret headers redacted).
 */

export type { MessagesSseEvent } from './messages-sse.js';

export interface ToolUse {
  /** The tool's name as the agent declares it: `Bash`, `Write`, `Edit`, `TodoWrite`, `AskUserQuestion`, `ExitPlanMode`, `Agent`, `mcp__SERVER__TOOL`. */
  name: string;
  input: Record<string, unknown>;
  /** The `tool_use` id (`toolu_…` when not given). */
  id?: string;
}

/** What the model does for one `POST /v1/messages`; streaming and non-streaming requests get the same reply. */
export type MessagesTurn =
  /** A reply, streamed as deltas (on `chunks`, or word by word), `delayMs` apart; `thinking` first streams a thinking block. */
  | { kind: 'text'; text: string; chunks?: string[]; delayMs?: number; thinking?: string }
  /** One tool use (after optional thinking and text): `stop_reason: tool_use`. */
  | ({ kind: 'tool_use'; text?: string; thinking?: string } & ToolUse)
  /** Several tool uses in one reply. */
  | { kind: 'tool_uses'; uses: ToolUse[]; text?: string; thinking?: string }
  /**
   * An HTTP error with Anthropic's error body; `errorType` defaults from the status (429
   * `rate_limit_error`, 500 `api_error`, 529 `overloaded_error`). `shouldRetry` sets
   * `x-should-retry`, `retryAfterSeconds` sets `retry-after`.
   */
  | {
      kind: 'error';
      status: number;
      errorType?: string;
      message?: string;
      shouldRetry?: boolean;
      retryAfterSeconds?: number;
    }
  /**
   * A stream that fails midway: `message_start`, `text` streamed (when given), then an
   * `error` event (default `overloaded_error`). A non-streaming request gets that error as
   * an HTTP status instead.
   */
  | { kind: 'stream_error'; errorType?: string; message?: string; text?: string }
  /** Starts answering and never finishes (until the client goes away); a stream first sends `message_start` and `text`. */
  | { kind: 'hang'; text?: string }
  /** Accepts the request and never answers: no status, no headers (until the client goes away). */
  | { kind: 'silent' }
  /** Raw SSE events for a streaming request; a non-streaming one gets `message` (else a 500). */
  | { kind: 'events'; events: MessagesSseEvent[]; message?: Record<string, unknown> };

const ContentBlockIn = z.looseObject({ type: z.string() });
const MessageIn = z.looseObject({
  // The agent sends `system` messages too, for some models (a switch to claude-opus-4-1, for one).
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(ContentBlockIn)]),
});
const CountTokensBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(MessageIn),
  system: z.union([z.string(), z.array(ContentBlockIn)]).optional(),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
});
const MessagesBody = CountTokensBody.extend({
  max_tokens: z.number().int().positive(),
  stream: z.boolean().optional(),
});

export type MessagesRequestBody = z.infer<typeof MessagesBody>;

/** Anything the server was asked (probes and malformed bodies too). */
export interface RecordedMessagesRequest {
  method: string;
  path: string;
  /** The query string without `?` (Claude Code asks `/v1/messages?beta=true`). */
  query: string;
  /** Lower-case names; API keys, authorization and cookies read `[redacted]`. */
  headers: Record<string, string>;
  /** The parsed JSON body (`null` when there was none or it was not JSON). */
  body: unknown;
  /** Why the request was refused with a 400, when it was. */
  rejected?: string;
}

/** A valid `POST /v1/messages`: what a turn answers. */
export interface MessagesRequest {
  path: string;
  headers: Record<string, string>;
  body: MessagesRequestBody;
}

export type MessagesResponder = (request: MessagesRequest, index: number) => MessagesTurn;

/** The text of a user message, without the `<system-reminder>` blocks Claude Code adds. */
function userText(content: MessagesRequestBody['messages'][number]['content']): string {
  if (typeof content === 'string') return content;
  return content
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .filter((text) => text && !text.trimStart().startsWith('<system-reminder>'))
    .join(' ');
}

/** The text of the request's last user message, without Claude Code's reminders. */
export function lastUserText(request: MessagesRequest): string {
  const lastUser = [...request.body.messages].reverse().find((m) => m.role === 'user');
  return lastUser ? userText(lastUser.content) : '';
}

/** The default offline model: it echoes the last user text, streamed word by word. */
export const offlineMessagesResponder =
  (delayMs = 0): MessagesResponder =>
  (request) => {
    const text = lastUserText(request).trim();
    return {
      kind: 'text',
      text: `(offline scripted model) I received: ${text.slice(-200) || 'your message'}`,
      delayMs,
    };
  };

export interface ScriptedMessagesServerOptions {
  /** Requests the agent makes on the side (titles, quota checks): the fallback answers them without taking a scripted turn. */
  isSideRequest?: (request: MessagesRequest) => boolean;
}

let sequence = 0;
const nextId = (prefix: string) => `${prefix}_scripted${String(++sequence).padStart(6, '0')}`;

const SECRET_HEADER = /^(x-api-key|authorization|proxy-authorization|cookie)$|token|secret/i;

function recordedHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers[name] = SECRET_HEADER.test(name) ? '[redacted]' : Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

const turnBlocks = (turn: { text?: string; thinking?: string }, uses: ToolUse[]): ReplyBlock[] => [
  ...(turn.thinking ? [{ type: 'thinking' as const, thinking: turn.thinking }] : []),
  ...(turn.text ? [{ type: 'text' as const, text: turn.text }] : []),
  ...uses.map((u) => ({ type: 'tool_use' as const, id: u.id ?? nextId('toolu'), name: u.name, input: u.input })),
];

const SCRIPTED_MODELS = ['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5'];
const modelInfo = (id: string) => ({
  type: 'model',
  id,
  display_name: id,
  created_at: '2025-01-01T00:00:00Z',
});

export class ScriptedMessagesServer {
  /** Every request, probes and refused ones included. */
  readonly requests: RecordedMessagesRequest[] = [];
  /** The valid `POST /v1/messages` requests, in order: the ones turns answered. */
  readonly messageRequests: MessagesRequest[] = [];
  private readonly script: (MessagesTurn | MessagesResponder)[] = [];
  private server: Server | null = null;
  private readonly open = new Set<ServerResponse>();
  private readonly waiters: { count: number; resolve: () => void }[] = [];
  port = 0;

  constructor(
    private readonly fallback: MessagesResponder = offlineMessagesResponder(),
    private readonly options: ScriptedMessagesServerOptions = {},
  ) {}

  /**
   * Queues what the next message requests get, in order; when the queue is empty, the
   * fallback answers. A function answers from its request (a path the agent named in it, say).
   */
  enqueue(...turns: (MessagesTurn | MessagesResponder)[]): this {
    this.script.push(...turns);
    return this;
  }

  /** Resolves once `count` valid message requests have arrived in all (rejects after `timeoutMs`). */
  waitForRequests(count: number, timeoutMs = 20_000): Promise<void> {
    if (this.messageRequests.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the model got ${this.messageRequests.length} of ${count} message requests`)),
        timeoutMs,
      );
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  /** Forgets queued turns and recorded requests (between tests). */
  reset(): void {
    this.script.length = 0;
    this.requests.length = 0;
    this.messageRequests.length = 0;
  }

  /** For `ANTHROPIC_BASE_URL`: the SDK adds `/v1/messages` itself. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(port = 0): Promise<this> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) this.sendError(res, 500, 'api_error', `scripted server failure: ${String(error)}`);
        else res.destroy();
      });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    const server = this.server;
    if (!server) return;
    this.server = null;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  private sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res
      .writeHead(status, { 'content-type': 'application/json', 'request-id': nextId('req'), ...headers })
      .end(JSON.stringify(body));
  }

  private sendError(
    res: ServerResponse,
    status: number,
    type: string,
    message: string,
    headers: Record<string, string> = {},
  ): void {
    this.sendJson(res, status, errorBody(type, message), headers);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
    const method = req.method ?? 'GET';
    const url = req.url ?? '';
    const at = url.indexOf('?');
    const [path, query] = at < 0 ? [url, ''] : [url.slice(0, at), url.slice(at + 1)];
    const headers = recordedHeaders(req);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = null;
    let notJson: string | undefined;
    if (raw.trim()) {
      try {
        body = JSON.parse(raw);
      } catch (error) {
        notJson = `the body is not JSON: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    const recorded: RecordedMessagesRequest = { method, path, query, headers, body };
    this.requests.push(recorded);
    const refuse = (why: string) => {
      recorded.rejected = why;
      this.sendError(res, 400, 'invalid_request_error', why);
    };

    if (method === 'HEAD') {
      res.writeHead(200, { 'request-id': nextId('req') }).end();
      return;
    }
    if (method === 'GET') {
      if (path === '/' || path === '/v1') return this.sendJson(res, 200, {});
      if (path === '/v1/models') {
        const data = SCRIPTED_MODELS.map(modelInfo);
        return this.sendJson(res, 200, { data, has_more: false, first_id: data[0]!.id, last_id: data.at(-1)!.id });
      }
      if (path.startsWith('/v1/models/')) return this.sendJson(res, 200, modelInfo(path.slice('/v1/models/'.length)));
      return this.sendError(res, 404, 'not_found_error', `no route GET ${path}`);
    }
    if (method !== 'POST' || (path !== '/v1/messages' && path !== '/v1/messages/count_tokens')) {
      return this.sendError(res, 404, 'not_found_error', `no route ${method} ${path}`);
    }
    if (notJson) return refuse(notJson);

    if (path === '/v1/messages/count_tokens') {
      const parsed = CountTokensBody.safeParse(body);
      if (!parsed.success) return refuse(`invalid request: ${z.prettifyError(parsed.error)}`);
      const { messages, system, tools } = parsed.data;
      return this.sendJson(res, 200, {
        input_tokens:
          estimateTokens(messages) + (system ? estimateTokens(system) : 0) + (tools ? estimateTokens(tools) : 0),
      });
    }

    const parsed = MessagesBody.safeParse(body);
    if (!parsed.success) return refuse(`invalid request: ${z.prettifyError(parsed.error)}`);
    const request: MessagesRequest = { path, headers, body: parsed.data };
    const side = this.options.isSideRequest?.(request) ?? false;
    let turn: MessagesTurn;
    if (side) {
      turn = this.fallback(request, this.messageRequests.length);
    } else {
      this.messageRequests.push(request);
      for (const w of this.waiters.filter((w) => this.messageRequests.length >= w.count)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
      const next = this.script.shift() ?? this.fallback;
      turn = typeof next === 'function' ? next(request, this.messageRequests.length - 1) : next;
    }
    await this.play(turn, request, res);
  }

  private async play(turn: MessagesTurn, request: MessagesRequest, res: ServerResponse): Promise<void> {
    const { body } = request;
    const stream = body.stream === true;
    const meta: ReplyMeta = {
      id: nextId('msg'),
      model: body.model,
      inputTokens: estimateTokens(body.messages) + (body.system ? estimateTokens(body.system) : 0),
    };
    if (turn.kind === 'error') {
      const headers: Record<string, string> = {};
      if (turn.shouldRetry !== undefined) headers['x-should-retry'] = String(turn.shouldRetry);
      if (turn.retryAfterSeconds !== undefined) headers['retry-after'] = String(turn.retryAfterSeconds);
      const type = turn.errorType ?? anthropicErrorType(turn.status);
      return this.sendError(res, turn.status, type, turn.message ?? `scripted ${turn.status} ${type}`, headers);
    }
    if (turn.kind === 'stream_error' && !stream) {
      const type = turn.errorType ?? 'overloaded_error';
      return this.sendError(res, anthropicErrorStatus(type), type, turn.message ?? `scripted ${type}`);
    }
    if (turn.kind === 'events' && !stream) {
      if (turn.message) return this.sendJson(res, 200, turn.message);
      return this.sendError(res, 500, 'api_error', 'the scripted raw-events turn has no non-streaming form');
    }

    const blocks: ReplyBlock[] | null =
      turn.kind === 'text'
        ? [
            ...(turn.thinking ? [{ type: 'thinking' as const, thinking: turn.thinking }] : []),
            { type: 'text', text: turn.text, ...(turn.chunks ? { chunks: turn.chunks } : {}) },
          ]
        : turn.kind === 'tool_use'
          ? turnBlocks(turn, [{ name: turn.name, input: turn.input, ...(turn.id ? { id: turn.id } : {}) }])
          : turn.kind === 'tool_uses'
            ? turnBlocks(turn, turn.uses)
            : null;
    if (blocks && !stream) return this.sendJson(res, 200, messageJson(blocks, meta));

    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    if (turn.kind === 'silent') return;
    if (!stream) {
      // A non-streaming hang: the status and headers, then nothing.
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': nextId('req') });
      res.flushHeaders();
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'request-id': nextId('req'),
    });
    const partial = (text: string | undefined) => (text ? blockEvents({ type: 'text', text }, 0) : []);
    const events: MessagesSseEvent[] =
      turn.kind === 'hang'
        ? [messageStart(meta), ...partial(turn.text).slice(0, -1)]
        : turn.kind === 'stream_error'
          ? [
              messageStart(meta),
              ...partial(turn.text).slice(0, -1),
              {
                type: 'error',
                error: { type: turn.errorType ?? 'overloaded_error', message: turn.message ?? 'scripted stream error' },
              },
            ]
          : turn.kind === 'events'
            ? turn.events
            : messageEvents(blocks ?? [], meta);
    const delay = turn.kind === 'text' ? (turn.delayMs ?? 0) : 0;
    for (const event of events) {
      if (res.destroyed) return;
      res.write(sseFrame(event));
      if (delay && event.type === 'content_block_delta') await new Promise((r) => setTimeout(r, delay));
    }
    if (turn.kind !== 'hang') res.end();
  }
}
