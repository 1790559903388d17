import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  offlineMessagesResponder,
  ScriptedMessagesServer,
  type MessagesTurn,
} from '../../src/providers/model/scripted-messages-server.js';
import type { ModelStep } from '../support/scenario-kit/model-steps.js';
import { claudeModel, NoClaudeFormError } from './claude-model.js';

// The Messages API wire format, written out independently of the server's encoder.
const Usage = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_creation_input_tokens: z.number().int().nonnegative(),
  cache_read_input_tokens: z.number().int().nonnegative(),
});
const ErrorShape = z.strictObject({
  type: z.literal('error'),
  error: z.strictObject({ type: z.string(), message: z.string() }),
});
const Block = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
  z.object({
    type: z.literal('tool_use'),
    id: z.string().regex(/^[a-zA-Z0-9_-]+$/),
    name: z.string(),
    input: z.unknown(),
  }),
]);
const Event = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('message_start'),
    message: z.object({
      id: z.string(),
      type: z.literal('message'),
      role: z.literal('assistant'),
      model: z.string(),
      content: z.array(z.unknown()).length(0),
      stop_reason: z.null(),
      stop_sequence: z.null(),
      usage: Usage,
    }),
  }),
  z.object({ type: z.literal('ping') }),
  z.object({ type: z.literal('content_block_start'), index: z.number(), content_block: Block }),
  z.object({
    type: z.literal('content_block_delta'),
    index: z.number(),
    delta: z.discriminatedUnion('type', [
      z.object({ type: z.literal('text_delta'), text: z.string() }),
      z.object({ type: z.literal('thinking_delta'), thinking: z.string() }),
      z.object({ type: z.literal('signature_delta'), signature: z.string() }),
      z.object({ type: z.literal('input_json_delta'), partial_json: z.string() }),
    ]),
  }),
  z.object({ type: z.literal('content_block_stop'), index: z.number() }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.object({ stop_reason: z.enum(['end_turn', 'tool_use']), stop_sequence: z.null() }),
    usage: z.object({ output_tokens: z.number().int().positive() }),
  }),
  z.object({ type: z.literal('message_stop') }),
  ErrorShape.pick({ error: true }).extend({ type: z.literal('error') }),
]);
type Event = z.infer<typeof Event>;
const Message = z.object({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(Block),
  stop_reason: z.enum(['end_turn', 'tool_use']),
  stop_sequence: z.null(),
  usage: Usage,
});
type Block = z.infer<typeof Block>;

/** SSE frames: each `event:` name must match its data's `type`. */
function parseSse(text: string): Event[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim())
    .map((frame) => {
      const lines = frame.split('\n');
      const name = lines.find((l) => l.startsWith('event: '))?.slice('event: '.length);
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice('data: '.length))
        .join('\n');
      const event = Event.parse(JSON.parse(data));
      expect(name).toBe(event.type);
      return event;
    });
}

/** Checks the stream's grammar and folds it into the message it streams. */
function assemble(events: Event[]): { blocks: Block[]; stopReason: string; outputTokens: number } {
  expect(events[0]?.type).toBe('message_start');
  expect(events.at(-1)?.type).toBe('message_stop');
  expect(events.at(-2)?.type).toBe('message_delta');
  const blocks: Block[] = [];
  const json: string[] = [];
  let open: number | null = null;
  let stopReason = '';
  let outputTokens = 0;
  for (const event of events.slice(1, -1)) {
    switch (event.type) {
      case 'content_block_start':
        expect(open).toBeNull();
        expect(event.index).toBe(blocks.length);
        open = event.index;
        blocks.push({ ...event.content_block });
        json[event.index] = '';
        break;
      case 'content_block_delta': {
        expect(event.index).toBe(open);
        const block = blocks[event.index]!;
        const d = event.delta;
        if (d.type === 'text_delta' && block.type === 'text') block.text += d.text;
        else if (d.type === 'thinking_delta' && block.type === 'thinking') block.thinking += d.thinking;
        else if (d.type === 'signature_delta' && block.type === 'thinking') block.signature += d.signature;
        else if (d.type === 'input_json_delta' && block.type === 'tool_use') json[event.index] += d.partial_json;
        else throw new Error(`a ${d.type} in a ${block.type} block`);
        break;
      }
      case 'content_block_stop': {
        expect(event.index).toBe(open);
        const block = blocks[event.index]!;
        if (block.type === 'tool_use') block.input = JSON.parse(json[event.index]!);
        open = null;
        break;
      }
      case 'message_delta':
        expect(open).toBeNull();
        stopReason = event.delta.stop_reason;
        outputTokens = event.usage.output_tokens;
        break;
      case 'ping':
        break;
      default:
        throw new Error(`unexpected ${event.type} inside the message`);
    }
  }
  return { blocks, stopReason, outputTokens };
}

const model = new ScriptedMessagesServer();
beforeAll(async () => {
  await model.start();
});
afterEach(() => model.reset());
afterAll(() => model.stop());

const request = (over: Record<string, unknown> = {}) => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'hello there' }],
  ...over,
});

const post = (path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${model.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'sk-ant-dummy-secret',
      authorization: 'Bearer dummy-secret',
      'anthropic-version': '2023-06-01',
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });

async function streamed(turn: MessagesTurn | null, over: Record<string, unknown> = {}) {
  if (turn) model.enqueue(turn);
  const res = await post('/v1/messages', request({ stream: true, ...over }));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return parseSse(await res.text());
}

async function complete(turn: MessagesTurn, over: Record<string, unknown> = {}) {
  model.enqueue(turn);
  const res = await post('/v1/messages', request(over));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return Message.parse(await res.json());
}

describe('scripted Messages-API model server over loopback HTTP', () => {
  it('streams a text reply as a valid SSE sequence, in order, on its chunks', async () => {
    const events = await streamed({ kind: 'text', text: 'Hello from Claude.', chunks: ['Hel', 'lo from ', 'Claude.'] });
    expect(events.map((e) => (e.type === 'content_block_delta' ? `delta:${e.delta.type}` : e.type))).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'delta:text_delta',
      'delta:text_delta',
      'delta:text_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const first = events[0]!;
    expect(first.type === 'message_start' && first.message.model).toBe('claude-sonnet-4-5');
    const { blocks, stopReason } = assemble(events);
    expect(blocks).toEqual([{ type: 'text', text: 'Hello from Claude.' }]);
    expect(stopReason).toBe('end_turn');
  });

  it('streams thinking before the text, with its signature, word by word', async () => {
    const events = await streamed({ kind: 'text', text: 'The answer is 4.', thinking: 'two plus two is four' });
    const { blocks, stopReason } = assemble(events);
    expect(blocks.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(blocks[0]).toMatchObject({ thinking: 'two plus two is four', signature: expect.stringMatching(/.+/) });
    expect(blocks[1]).toEqual({ type: 'text', text: 'The answer is 4.' });
    expect(events.filter((e) => e.type === 'content_block_delta' && e.delta.type === 'text_delta')).toHaveLength(4);
    expect(stopReason).toBe('end_turn');
  });

  it('streams a tool_use as input_json_deltas that parse to its input, ending with stop_reason tool_use', async () => {
    const input = { command: 'echo "hi there" && ls -la', description: 'Say hi and list files' };
    const events = await streamed({ kind: 'tool_use', name: 'Bash', input, id: 'toolu_bash1', text: 'Let me run it.' });
    const deltas = events.filter((e) => e.type === 'content_block_delta' && e.delta.type === 'input_json_delta');
    expect(deltas.length).toBeGreaterThan(1);
    const { blocks, stopReason } = assemble(events);
    expect(blocks).toEqual([
      { type: 'text', text: 'Let me run it.' },
      { type: 'tool_use', id: 'toolu_bash1', name: 'Bash', input },
    ]);
    const start = events.find((e) => e.type === 'content_block_start' && e.content_block.type === 'tool_use');
    expect(start?.type === 'content_block_start' && start.content_block).toEqual({
      type: 'tool_use',
      id: 'toolu_bash1',
      name: 'Bash',
      input: {},
    });
    expect(stopReason).toBe('tool_use');
  });

  it('answers the same turns without streaming with the complete message JSON', async () => {
    const turn: MessagesTurn = {
      kind: 'tool_uses',
      thinking: 'two files',
      uses: [
        { name: 'Write', input: { file_path: '/tmp/a.md', content: '# A\n' }, id: 'toolu_a' },
        { name: 'Write', input: { file_path: '/tmp/b.md', content: '# B\n' } },
      ],
    };
    const message = await complete(turn);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.map((b) => b.type)).toEqual(['thinking', 'tool_use', 'tool_use']);
    expect(message.content[1]).toEqual({ type: 'tool_use', id: 'toolu_a', name: 'Write', input: turn.uses[0]!.input });
    expect(message.content[2]).toMatchObject({ type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'Write' });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);

    // The streamed form of the same turn folds into the same content (ids aside).
    const streamedBlocks = assemble(await streamed(turn)).blocks;
    const withoutIds = (blocks: Block[]) => blocks.map((b) => (b.type === 'tool_use' ? { ...b, id: '' } : b));
    expect(withoutIds(streamedBlocks)).toEqual(withoutIds(message.content));

    const text = await complete({ kind: 'text', text: 'Just text.' });
    expect(text.content).toEqual([{ type: 'text', text: 'Just text.' }]);
    expect(text.stop_reason).toBe('end_turn');
  });

  it("answers an error turn with its status and Anthropic's error shape", async () => {
    model.enqueue(
      { kind: 'error', status: 529 },
      { kind: 'error', status: 429, message: 'slow down', shouldRetry: false, retryAfterSeconds: 7 },
      { kind: 'error', status: 500, message: 'the model is on fire' },
    );
    const overloaded = await post('/v1/messages', request({ stream: true }));
    expect(overloaded.status).toBe(529);
    expect(ErrorShape.parse(await overloaded.json()).error.type).toBe('overloaded_error');
    const limited = await post('/v1/messages', request());
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-should-retry')).toBe('false');
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(ErrorShape.parse(await limited.json()).error).toEqual({ type: 'rate_limit_error', message: 'slow down' });
    const failed = await post('/v1/messages', request());
    expect(failed.status).toBe(500);
    expect(ErrorShape.parse(await failed.json()).error).toEqual({ type: 'api_error', message: 'the model is on fire' });
  });

  it('fails a stream midway with an error event, and the non-streaming retry with its status', async () => {
    model.enqueue({ kind: 'stream_error', text: 'Half an ans' });
    const res = await post('/v1/messages', request({ stream: true }));
    expect(res.status).toBe(200);
    const events = parseSse(await res.text());
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'error',
    ]);
    const last = events.at(-1)!;
    expect(last.type === 'error' && last.error.type).toBe('overloaded_error');

    model.enqueue({ kind: 'stream_error' });
    const retry = await post('/v1/messages', request());
    expect(retry.status).toBe(529);
    expect(ErrorShape.parse(await retry.json()).error.type).toBe('overloaded_error');
  });

  it('replays raw events to a stream, and their scripted message (or a 500) without streaming', async () => {
    const raw = [
      {
        type: 'message_start',
        message: {
          id: 'msg_raw',
          type: 'message',
          role: 'assistant',
          model: 'm',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } },
      { type: 'message_stop' },
    ];
    const message = {
      id: 'msg_raw',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    };
    const events = await streamed({ kind: 'events', events: raw });
    expect(events).toEqual(raw);
    expect(await complete({ kind: 'events', events: raw, message })).toEqual(message);
    model.enqueue({ kind: 'events', events: raw });
    const missing = await post('/v1/messages', request());
    expect(missing.status).toBe(500);
    expect(ErrorShape.parse(await missing.json()).error.type).toBe('api_error');
  });

  it('refuses a malformed body with a 400 in the error shape and keeps serving', async () => {
    model.enqueue({ kind: 'text', text: 'Still here.' });
    const notJson = await post('/v1/messages', '{"model": ');
    expect(notJson.status).toBe(400);
    expect(ErrorShape.parse(await notJson.json()).error.type).toBe('invalid_request_error');
    const noMaxTokens = await post('/v1/messages', { model: 'claude-sonnet-4-5', messages: [] });
    expect(noMaxTokens.status).toBe(400);
    expect(ErrorShape.parse(await noMaxTokens.json()).error.message).toMatch(/max_tokens/);
    // The agent sends `system` messages for some models: only roles the API has are accepted.
    const badRole = await post('/v1/messages', request({ messages: [{ role: 'tool', content: 'x' }] }));
    expect(badRole.status).toBe(400);
    const notAnObject = await post('/v1/messages', [1, 2, 3]);
    expect(notAnObject.status).toBe(400);

    // The refused requests took no turn: the scripted one is still next.
    expect(assemble(await streamed(null)).blocks).toEqual([{ type: 'text', text: 'Still here.' }]);
    expect(model.requests.filter((r) => r.rejected)).toHaveLength(4);
    expect(model.messageRequests).toHaveLength(1);
  });

  it('records what it was asked: path, query, headers without secrets, body', async () => {
    model.enqueue({ kind: 'text', text: 'ok' });
    const body = request({ system: 'You are Claude Code.', tools: [{ name: 'Bash', input_schema: {} }] });
    const res = await post('/v1/messages?beta=true', body);
    expect(res.status).toBe(200);
    await model.waitForRequests(1);
    const [recorded] = model.requests;
    expect(recorded).toMatchObject({ method: 'POST', path: '/v1/messages', query: 'beta=true', body });
    expect(recorded!.headers['x-api-key']).toBe('[redacted]');
    expect(recorded!.headers.authorization).toBe('[redacted]');
    expect(recorded!.headers['anthropic-version']).toBe('2023-06-01');
    expect(JSON.stringify(model.requests)).not.toMatch(/secret/);
    expect(model.messageRequests[0]!.body.tools).toEqual([{ name: 'Bash', input_schema: {} }]);
  });

  it('answers count_tokens, model listing and HEAD/GET probes, and records them', async () => {
    const counted = await post('/v1/messages/count_tokens', { model: 'claude-sonnet-4-5', messages: [] });
    expect(counted.status).toBe(200);
    expect(z.object({ input_tokens: z.number().int().positive() }).parse(await counted.json())).toBeTruthy();
    const head = await fetch(`${model.baseUrl}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const models = await fetch(`${model.baseUrl}/v1/models`);
    expect(models.status).toBe(200);
    const listed = z
      .object({ data: z.array(z.object({ type: z.literal('model'), id: z.string() })).min(1) })
      .parse(await models.json());
    expect(listed.data.length).toBeGreaterThan(0);
    const unknown = await fetch(`${model.baseUrl}/v1/nothing`);
    expect(unknown.status).toBe(404);
    expect(ErrorShape.parse(await unknown.json()).error.type).toBe('not_found_error');
    expect(model.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/messages/count_tokens',
      'HEAD /',
      'GET /v1/models',
      'GET /v1/nothing',
    ]);
    expect(model.messageRequests).toHaveLength(0);
  });

  it('hangs after message_start until the client goes away, and keeps serving', async () => {
    model.enqueue({ kind: 'hang', text: 'thinking about it' }, { kind: 'silent' });
    const abort = new AbortController();
    const res = await post('/v1/messages', request({ stream: true }), abort.signal);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('event: message_start')) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      seen += new TextDecoder().decode(value);
    }
    abort.abort();
    await expect(reader.read()).rejects.toThrow();

    const silentAbort = new AbortController();
    const silent = post('/v1/messages', request(), silentAbort.signal);
    await model.waitForRequests(2);
    silentAbort.abort();
    await expect(silent).rejects.toThrow();

    expect(assemble(await streamed({ kind: 'text', text: 'Back.' })).blocks).toEqual([{ type: 'text', text: 'Back.' }]);
  });

  it('answers side requests with the fallback without taking a scripted turn', async () => {
    const server = await new ScriptedMessagesServer(offlineMessagesResponder(), {
      isSideRequest: (r) => r.body.max_tokens === 1,
    }).start();
    try {
      server.enqueue({ kind: 'text', text: 'Scripted.' });
      const side = await fetch(`${server.baseUrl}/v1/messages`, {
        method: 'POST',
        body: JSON.stringify(request({ max_tokens: 1, messages: [{ role: 'user', content: 'quota' }] })),
      });
      expect(Message.parse(await side.json()).content).toEqual([
        { type: 'text', text: '(offline scripted model) I received: quota' },
      ]);
      const main = await fetch(`${server.baseUrl}/v1/messages`, { method: 'POST', body: JSON.stringify(request()) });
      expect(Message.parse(await main.json()).content).toEqual([{ type: 'text', text: 'Scripted.' }]);
      expect(server.messageRequests).toHaveLength(1);
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.stop();
    }
  });

  it('echoes the last user text word by word when nothing is scripted', async () => {
    const events = await streamed(null, {
      messages: [
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: [{ type: 'text', text: 'first answer' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>\nignore me\n</system-reminder>' },
            { type: 'text', text: 'say something nice' },
          ],
        },
      ],
    });
    const text = '(offline scripted model) I received: say something nice';
    expect(assemble(events).blocks).toEqual([{ type: 'text', text }]);
    const deltas = events.filter((e) => e.type === 'content_block_delta');
    expect(deltas).toHaveLength(text.split(' ').length);
  });
});

describe("the scenario kit's model steps in Claude's terms", () => {
  it('translates the steps that have a Claude form', () => {
    const steps: ModelStep[] = [
      { kind: 'text', text: 'Hi.', reasoning: ['first', 'second'] },
      { kind: 'command', command: 'echo hi', needsApproval: true, callId: 'call_echo' },
      { kind: 'add_file', path: 'notes.md', content: '# Notes\n', callId: 'call_patch' },
      { kind: 'todo', steps: [{ step: 'Write it', status: 'in_progress' }], callId: 'call_plan' },
      {
        kind: 'questions',
        questions: [
          {
            id: 'lang',
            header: 'Language',
            question: 'Which language?',
            options: [
              { label: 'TypeScript', description: 'typed' },
              { label: 'Rust', description: 'fast' },
            ],
          },
        ],
      },
      { kind: 'mcp_call', server: 'echo', tool: 'echo', args: { text: 'hi' }, callId: 'call_mcp' },
      { kind: 'error', status: 500, message: 'the model is on fire' },
      { kind: 'hang' },
    ];
    expect(claudeModel(steps, { cwd: '/work/session' })).toEqual([
      { kind: 'text', text: 'Hi.', thinking: 'first\n\nsecond' },
      { kind: 'tool_use', name: 'Bash', id: 'call_echo', input: { command: 'echo hi' } },
      {
        kind: 'tool_use',
        name: 'Write',
        id: 'call_patch',
        input: { file_path: '/work/session/notes.md', content: '# Notes\n' },
      },
      {
        kind: 'tool_use',
        name: 'TodoWrite',
        id: 'call_plan',
        input: { todos: [{ content: 'Write it', status: 'in_progress', activeForm: 'Write it' }] },
      },
      {
        kind: 'tool_use',
        name: 'AskUserQuestion',
        input: {
          questions: [
            {
              question: 'Which language?',
              header: 'Language',
              options: [
                { label: 'TypeScript', description: 'typed' },
                { label: 'Rust', description: 'fast' },
              ],
              multiSelect: false,
            },
          ],
        },
      },
      { kind: 'tool_use', name: 'mcp__echo__echo', id: 'call_mcp', input: { text: 'hi' } },
      { kind: 'error', status: 500, message: 'the model is on fire', shouldRetry: false },
      { kind: 'hang' },
    ]);
  });

  it('says clearly when a step has no Claude form yet', () => {
    const free = { kind: 'questions' as const, questions: [{ id: 'free', header: 'Name', question: 'Your name?' }] };
    expect(() => claudeModel([free])).toThrow(NoClaudeFormError);
    expect(() =>
      claudeModel([{ kind: 'questions', questions: [{ id: 'free', header: 'Name', question: 'Your name?' }] }]),
    ).toThrow(/no Claude form yet.*2 to 4 options/);
  });

  it('plays every translated turn through the server', async () => {
    const turns = claudeModel([
      { kind: 'command', command: 'ls', callId: 'call_ls' },
      { kind: 'todo', steps: [{ step: 'Check', status: 'pending' }], callId: 'call_todo' },
    ]);
    for (const turn of turns) {
      if (typeof turn === 'function') throw new Error('these steps translate to plain turns');
      const { blocks, stopReason } = assemble(await streamed(turn));
      expect(stopReason).toBe('tool_use');
      expect(blocks[0]).toMatchObject({ type: 'tool_use', id: turn.kind === 'tool_use' ? turn.id : '' });
    }
  });
});
