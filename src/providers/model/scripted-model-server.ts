import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Baton's own model endpoint: an OpenAI Responses API server (`POST /v1/responses`, SSE)
 * on 127.0.0.1, scripted turn by turn. Tests script it per request; Baton's main job uses
 * it as the offline model when no credentials exist. The agents that call it are real.
 */

export type SseEvent = { type: string; [key: string]: unknown };

/** What the model does for one request. */
export type ModelTurn =
  /** A reply, streamed as deltas (the text split on `chunks`, or word by word); `reasoning` first streams a reasoning item with these summary parts. */
  | { kind: 'text'; text: string; chunks?: string[]; delayMs?: number; reasoning?: string[] }
  /** A `tool_search` call: Codex answers with the deferred tools (MCP tools) that match, for the next request. */
  | { kind: 'tool_search'; query: string; callId?: string }
  /** A call of a function tool by name, in a namespace when it has one (an MCP tool: namespace `mcp__SERVER`). */
  | { kind: 'call'; name: string; namespace?: string; args: Record<string, unknown>; callId?: string }
  /** A web search the model ran itself (a `web_search_call` output item), then a reply. */
  | { kind: 'web_search'; query: string; text: string }
  /** A shell command call (`exec_command`); `escalated` makes Codex ask for approval. */
  | { kind: 'exec'; command: string; callId?: string; escalated?: boolean; justification?: string }
  /** A plan update (`update_plan`). */
  | {
      kind: 'plan';
      steps: { step: string; status: 'pending' | 'in_progress' | 'completed' }[];
      explanation?: string;
      callId?: string;
    }
  /** Structured questions (`request_user_input`; Codex needs plan collaboration mode). */
  | {
      kind: 'questions';
      questions: { id: string; header: string; question: string; options?: { label: string; description: string }[] }[];
      callId?: string;
    }
  /** A patch (`apply_patch`, freeform). */
  | { kind: 'patch'; patch: string; callId?: string }
  /** An HTTP error. */
  | { kind: 'error'; status: number; message?: string }
  /** Starts streaming and never finishes (until the client goes away). */
  | { kind: 'hang'; text?: string }
  /** Accepts the request and never answers: no status, no headers (until the client goes away). */
  | { kind: 'silent' }
  /** Raw SSE events, for anything else. */
  | { kind: 'events'; events: SseEvent[] };

export interface RecordedRequest {
  path: string;
  body: Record<string, unknown>;
}

export type Responder = (request: RecordedRequest, index: number) => ModelTurn;

/** The text of the request's last user message (its text parts, joined). */
export function lastUserText(request: RecordedRequest): string {
  const input = Array.isArray(request.body.input) ? (request.body.input as Record<string, unknown>[]) : [];
  const lastUser = [...input].reverse().find((i) => i.role === 'user');
  const content = Array.isArray(lastUser?.content) ? (lastUser.content as { text?: unknown }[]) : [];
  return content.map((c) => (typeof c.text === 'string' ? c.text : '')).join(' ');
}

/** An `apply_patch` patch that adds one file with `content`. */
export function addFilePatch(path: string, content: string): string {
  const lines = content
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => `+${line}\n`);
  return `*** Begin Patch\n*** Add File: ${path}\n${lines.join('')}*** End Patch\n`;
}

/** The default offline model: it echoes what it was told, streamed word by word. */
export const offlineResponder =
  (delayMs = 0): Responder =>
  (request) => {
    const text = lastUserText(request).trim();
    return {
      kind: 'text',
      text: `(offline scripted model) I received: ${text.slice(-200) || 'your message'}`,
      delayMs,
    };
  };

let sequence = 0;
const nextId = (prefix: string) => `${prefix}_${++sequence}`;

function sseFor(turn: Exclude<ModelTurn, { kind: 'error' } | { kind: 'hang' } | { kind: 'silent' }>): SseEvent[] {
  const responseId = nextId('resp');
  const created: SseEvent = { type: 'response.created', response: { id: responseId } };
  const completed: SseEvent = {
    type: 'response.completed',
    response: {
      id: responseId,
      usage: {
        input_tokens: 0,
        input_tokens_details: null,
        output_tokens: 0,
        output_tokens_details: null,
        total_tokens: 0,
      },
    },
  };
  const call = (name: string, args: unknown, callId?: string): SseEvent => ({
    type: 'response.output_item.done',
    item: { type: 'function_call', call_id: callId ?? nextId('call'), name, arguments: JSON.stringify(args) },
  });
  switch (turn.kind) {
    case 'text': {
      const reasoning = turn.reasoning ? reasoningItem(turn.reasoning) : [];
      return [created, ...reasoning, ...messageItem(turn.text, turn.chunks, reasoning.length ? 1 : 0), completed];
    }
    case 'web_search': {
      const searchId = nextId('ws');
      const action = { type: 'search', query: turn.query };
      return [
        created,
        {
          type: 'response.output_item.added',
          output_index: 0,
          item: { type: 'web_search_call', id: searchId, status: 'in_progress', action },
        },
        {
          type: 'response.output_item.done',
          output_index: 0,
          item: { type: 'web_search_call', id: searchId, status: 'completed', action },
        },
        ...messageItem(turn.text, undefined, 1),
        completed,
      ];
    }
    case 'exec':
      return [
        created,
        call(
          'exec_command',
          {
            cmd: turn.command,
            ...(turn.escalated
              ? { sandbox_permissions: 'require_escalated', justification: turn.justification ?? 'needs approval' }
              : {}),
          },
          turn.callId,
        ),
        completed,
      ];
    case 'plan':
      return [
        created,
        call(
          'update_plan',
          { plan: turn.steps, ...(turn.explanation ? { explanation: turn.explanation } : {}) },
          turn.callId,
        ),
        completed,
      ];
    case 'questions':
      return [created, call('request_user_input', { questions: turn.questions }, turn.callId), completed];
    case 'tool_search':
      return [
        created,
        {
          type: 'response.output_item.done',
          item: {
            type: 'tool_search_call',
            id: nextId('ts'),
            call_id: turn.callId ?? nextId('call'),
            execution: 'client',
            status: 'completed',
            arguments: { query: turn.query },
          },
        },
        completed,
      ];
    case 'call':
      return [
        created,
        {
          type: 'response.output_item.done',
          item: {
            type: 'function_call',
            call_id: turn.callId ?? nextId('call'),
            name: turn.name,
            ...(turn.namespace ? { namespace: turn.namespace } : {}),
            arguments: JSON.stringify(turn.args),
          },
        },
        completed,
      ];
    case 'patch':
      return [
        created,
        {
          type: 'response.output_item.done',
          item: {
            type: 'custom_tool_call',
            call_id: turn.callId ?? nextId('call'),
            name: 'apply_patch',
            input: turn.patch,
          },
        },
        completed,
      ];
    case 'events':
      return turn.events;
  }
}

function messageItem(text: string, chunks: string[] | undefined, outputIndex: number): SseEvent[] {
  const itemId = nextId('msg');
  return [
    {
      type: 'response.output_item.added',
      output_index: outputIndex,
      item: { type: 'message', role: 'assistant', id: itemId, content: [] },
    },
    ...(chunks ?? text.split(/(?<= )/)).map((delta) => ({
      type: 'response.output_text.delta',
      item_id: itemId,
      output_index: outputIndex,
      content_index: 0,
      delta,
    })),
    {
      type: 'response.output_item.done',
      output_index: outputIndex,
      item: { type: 'message', role: 'assistant', id: itemId, content: [{ type: 'output_text', text }] },
    },
  ];
}

/** A reasoning output item whose summary parts stream as deltas, the way reasoning models send them. */
function reasoningItem(summary: string[]): SseEvent[] {
  const itemId = nextId('rs');
  return [
    { type: 'response.output_item.added', output_index: 0, item: { type: 'reasoning', id: itemId, summary: [] } },
    ...summary.flatMap((text, summary_index) => [
      {
        type: 'response.reasoning_summary_part.added',
        item_id: itemId,
        output_index: 0,
        summary_index,
        part: { type: 'summary_text', text: '' },
      },
      ...text.split(/(?<= )/).map((delta) => ({
        type: 'response.reasoning_summary_text.delta',
        item_id: itemId,
        output_index: 0,
        summary_index,
        delta,
      })),
      { type: 'response.reasoning_summary_text.done', item_id: itemId, output_index: 0, summary_index, text },
    ]),
    {
      type: 'response.output_item.done',
      output_index: 0,
      item: {
        type: 'reasoning',
        id: itemId,
        summary: summary.map((text) => ({ type: 'summary_text', text })),
        encrypted_content: null,
      },
    },
  ];
}

const frame = (event: SseEvent) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

export class ScriptedModelServer {
  readonly requests: RecordedRequest[] = [];
  private readonly script: ModelTurn[] = [];
  private server: Server | null = null;
  private readonly open = new Set<ServerResponse>();
  private readonly waiters: { count: number; resolve: () => void }[] = [];
  port = 0;

  constructor(private readonly fallback: Responder = offlineResponder()) {}

  /** Queues what the next requests get, in order; when the queue is empty, the fallback answers. */
  enqueue(...turns: ModelTurn[]): this {
    this.script.push(...turns);
    return this;
  }

  /** Resolves once `count` requests have arrived in all (rejects after `timeoutMs`). */
  waitForRequests(count: number, timeoutMs = 20_000): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the model got ${this.requests.length} of ${count} requests`)),
        timeoutMs,
      );
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  /** Forgets queued turns and recorded requests (between tests). */
  reset(): void {
    this.script.length = 0;
    this.requests.length = 0;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    if (!this.server) return;
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = null;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '').split('?')[0]!;
    if (req.method !== 'POST' || !path.endsWith('/responses')) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
      return;
    }
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    } catch {
      res.writeHead(400).end();
      return;
    }
    const request = { path, body };
    this.requests.push(request);
    for (const w of this.waiters.filter((w) => this.requests.length >= w.count)) {
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.resolve();
    }
    const turn = this.script.shift() ?? this.fallback(request, this.requests.length - 1);
    if (turn.kind === 'error') {
      res
        .writeHead(turn.status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: turn.message ?? `scripted ${turn.status}`, type: 'scripted_error' } }));
      return;
    }
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    if (turn.kind === 'silent') return;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    if (turn.kind === 'hang') {
      res.write(frame({ type: 'response.created', response: { id: nextId('resp') } }));
      return;
    }
    const delay = turn.kind === 'text' ? (turn.delayMs ?? 0) : 0;
    for (const event of sseFor(turn)) {
      if (res.destroyed) return;
      res.write(frame(event));
      if (delay && event.type === 'response.output_text.delta') await new Promise((r) => setTimeout(r, delay));
    }
    res.end();
  }
}
