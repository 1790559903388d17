import { expectedOf, frameDifferences } from './replay-matching.js';
import {
  substitute,
  withPlaceholders,
  type McpCaller,
  type McpRequestEntry,
  type TranscriptEntry,
  type Vars,
} from './transcript.js';

/**
 * An agent's calls to Baton's orchestrator MCP server (Streamable HTTP at `/mcp`), as
 * transcripts hold them: an `mcp_request` entry at its place among the agent's frames, with
 * what Baton answered. A recording collects each session's calls as they come
 * (mcp-recording-proxy.ts) and puts them among its frames; a replay, where no agent runs,
 * makes each call again with the credential Baton minted for the replayed session, waits for
 * the answer (a blocking `thread_wait` blocks the replay as it blocked the agent) and checks it.
 */

/** The request headers a transcript keeps: those that shape Baton's answer (never the credential). */
export const KEPT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version'] as const;

type Frame = McpRequestEntry['frame'];
type Answer = McpRequestEntry['response'];

/** The JSON-RPC messages of an answer: a JSON body's, or each `data:` of an event stream. */
export function answerMessages(contentType: string | null, text: string): unknown[] {
  if (!text.trim()) return [];
  if (contentType?.includes('text/event-stream'))
    return text
      .split(/\r?\n\r?\n/)
      .map((event) =>
        event
          .split(/\r?\n/)
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart())
          .join('\n'),
      )
      .filter((data) => data)
      .map((data) => JSON.parse(data) as unknown);
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? parsed : [parsed];
}

const idOf = (message: unknown): unknown =>
  message && typeof message === 'object' && 'id' in message ? message.id : undefined;

/**
 * What a replay compares of an answer: its status, and the JSON-RPC answer to the request
 * (progress notifications along a `thread_wait` say what the task went through while the
 * caller waited, which depends on timing, so they are left out); every message of a body
 * that is not a JSON-RPC answer (a refusal before MCP, say).
 */
function comparable(request: unknown, answer: Answer): unknown {
  const id = idOf(request);
  const messages =
    id === undefined ? answer.messages : answer.messages.filter((m) => idOf(m) === id && !('method' in (m as object)));
  return { status: answer.status, messages };
}

/** Names a recorded request for a message: `tools/call thread_wait`, `initialize`, `GET`. */
export function describeRequest(frame: Frame): string {
  const body = frame.body as { method?: unknown; params?: { name?: unknown } } | undefined;
  if (typeof body?.method !== 'string') return frame.method;
  return typeof body.params?.name === 'string' ? `${body.method} ${body.params.name}` : body.method;
}

/**
 * A replayed session's MCP caller: each recorded request, with the run's values put into its
 * placeholders, is made at `session.url` with the session's own credential; the difference
 * names the first field of Baton's answer that is not the recorded one.
 */
export function mcpCaller(session: { url: string; token: string }, vars: Vars, label: string): McpCaller {
  return async (entry, signal) => {
    const frame = expectedOf(entry.frame, vars) as Frame;
    const response = await fetch(session.url, {
      method: frame.method,
      headers: { ...frame.headers, authorization: `Bearer ${session.token}` },
      ...(frame.body === undefined ? {} : { body: JSON.stringify(frame.body) }),
      signal,
    });
    const got: Answer = {
      status: response.status,
      messages: answerMessages(response.headers.get('content-type'), await response.text()),
    };
    const expected = expectedOf(entry.response, vars) as Answer;
    const first = frameDifferences(comparable(frame.body, expected), comparable(frame.body, got))[0];
    return first
      ? `${label}: Baton answered the recorded MCP request ${describeRequest(frame)} differently, first at ${first}`
      : null;
  };
}

/**
 * One recorded session's MCP requests, each at the place among its frames where it came
 * (`position()`: how many entries the session's recording holds then), with the run's
 * values as placeholders. A request still unanswered when the recording is written (its
 * agent was killed while it waited) is left out: there is no answer to check.
 */
export class RecordedExchanges {
  private readonly exchanges: { at: number; frame: Frame; response: Answer | null }[] = [];
  private readonly toPlaceholders: (s: string) => string;

  constructor(
    private readonly position: () => number,
    vars: Vars,
  ) {
    this.toPlaceholders = withPlaceholders(vars);
  }

  /** A request arrived: returns how to record its answer. */
  begin(frame: Frame): (response: Answer) => void {
    const exchange: (typeof this.exchanges)[number] = {
      at: this.position(),
      frame: substitute(frame, this.toPlaceholders) as Frame,
      response: null,
    };
    this.exchanges.push(exchange);
    return (response) => void (exchange.response = substitute(response, this.toPlaceholders) as Answer);
  }

  /** The session's entries with its answered requests put in their places. */
  into(entries: readonly TranscriptEntry[]): TranscriptEntry[] {
    const merged = [...entries];
    // From the last place back, so that each insertion leaves the places before it as they were.
    const answered = this.exchanges.filter((e) => e.response !== null);
    for (const { at, frame, response } of [...answered].reverse())
      merged.splice(at, 0, { kind: 'mcp_request', frame, response: response! });
    return merged;
  }
}
