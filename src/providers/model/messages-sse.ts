/**
 * The Anthropic Messages API wire format of one scripted reply: the same content blocks as
 * an SSE stream (`message_start`, `content_block_start/delta/stop`, `message_delta`,
 * `message_stop`) and as the complete message JSON a non-streaming request gets.
 */

export type MessagesSseEvent = { type: string; [key: string]: unknown };

/** One content block of a scripted reply, before it is encoded. */
export type ReplyBlock =
  | { type: 'thinking'; thinking: string }
  /** Text, streamed on `chunks` when given (they must join to `text`), else word by word. */
  | { type: 'text'; text: string; chunks?: string[] }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export type StopReason = 'end_turn' | 'tool_use';

export interface ReplyMeta {
  id: string;
  model: string;
  inputTokens: number;
}

/** Anthropic's error `type` for an HTTP status. */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 504:
      return 'timeout_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** The HTTP status Anthropic answers with for an error `type` (the inverse of `anthropicErrorType`). */
export function anthropicErrorStatus(type: string): number {
  const statuses: Record<string, number> = {
    invalid_request_error: 400,
    authentication_error: 401,
    billing_error: 402,
    permission_error: 403,
    not_found_error: 404,
    request_too_large: 413,
    rate_limit_error: 429,
    api_error: 500,
    timeout_error: 504,
    overloaded_error: 529,
  };
  return statuses[type] ?? 500;
}

/** Anthropic's error body: `{type: 'error', error: {type, message}}`. */
export const errorBody = (type: string, message: string) => ({ type: 'error', error: { type, message } });

/** A rough token count (4 characters a token), enough for `usage` and `count_tokens`. */
export const estimateTokens = (value: unknown): number =>
  Math.max(1, Math.ceil((typeof value === 'string' ? value : JSON.stringify(value ?? '')).length / 4));

export const stopReasonOf = (blocks: readonly ReplyBlock[]): StopReason =>
  blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';

/** A fake thinking signature: the agent only sends it back. */
const signatureOf = (thinking: string) => Buffer.from(`scripted:${thinking.slice(0, 32)}`).toString('base64');

function outputTokens(blocks: readonly ReplyBlock[]): number {
  return blocks.reduce(
    (sum, b) =>
      sum + estimateTokens(b.type === 'text' ? b.text : b.type === 'thinking' ? b.thinking : JSON.stringify(b.input)),
    0,
  );
}

const usage = (inputTokens: number, output: number) => ({
  input_tokens: inputTokens,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: output,
  service_tier: 'standard',
});

function completeBlock(block: ReplyBlock): Record<string, unknown> {
  switch (block.type) {
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: signatureOf(block.thinking) };
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
  }
}

/** The message a non-streaming request gets. */
export function messageJson(blocks: readonly ReplyBlock[], meta: ReplyMeta): Record<string, unknown> {
  return {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content: blocks.map(completeBlock),
    stop_reason: stopReasonOf(blocks),
    stop_sequence: null,
    usage: usage(meta.inputTokens, outputTokens(blocks)),
  };
}

/** The `message_start` event (with an empty message), also the first event of a hanging stream. */
export const messageStart = (meta: ReplyMeta): MessagesSseEvent => ({
  type: 'message_start',
  message: {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: usage(meta.inputTokens, 1),
  },
});

const words = (text: string) => text.split(/(?<= )/).filter((w) => w.length > 0);

/** Tool input JSON in small slices, the way the API streams `input_json_delta`s. */
function jsonSlices(json: string, size = 12): string[] {
  const slices: string[] = [];
  for (let i = 0; i < json.length; i += size) slices.push(json.slice(i, i + size));
  return slices;
}

/** The start, deltas and stop of one content block at `index`. */
export function blockEvents(block: ReplyBlock, index: number): MessagesSseEvent[] {
  const delta = (d: Record<string, unknown>): MessagesSseEvent => ({ type: 'content_block_delta', index, delta: d });
  const start = (content_block: Record<string, unknown>): MessagesSseEvent => ({
    type: 'content_block_start',
    index,
    content_block,
  });
  const stop: MessagesSseEvent = { type: 'content_block_stop', index };
  switch (block.type) {
    case 'thinking':
      return [
        start({ type: 'thinking', thinking: '', signature: '' }),
        ...words(block.thinking).map((thinking) => delta({ type: 'thinking_delta', thinking })),
        delta({ type: 'signature_delta', signature: signatureOf(block.thinking) }),
        stop,
      ];
    case 'text':
      return [
        start({ type: 'text', text: '' }),
        ...(block.chunks ?? words(block.text)).map((text) => delta({ type: 'text_delta', text })),
        stop,
      ];
    case 'tool_use':
      return [
        start({ type: 'tool_use', id: block.id, name: block.name, input: {} }),
        ...jsonSlices(JSON.stringify(block.input)).map((partial_json) =>
          delta({ type: 'input_json_delta', partial_json }),
        ),
        stop,
      ];
  }
}

/** The whole stream of a streaming request, in the API's order (with its `ping`). */
export function messageEvents(blocks: readonly ReplyBlock[], meta: ReplyMeta): MessagesSseEvent[] {
  return [
    messageStart(meta),
    { type: 'ping' },
    ...blocks.flatMap(blockEvents),
    {
      type: 'message_delta',
      delta: { stop_reason: stopReasonOf(blocks), stop_sequence: null },
      usage: usage(meta.inputTokens, outputTokens(blocks)),
    },
    { type: 'message_stop' },
  ];
}

export const sseFrame = (event: MessagesSseEvent) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
