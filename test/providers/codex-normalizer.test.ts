import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProviderSessionId, ThreadId } from '../../src/domain/ids.js';
import type { ProviderEvent } from '../../src/domain/provider-events.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { createCodexNormalizer, type CodexNormalizer } from '../../src/providers/codex/codex-normalizer.js';
import { readTranscript } from '../../src/providers/transport/transcript.js';

/**
 * The Codex normalizer on its own: Codex frames in (recorded off the real binary, or
 * hand-written to the protocol), Baton's provider events out. No adapter, no runtime.
 */
const transcripts = fileURLToPath(new URL('../fixtures/transcripts/codex/', import.meta.url));
const threadId = ThreadId.parse('thr_norm');
/** What the test reads of a recorded frame: its method, or the thread a thread/start response names. */
const InboundFrame = z
  .object({
    method: z.string().optional(),
    result: z
      .object({ thread: z.object({ id: z.string() }).optional() })
      .loose()
      .optional(),
  })
  .loose();
const sessionId = ProviderSessionId.parse('psess_norm');

/** A normalizer for one app thread, with a turn start in flight (as the adapter leaves it before turn/start). */
function normalizer(nativeThreadId: string | null = null) {
  const ids = new SequentialIds('t');
  const n = createCodexNormalizer({ threadId, sessionId, ids });
  n.nativeThreadId = nativeThreadId;
  const ref = { runId: ids.next('run'), attemptId: ids.next('attempt'), rootNodeId: ids.next('node') };
  n.pendingStart = ref;
  return { n, ref };
}

/** Feeds a transcript's inbound frames as the adapter does: notifications and server requests to the normalizer; the thread/start response names the native thread. */
function replay(name: string): {
  events: ProviderEvent[];
  n: CodexNormalizer;
  ref: ReturnType<typeof normalizer>['ref'];
} {
  const { n, ref } = normalizer();
  const events: ProviderEvent[] = [];
  for (const entry of readTranscript(join(transcripts, `${name}.ndjson`)).entries) {
    if (entry.kind !== 'emit_inbound' || !entry.frame) continue;
    const frame = InboundFrame.parse(entry.frame);
    if (frame.method !== undefined) events.push(...n.normalize(entry.frame));
    else if (frame.result?.thread) n.nativeThreadId = frame.result.thread.id;
  }
  return { events, n, ref };
}

const on = { threadId, runId: 'run_t1' };

describe('the Codex normalizer, fed recorded frames', () => {
  it('a simple turn: started, the message streamed delta by delta, completed', () => {
    const { events, n } = replay('simple');
    const nativeTurn = n.nativeTurnOf('att_t1');
    expect(nativeTurn).toMatch(/^[0-9a-f-]{36}$/);
    expect(events).toEqual([
      { type: 'session.status', threadId, sessionId, provider: 'codex', status: 'running', reason: null },
      { type: 'turn.started', ...on, attemptId: 'att_t1', nodeId: 'node_t1', nativeTurnRef: nativeTurn },
      ...['Hello ', 'from ', 'Codex, ', 'offline.'].map((delta) => ({
        type: 'message.delta',
        ...on,
        nodeId: 'node_t1',
        messageId: 'msg_t1',
        delta,
      })),
      { type: 'message.completed', ...on, nodeId: 'node_t1', messageId: 'msg_t1', text: 'Hello from Codex, offline.' },
      { type: 'session.status', threadId, sessionId, provider: 'codex', status: 'ready', reason: null },
      { type: 'turn.completed', ...on, attemptId: 'att_t1', nodeId: 'node_t1', status: 'completed', error: null },
    ]);
    expect(n.unknown).toBe(0);
  });

  it('a command: its tool node starts with a title and detail, streams output, gets exit code and completes', () => {
    const { events } = replay('command_output');
    const tool = events.filter((e) => 'nodeId' in e && e.nodeId === 'node_t2');
    expect(tool.map((e) => e.type)).toEqual([
      'node.started',
      'node.detail',
      'node.delta',
      'node.detail',
      'node.completed',
    ]);
    expect(tool[0]).toEqual({
      type: 'node.started',
      ...on,
      nodeId: 'node_t2',
      parentNodeId: 'node_t1',
      attemptId: 'att_t1',
      kind: 'tool_call',
      // The script, as the model wrote it, not the login shell Codex runs it in.
      title: 'echo hello from exec; sleep 1; echo and done',
    });
    expect(tool[1]).toMatchObject({
      detail: {
        tool: 'command',
        command: 'echo hello from exec; sleep 1; echo and done',
        commandLine: "/bin/bash -lc 'echo hello from exec; sleep 1; echo and done'",
      },
    });
    expect(tool[2]).toEqual({ type: 'node.delta', ...on, nodeId: 'node_t2', delta: 'and done\n' });
    expect(tool[3]).toMatchObject({
      type: 'node.detail',
      text: null,
      detail: { exitCode: 0, durationMs: 997, output: expect.stringContaining('hello from exec\nand done\n') },
    });
    expect(tool[4]).toEqual({ type: 'node.completed', ...on, nodeId: 'node_t2', status: 'completed' });
  });

  it('an approval: the request opens under its command node, then Codex closes it', () => {
    const { events, n } = replay('approval_request');
    const opened = events.find((e) => e.type === 'request.opened');
    expect(opened).toMatchObject({
      ...on,
      requestId: 'req_t1',
      nodeId: 'node_t3',
      parentNodeId: 'node_t2',
      kind: 'command',
      prompt: 'echo approved > proof.txt',
      providerSessionId: sessionId,
    });
    expect(events.filter((e) => e.type === 'session.status').map((e) => e.status)).toEqual([
      'running',
      'waiting',
      'running',
      'ready',
    ]);
    expect(events.find((e) => e.type === 'request.closed')).toEqual({
      type: 'request.closed',
      threadId,
      requestId: 'req_t1',
      reason: 'resolved by the provider',
    });
    expect(n.requests.size).toBe(0);
  });

  it('structured questions: a user-input request and a questions artifact on its node', () => {
    const { events } = replay('user_input_request');
    const opened = events.find((e) => e.type === 'request.opened');
    expect(opened).toMatchObject({
      kind: 'user_input',
      prompt: 'Which language should I use?',
      nodeId: 'node_t2',
      parentNodeId: 'node_t1',
    });
    const asked = events.find((e) => e.type === 'plan.updated');
    expect(asked).toMatchObject({
      nodeId: 'node_t2',
      kind: 'questions',
      questions: [
        {
          id: 'lang',
          header: 'Language',
          question: 'Which language should I use?',
          options: [
            { label: 'TypeScript', description: 'typed' },
            { label: 'Rust', description: 'fast' },
          ],
        },
      ],
    });
  });

  it('reasoning: a reasoning node whose summary parts stream as paragraphs', () => {
    const { events } = replay('reasoning');
    const reasoning = events.filter((e) => 'nodeId' in e && e.nodeId === 'node_t2');
    expect(reasoning[0]).toMatchObject({ type: 'node.started', kind: 'reasoning', title: null });
    const streamed = reasoning.flatMap((e) => (e.type === 'node.delta' ? [e.delta] : [])).join('');
    expect(streamed).toBe('Weighing the options.\n\nPicking the simplest one.');
    expect(reasoning.find((e) => e.type === 'node.detail')).toMatchObject({ text: streamed });
    expect(reasoning.at(-1)).toEqual({ type: 'node.completed', ...on, nodeId: 'node_t2', status: 'completed' });
  });
});

/** A notification and a server request, as frames off the wire. */
const note = (n: CodexNormalizer, method: string, params: unknown) => n.normalize({ method, params });
const ask = (n: CodexNormalizer, id: number, method: string, params: unknown) => n.normalize({ id, method, params });

describe('the Codex normalizer, fed hand-written frames', () => {
  const thread = 'nthr_1';
  const turn = (status = 'inProgress', error: { message: string } | null = null) => ({
    threadId: thread,
    turn: { id: 'nturn_1', status, error },
  });

  it('a todo plan: one plan artifact per turn, its steps mapped', () => {
    const { n } = normalizer(thread);
    note(n, 'turn/started', turn());
    const steps = [
      { step: 'read', status: 'completed' },
      { step: 'fix', status: 'inProgress' },
      { step: 'ship', status: 'pending' },
    ];
    const first = note(n, 'turn/plan/updated', { threadId: thread, turnId: 'nturn_1', explanation: null, plan: steps });
    const again = note(n, 'turn/plan/updated', { threadId: thread, turnId: 'nturn_1', plan: steps.slice(0, 1) });
    expect(first).toEqual([
      {
        type: 'plan.updated',
        ...on,
        nodeId: 'node_t1',
        planId: 'plan_t1',
        kind: 'todo_list',
        text: null,
        steps: [
          { text: 'read', status: 'completed' },
          { text: 'fix', status: 'in_progress' },
          { text: 'ship', status: 'pending' },
        ],
      },
    ]);
    expect(again).toMatchObject([{ planId: 'plan_t1', steps: [{ text: 'read', status: 'completed' }] }]);
  });

  it('a failed turn carries the provider error', () => {
    const { n } = normalizer(thread);
    note(n, 'turn/started', turn());
    expect(note(n, 'turn/completed', turn('failed', { message: 'the model is on fire' }))).toEqual([
      {
        type: 'turn.completed',
        ...on,
        attemptId: 'att_t1',
        nodeId: 'node_t1',
        status: 'failed',
        error: { code: 'provider_error', message: 'the model is on fire' },
      },
    ]);
  });

  it("Codex's error notification becomes a warning on the run", () => {
    const { n } = normalizer(thread);
    note(n, 'turn/started', turn());
    expect(
      note(n, 'error', { threadId: thread, turnId: 'nturn_1', error: { message: 'stream dropped' }, willRetry: true }),
    ).toEqual([{ type: 'warning', ...on, message: 'Codex: stream dropped (retrying)' }]);
  });

  it('frames that do not match the protocol produce nothing; unknown methods are counted', () => {
    const { n } = normalizer(thread);
    note(n, 'turn/started', turn());
    expect(n.normalize('this is not a frame')).toEqual([]);
    expect(n.normalize({ neither: 'request nor response' })).toEqual([]);
    expect(note(n, 'item/agentMessage/delta', { threadId: thread, turnId: 'nturn_1', delta: 'no item id' })).toEqual(
      [],
    );
    expect(note(n, 'turn/completed', { threadId: thread, turn: 'not an object' })).toEqual([]);
    expect(n.unknown).toBe(0);
    expect(note(n, 'totally/unknown', { x: 1 })).toEqual([]);
    expect(ask(n, 7, 'item/unheardOf/requestApproval', { threadId: thread, turnId: 'nturn_1', itemId: 'i' })).toEqual(
      [],
    );
    expect(n.unknown).toBe(2);
  });

  it('frames of another Codex thread, or of a turn nobody started, produce nothing', () => {
    const { n } = normalizer(thread);
    expect(note(n, 'turn/started', { ...turn(), threadId: 'nthr_other' })).toEqual([]);
    expect(n.pendingStart).not.toBeNull();
    note(n, 'turn/started', turn());
    expect(n.pendingStart).toBeNull();
    // With no start in flight, a turn Codex names that Baton never asked for is not bound to a run.
    const stray = { threadId: thread, turnId: 'nturn_stray', itemId: 'msg_x', delta: 'hi' };
    expect(note(n, 'item/agentMessage/delta', stray)).toEqual([]);
    expect(note(n, 'turn/completed', { threadId: thread, turn: { id: 'nturn_stray', status: 'completed' } })).toEqual(
      [],
    );
    expect(
      ask(n, 8, 'item/commandExecution/requestApproval', { threadId: thread, turnId: 'nturn_stray', itemId: 'i' }),
    ).toEqual([]);
    expect(note(n, 'serverRequest/resolved', { threadId: thread, requestId: 99 })).toEqual([]);
  });
});
