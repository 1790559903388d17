import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ProviderSessionId, ProviderThreadId, ThreadId } from '../../src/domain/ids.js';
import type { ProviderEvent } from '../../src/domain/provider-events.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { createClaudeNormalizer, type ClaudeTurnRef } from '../../src/providers/claude/claude-normalizer.js';

/**
 * The Claude normalizer on its own: SDK messages recorded off the real agent (three turns
 * of one session, test/fixtures/claude/sdk-messages.json) in, Baton's provider events out.
 * No adapter, no runtime.
 */
const Recorded = z.object({ turns: z.array(z.array(z.unknown())).length(3) });
const { turns } = Recorded.parse(
  JSON.parse(readFileSync(new URL('../fixtures/claude/sdk-messages.json', import.meta.url), 'utf8')),
);
const threadId = ThreadId.parse('thr_norm');
const sessionId = ProviderSessionId.parse('psess_norm');
const providerThreadId = ProviderThreadId.parse('pthr_norm');
const SESSION = 'e064b090-81d6-4bc6-9841-9822493be26f';
const uuid = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;

function setup() {
  const ids = new SequentialIds('t');
  const n = createClaudeNormalizer({ threadId, sessionId, ids });
  const ref = (i: number): ClaudeTurnRef => ({
    runId: ids.next('run'),
    attemptId: ids.next('attempt'),
    rootNodeId: ids.next('node'),
    uuid: uuid(i),
    providerThreadId,
  });
  return { n, ref };
}

/** The events of one recorded turn, as their types (message and node events with what they say). */
const brief = (events: ProviderEvent[]) =>
  events.map((e) =>
    e.type === 'message.delta'
      ? `delta ${e.messageId} ${e.delta}`
      : e.type === 'message.completed'
        ? `message ${e.messageId} ${e.text}`
        : e.type === 'session.status'
          ? `session ${e.status}`
          : e.type === 'turn.completed'
            ? `end ${e.status}`
            : e.type === 'node.started'
              ? `tool ${e.title}`
              : e.type === 'node.completed'
                ? `tool ${e.status}`
                : e.type,
  );

describe('the Claude normalizer, on recorded SDK messages', () => {
  it('a text turn: started by its own message, streamed, completed whole, ended by the result; the session id loaded once', () => {
    const { n, ref } = setup();
    const one = ref(1);
    n.begin(one, null);
    const events = turns[0]!.flatMap((m) => n.normalize(m));
    expect(brief(events)).toEqual([
      'turn.started',
      'session running',
      'thread.loaded',
      'delta msg_t1 Hello ',
      'delta msg_t1 there.',
      'message msg_t1 Hello there.',
      'end completed',
      'session ready',
    ]);
    expect(events[0]).toEqual({
      type: 'turn.started',
      threadId,
      runId: one.runId,
      attemptId: one.attemptId,
      nodeId: one.rootNodeId,
      nativeTurnRef: uuid(1),
    });
    expect(events[2]).toEqual({
      type: 'thread.loaded',
      threadId,
      providerThreadId,
      nativeThreadRef: SESSION,
      resumeCursor: SESSION,
    });
    expect(events.at(-2)).toMatchObject({
      type: 'turn.completed',
      attemptId: one.attemptId,
      status: 'completed',
      error: null,
    });
    expect(n.nativeSessionId).toBe(SESSION);
  });

  it("a tool turn: the tool_use is a tool node with its input, its tool_result completes it with the output; the previous turn's late frames begin nothing", () => {
    const { n, ref } = setup();
    n.begin(ref(1), null);
    turns[0]!.forEach((m) => n.normalize(m));
    const two = ref(2);
    n.begin(two, SESSION);
    const events = turns[1]!.flatMap((m) => n.normalize(m));
    expect(brief(events)).toEqual([
      'turn.started',
      'session running',
      'tool echo made > made.txt',
      'node.detail',
      'node.detail',
      'tool completed',
      'delta msg_t2 Made ',
      'delta msg_t2 it.',
      'message msg_t2 Made it.',
      'end completed',
      'session ready',
    ]);
    // Begun by the agent starting Baton's message, not by the first turn's `completed` frame before it.
    const started = events[0];
    expect(started).toMatchObject({ type: 'turn.started', attemptId: two.attemptId, nativeTurnRef: uuid(2) });
    const [, , tool, input, output] = events;
    expect(tool).toMatchObject({ kind: 'tool_call', parentNodeId: two.rootNodeId, attemptId: two.attemptId });
    expect(input).toMatchObject({
      detail: {
        tool: 'command',
        name: 'Bash',
        command: 'echo made > made.txt',
        toolUseId: 'toolu_rec01',
        input: { command: 'echo made > made.txt' },
      },
    });
    // The result is the node's output, as a Codex command's; the node's text stays its command.
    expect(output).toMatchObject({ text: null, detail: { isError: false, output: '(Bash completed with no output)' } });
  });

  it("a stream that failed midway: the retry's whole reply completes the message its partial deltas began", () => {
    const { n, ref } = setup();
    n.begin(ref(1), null);
    turns[0]!.forEach((m) => n.normalize(m));
    n.begin(ref(2), SESSION);
    turns[1]!.forEach((m) => n.normalize(m));
    n.begin(ref(3), SESSION);
    const events = turns[2]!.flatMap((m) => n.normalize(m));
    expect(brief(events)).toEqual([
      'turn.started',
      'session running',
      'delta msg_t3 partial ',
      'message msg_t3 The whole answer.',
      'end completed',
      'session ready',
    ]);
  });

  it('an error result ends the turn failed with the error; after an interrupt, interrupted with none', () => {
    const result = (subtype: string, extra: Record<string, unknown> = {}) => ({
      type: 'result',
      subtype,
      is_error: subtype !== 'success',
      session_id: SESSION,
      ...extra,
    });
    const init = { type: 'system', subtype: 'init', session_id: SESSION };
    const { n, ref } = setup();
    n.begin(ref(1), SESSION);
    const failed = [init, result('success', { is_error: true, result: 'API Error: 500 the model is on fire' })].flatMap(
      (m) => n.normalize(m),
    );
    expect(failed.find((e) => e.type === 'turn.completed')).toMatchObject({
      status: 'failed',
      error: { code: 'provider_error', message: 'Claude: API Error: 500 the model is on fire' },
    });
    n.begin(ref(2), SESSION);
    n.normalize(init);
    n.interruptRequested = true;
    const interrupted = n.normalize(result('error_during_execution', { errors: [] }));
    expect(interrupted.find((e) => e.type === 'turn.completed')).toMatchObject({ status: 'interrupted', error: null });
    // No turn is pending: frames begin nothing, and what is not an SDK message is counted.
    expect(n.normalize(init)).toEqual([]);
    expect(n.normalize('garbage')).toEqual([]);
    expect(n.unknown).toBe(1);
  });
});

/** One turn each, recorded off the real agent (test/fixtures/claude/sdk-items.json). */
const Items = z.object({
  thinking: z.array(z.unknown()),
  todo: z.array(z.unknown()),
  plan: z.array(z.unknown()),
  ask: z.array(z.unknown()),
});
const items = Items.parse(
  JSON.parse(readFileSync(new URL('../fixtures/claude/sdk-items.json', import.meta.url), 'utf8')),
);

/** Item events as short lines; the turn's own bookkeeping left out. */
const itemBrief = (events: ProviderEvent[]) =>
  events.flatMap((e) => {
    switch (e.type) {
      case 'node.started':
        return [`start ${e.kind} ${e.title ?? ''}`.trim()];
      case 'node.delta':
        return [`node delta ${e.delta}`];
      case 'node.detail':
        return typeof e.detail['output'] === 'string'
          ? [`output ${JSON.stringify(e.detail['output'])}`]
          : [`detail ${JSON.stringify(e.text)}`];
      case 'node.completed':
        return [`node ${e.status}`];
      case 'message.delta':
        return [`delta ${e.delta}`];
      case 'message.completed':
        return [`message ${e.text}`];
      case 'plan.updated':
        return [`plan ${e.kind}${e.final ? ' final' : ''} ${JSON.stringify(e.text ?? e.steps)}`];
      default:
        return [];
    }
  });

describe('the Claude normalizer, on recorded turn items', () => {
  const turn = (frames: unknown[]) => {
    const { n, ref } = setup();
    const one = ref(1);
    n.begin(one, null);
    return { one, events: frames.flatMap((m) => n.normalize(m)) };
  };

  it('a thinking block is a reasoning node: streamed by its thinking deltas, its whole text from the assistant message, before the answer', () => {
    const { one, events } = turn(items.thinking);
    expect(itemBrief(events)).toEqual([
      'start reasoning',
      'node delta Weighing ',
      'node delta the ',
      'node delta options.\n\nPicking ',
      'node delta the ',
      'node delta simplest ',
      'node delta one.',
      'detail "Weighing the options.\\n\\nPicking the simplest one."',
      'node completed',
      'delta Thought ',
      'delta it ',
      'delta through.',
      'message Thought it through.',
    ]);
    expect(events.find((e) => e.type === 'node.started')).toMatchObject({
      kind: 'reasoning',
      parentNodeId: one.rootNodeId,
      attemptId: one.attemptId,
    });
  });

  it('TodoWrite is no tool node: the list it set is the turn todo list once its result says it ran', () => {
    const { one, events } = turn(items.todo);
    expect(itemBrief(events)).toEqual([
      'plan todo_list [{"text":"read the code","status":"completed"},{"text":"write the fix","status":"in_progress"}]',
      'delta Planned.',
      'message Planned.',
    ]);
    expect(events.find((e) => e.type === 'plan.updated')).toMatchObject({ runId: one.runId, nodeId: one.rootNodeId });
  });

  it("plan mode: the plan file's Write is a tool node; ExitPlanMode's plan (the agent filled it from the file) is a final proposed plan", () => {
    const { one, events } = turn(items.plan);
    const lines = itemBrief(events);
    expect(lines.slice(0, 2)).toEqual(['start tool_call Write', 'detail null']);
    expect(lines.slice(2)).toEqual([
      expect.stringMatching(/^output "File created successfully at: .*\/config\/plans\/go-dynamic-snail\.md/),
      'node completed',
      'plan proposed_plan final "# Add a greeting\\n\\n1. Write hello.txt\\n"',
      'delta Waiting ',
      'delta for ',
      'delta you.',
      'message Waiting for you.',
    ]);
    expect(events.find((e) => e.type === 'plan.updated')).toMatchObject({ runId: one.runId, nodeId: one.rootNodeId });
    // The Write is a file change, as Codex's are: the added file and its content (its tool_use_result).
    const files = events.flatMap((e) => (e.type === 'node.detail' && e.detail['files'] ? [e.detail['files']] : []));
    expect(files).toEqual([
      [
        {
          path: expect.stringMatching(/\/config\/plans\/go-dynamic-snail\.md$/),
          kind: { type: 'add' },
          diff: '# Add a greeting\n\n1. Write hello.txt\n',
        },
      ],
    ]);
  });

  it('AskUserQuestion is no tool node (the permissions make it a user-input request)', () => {
    const { events } = turn(items.ask);
    expect(itemBrief(events)).toEqual(['delta TypeScript ', 'delta it ', 'delta is.', 'message TypeScript it is.']);
  });

  it('a tool error fails its node; a turn that ends mid-thinking keeps what streamed and ends its open nodes interrupted', () => {
    const { n, ref } = setup();
    n.begin(ref(1), SESSION);
    const stream = (event: Record<string, unknown>) => ({ type: 'stream_event', parent_tool_use_id: null, event });
    const frames = [
      { type: 'system', subtype: 'init', session_id: SESSION },
      {
        type: 'assistant',
        parent_tool_use_id: null,
        message: { content: [{ type: 'tool_use', id: 'toolu_x', name: 'Read', input: { file_path: '/nope' } }] },
      },
      {
        type: 'user',
        parent_tool_use_id: null,
        message: {
          content: [{ type: 'tool_result', tool_use_id: 'toolu_x', is_error: true, content: 'no such file' }],
        },
      },
      {
        type: 'assistant',
        parent_tool_use_id: null,
        message: { content: [{ type: 'tool_use', id: 'toolu_y', name: 'Bash', input: { command: 'sleep 9' } }] },
      },
      stream({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }),
      stream({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm' } }),
    ];
    frames.forEach((m) => n.normalize(m));
    n.interruptRequested = true;
    const end = n.normalize({ type: 'result', subtype: 'error_during_execution', session_id: SESSION, errors: [] });
    expect(itemBrief(end)).toEqual(['detail "Hmm"', 'node interrupted', 'node interrupted']);
    const { events } = (() => {
      const s = setup();
      s.n.begin(s.ref(1), SESSION);
      return { events: frames.slice(0, 3).flatMap((m) => s.n.normalize(m)) };
    })();
    expect(itemBrief(events)).toEqual(['start tool_call Read', 'detail null', 'output "no such file"', 'node failed']);
  });
});
