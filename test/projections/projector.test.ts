import { describe, expect, it } from 'vitest';
import {
  MessageId,
  NodeId,
  PlanArtifactId,
  ProviderSessionId,
  RunAttemptId,
  RunId,
  RuntimeRequestId,
  ThreadId,
} from '../../src/domain/ids.js';
import type { Store } from '../../src/persistence/store.js';
import { ProjectionOverlay } from '../../src/projections/overlay.js';
import { project } from '../../src/projections/projector.js';
import { RowCache } from '../../src/projections/row-cache.js';
import { useTempStore } from '../support/store.js';

/**
 * The projector on its own: domain events in, read-model rows out, through the overlay
 * onto a real SQLite store. Each `step` is one committed unit, as a thread actor commits it.
 */
type Projected = Parameters<typeof project>[0];

const openStore = useTempStore();
const threadId = ThreadId.parse('thr_p');
const run1 = RunId.parse('run_1');
const run2 = RunId.parse('run_2');
const root1 = NodeId.parse('node_r1');
const root2 = NodeId.parse('node_r2');
const tool = NodeId.parse('node_tool');
const reasoning = NodeId.parse('node_think');
const here = { threadId, at: 1_000 };

/** The run's tool node `tool` created under its turn, titled `title`. */
const toolCreated = (title: string): Projected => ({
  ...here,
  type: 'node.created',
  payload: {
    threadId,
    node: {
      id: tool,
      runId: run1,
      attemptId: RunAttemptId.parse('att_1'),
      parentNodeId: root1,
      kind: 'tool_call',
      status: 'running',
      countsForRun: false,
      providerThreadId: null,
      providerTurnId: null,
      title,
    },
  },
});

/** A store holding one thread, and a way to commit steps of events onto it. */
function projections(): { store: Store; step: (...events: Projected[]) => void } {
  const { store } = openStore();
  const cache = new RowCache();
  const step = (...events: Projected[]) => {
    const view = new ProjectionOverlay(store.projections, cache);
    for (const event of events) project(event, view);
    store.commit({ projections: view.changes() });
    view.remember();
  };
  step({
    ...here,
    type: 'thread.created',
    payload: {
      thread: {
        id: threadId,
        title: 'T',
        status: 'active',
        provider: 'codex',
        model: null,
        runtimeMode: 'workspace_write',
        interactionMode: 'default',
        workspace: { cwd: '/tmp/ws', branch: null, worktree: null },
        activeProviderThreadId: null,
        lineage: { parentThreadId: null, relationshipToParent: null, rootThreadId: threadId },
        createdAt: 1_000,
      },
    },
  });
  return { store, step };
}

const started = (runId: RunId, ordinal: number, rootNodeId: NodeId): Projected[] => [
  {
    ...here,
    type: 'run.queued',
    payload: {
      threadId,
      runId,
      text: 'go',
      provider: 'codex',
      model: null,
      userMessageId: MessageId.parse(`msg_u${ordinal}`),
      rootNodeId,
      dispatchMode: 'start_immediately',
    },
  },
  {
    ...here,
    type: 'run.started',
    payload: { threadId, runId, ordinal, attemptId: RunAttemptId.parse(`att_${ordinal}`), providerThreadId: null },
  },
];

const assistantMessage = (id: MessageId, runId: RunId, nodeId: NodeId): Projected => ({
  ...here,
  type: 'message.created',
  payload: { message: { id, threadId, runId, nodeId, role: 'assistant', text: '', completed: false } },
});
const delta = (messageId: MessageId, text: string): Projected => ({
  ...here,
  type: 'message.delta',
  payload: { threadId, messageId, delta: text },
});

describe('the projector', () => {
  it('a streamed message is one message row and one turn item holding the whole text', () => {
    const { store, step } = projections();
    const id = MessageId.parse('msg_a');
    step(...started(run1, 1, root1));
    step(assistantMessage(id, run1, root1), delta(id, 'Hello '));
    step(delta(id, 'from '), delta(id, 'Baton'));
    step(delta(id, '.'));
    expect(store.projections.get('messages', id)).toMatchObject({
      text: 'Hello from Baton.',
      completed: false,
      role: 'assistant',
      runId: run1,
    });
    expect(store.projections.get('turn_items', id)).toMatchObject({
      kind: 'assistant_message',
      status: 'streaming',
      text: 'Hello from Baton.',
    });
    step({ ...here, type: 'message.completed', payload: { threadId, messageId: id, text: 'Hello from Baton.' } });
    expect(store.projections.list('messages', threadId)).toEqual([
      {
        id,
        threadId,
        runId: run1,
        nodeId: root1,
        role: 'assistant',
        text: 'Hello from Baton.',
        completed: true,
        rolledBack: false,
      },
    ]);
    expect(store.projections.list('turn_items', threadId)).toEqual([
      {
        id,
        threadId,
        runId: run1,
        nodeId: root1,
        kind: 'assistant_message',
        status: 'completed',
        text: 'Hello from Baton.',
        data: {},
        position: 0,
        rolledBack: false,
      },
    ]);
    expect(store.projections.get('threads', threadId)).toMatchObject({
      runCount: 1,
      activeRunId: run1,
      turnItemCount: 1,
    });
  });

  it('a tool node: created, its output streamed onto its item, its detail merged, its status changed', () => {
    const { store, step } = projections();
    step(...started(run1, 1, root1));
    step(toolCreated('echo hi'));
    step({
      ...here,
      type: 'node.detail',
      payload: { threadId, runId: run1, nodeId: tool, text: null, detail: { tool: 'command', command: 'echo hi' } },
    });
    step(
      { ...here, type: 'node.output', payload: { threadId, runId: run1, nodeId: tool, delta: 'h' } },
      { ...here, type: 'node.output', payload: { threadId, runId: run1, nodeId: tool, delta: 'i\n' } },
    );
    step({
      ...here,
      type: 'node.detail',
      payload: { threadId, runId: run1, nodeId: tool, text: null, detail: { exitCode: 0 } },
    });
    step({ ...here, type: 'node.status-changed', payload: { threadId, runId: run1, nodeId: tool, to: 'completed' } });
    expect(store.projections.get('graph_nodes', tool)).toMatchObject({
      status: 'completed',
      title: 'echo hi',
      detail: { tool: 'command', command: 'echo hi', exitCode: 0 },
    });
    expect(store.projections.get('turn_items', tool)).toMatchObject({
      kind: 'tool_call',
      status: 'completed',
      text: 'echo hi',
      data: { parentNodeId: root1, tool: 'command', exitCode: 0, output: 'hi\n' },
    });
  });

  it("a detail's title renames the node and its item (an ACP tool call opened as Terminal)", () => {
    const { store, step } = projections();
    step(...started(run1, 1, root1));
    step(toolCreated('Terminal'));
    step({
      ...here,
      type: 'node.detail',
      payload: { threadId, runId: run1, nodeId: tool, text: null, detail: { command: 'ls' }, title: 'ls' },
    });
    step({
      ...here,
      type: 'node.detail',
      payload: { threadId, runId: run1, nodeId: tool, text: null, detail: { output: 'a b' } },
    });
    expect(store.projections.get('graph_nodes', tool)).toMatchObject({ title: 'ls', detail: { command: 'ls' } });
    expect(store.projections.get('turn_items', tool)).toMatchObject({ text: 'ls', data: { output: 'a b' } });
  });

  it("a reasoning node streams into its item's text, and its detail's text replaces it", () => {
    const { store, step } = projections();
    step(...started(run1, 1, root1));
    step({
      ...here,
      type: 'node.created',
      payload: {
        threadId,
        node: {
          id: reasoning,
          runId: run1,
          attemptId: null,
          parentNodeId: root1,
          kind: 'reasoning',
          status: 'running',
          countsForRun: false,
          providerThreadId: null,
          providerTurnId: null,
          title: null,
        },
      },
    });
    step(
      { ...here, type: 'node.output', payload: { threadId, runId: run1, nodeId: reasoning, delta: 'Weighing' } },
      { ...here, type: 'node.output', payload: { threadId, runId: run1, nodeId: reasoning, delta: ' it.' } },
    );
    expect(store.projections.get('turn_items', reasoning)).toMatchObject({ kind: 'reasoning', text: 'Weighing it.' });
    step({
      ...here,
      type: 'node.detail',
      payload: { threadId, runId: run1, nodeId: reasoning, text: 'Weighed it.', detail: {} },
    });
    expect(store.projections.get('turn_items', reasoning)!.text).toBe('Weighed it.');
  });

  it('plans: a todo list updated in place, a proposed plan streamed, questions kept without a turn item', () => {
    const { store, step } = projections();
    step(...started(run1, 1, root1));
    const todo = PlanArtifactId.parse('plan_todo');
    const steps = (fix: 'in_progress' | 'completed') => [
      { text: 'read', status: 'completed' as const },
      { text: 'fix', status: fix },
    ];
    step({
      ...here,
      type: 'plan.updated',
      payload: {
        plan: {
          id: todo,
          threadId,
          runId: run1,
          nodeId: root1,
          kind: 'todo_list',
          text: null,
          steps: steps('in_progress'),
          final: false,
        },
      },
    });
    step({
      ...here,
      type: 'plan.updated',
      payload: {
        plan: {
          id: todo,
          threadId,
          runId: run1,
          nodeId: root1,
          kind: 'todo_list',
          text: null,
          steps: steps('completed'),
          final: true,
        },
      },
    });
    expect(store.projections.list('plans', threadId)).toMatchObject([
      { id: todo, kind: 'todo_list', final: true, steps: steps('completed') },
    ]);
    expect(store.projections.get('turn_items', todo)).toMatchObject({
      kind: 'todo_list',
      status: 'final',
      position: 0,
      data: { steps: steps('completed'), planKind: 'todo_list' },
    });

    const proposed = PlanArtifactId.parse('plan_proposed');
    step({
      ...here,
      type: 'plan.updated',
      payload: {
        plan: {
          id: proposed,
          threadId,
          runId: run1,
          nodeId: root1,
          kind: 'proposed_plan',
          text: '',
          steps: [],
          final: false,
        },
      },
    });
    step(
      { ...here, type: 'plan.delta', payload: { threadId, runId: run1, planId: proposed, delta: '# Plan\n' } },
      { ...here, type: 'plan.delta', payload: { threadId, runId: run1, planId: proposed, delta: '1. Do it\n' } },
    );
    expect(store.projections.get('plans', proposed)!.text).toBe('# Plan\n1. Do it\n');
    expect(store.projections.get('turn_items', proposed)).toMatchObject({
      kind: 'plan',
      status: 'updating',
      text: '# Plan\n1. Do it\n',
      position: 1,
    });

    const questions = PlanArtifactId.parse('plan_questions');
    step({
      ...here,
      type: 'plan.updated',
      payload: {
        plan: {
          id: questions,
          threadId,
          runId: run1,
          nodeId: root1,
          kind: 'questions',
          text: 'Which?',
          steps: [],
          questions: [{ id: 'q', header: 'Q', question: 'Which?', options: null }],
          final: false,
        },
      },
    });
    expect(store.projections.get('plans', questions)).toMatchObject({
      kind: 'questions',
      questions: [{ id: 'q', question: 'Which?' }],
    });
    expect(store.projections.get('turn_items', questions)).toBeNull();
  });

  it('a request: opened pending and counted on the thread, answered, then resolved', () => {
    const { store, step } = projections();
    step(...started(run1, 1, root1));
    const id = RuntimeRequestId.parse('req_1');
    const request = {
      id,
      threadId,
      runId: run1,
      nodeId: NodeId.parse('node_req'),
      kind: 'command' as const,
      status: 'pending' as const,
      responseCapability: { type: 'live' as const, providerSessionId: ProviderSessionId.parse('psess_1') },
      prompt: 'echo hi',
      details: { command: 'echo hi' },
    };
    step({ ...here, type: 'runtime-request.opened', payload: { request } });
    expect(store.projections.get('requests', id)!.status).toBe('pending');
    expect(store.projections.get('threads', threadId)!.pendingRequestCount).toBe(1);
    expect(store.projections.get('turn_items', id)).toMatchObject({
      kind: 'approval_request',
      status: 'pending',
      text: 'echo hi',
      data: { requestKind: 'command' },
    });
    step({
      ...here,
      type: 'runtime-request.answering',
      payload: { threadId, requestId: id, decision: 'accept', answers: null },
    });
    expect(store.projections.get('requests', id)!.status).toBe('answering');
    expect(store.projections.get('threads', threadId)!.pendingRequestCount).toBe(0);
    step({
      ...here,
      type: 'runtime-request.resolved',
      payload: { threadId, requestId: id, decision: 'accept', answers: null },
    });
    expect(store.projections.get('requests', id)!.status).toBe('resolved');
    expect(store.projections.get('threads', threadId)!.pendingRequestCount).toBe(0);
    expect(store.projections.get('turn_items', id)).toMatchObject({ status: 'resolved', data: { decision: 'accept' } });
    // A request that has ended stays as it ended.
    step({ ...here, type: 'runtime-request.cancelled', payload: { threadId, requestId: id, reason: 'too late' } });
    expect(store.projections.get('requests', id)!.status).toBe('resolved');
  });

  it("a rollback marks the rolled-back runs' messages and items, keeps the others, and resets the run count", () => {
    const { store, step } = projections();
    const one = MessageId.parse('msg_one');
    const two = MessageId.parse('msg_two');
    step(...started(run1, 1, root1), assistantMessage(one, run1, root1), delta(one, 'one'));
    step({
      ...here,
      type: 'run.terminal',
      payload: { threadId, runId: run1, status: 'completed', checkpointId: null, error: null },
    });
    step(...started(run2, 2, root2), assistantMessage(two, run2, root2), delta(two, 'two'));
    step({
      ...here,
      type: 'run.terminal',
      payload: { threadId, runId: run2, status: 'completed', checkpointId: null, error: null },
    });
    expect(store.projections.get('threads', threadId)!.runCount).toBe(2);
    step({ ...here, type: 'thread.rolled-back', payload: { threadId, runOrdinal: 1, rolledBackRunIds: [run2] } });
    expect(store.projections.list('messages', threadId).map((m) => [m.text, m.rolledBack])).toEqual([
      ['one', false],
      ['two', true],
    ]);
    expect(store.projections.list('turn_items', threadId).map((i) => [i.id, i.rolledBack])).toEqual([
      [one, false],
      [two, true],
    ]);
    expect(store.projections.get('threads', threadId)).toMatchObject({ runCount: 1, activeRunId: null });
  });
});
