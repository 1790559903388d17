import type { TurnItem } from '../domain/entities.js';
import type { DomainEvent, EventType } from '../domain/events.js';
import { ProviderThreadId, type ThreadId } from '../domain/ids.js';
import { threadWarningLimit, type RunView } from '../domain/projections.js';
import { projectActivity } from './activities.js';
import { contextTransferHandlers, projectHandoff } from './context-transfers.js';
import type { ProjectionOverlay } from './overlay.js';
import { updateThread } from './thread-shell.js';

/**
 * Domain events -> read models. Pure apart from the overlay it reads and writes: the same
 * events in the same order give the same rows. Events with no read-model effect (barrier
 * steps, steering, acknowledgements) live in the event log only.
 */
type Projected<K extends EventType> = Pick<DomainEvent<K>, 'type' | 'payload' | 'threadId' | 'at'>;
type Handler<K extends EventType> = (e: Projected<K>, view: ProjectionOverlay) => void;

function updateRun(view: ProjectionOverlay, runId: string, change: (r: RunView) => Partial<RunView>): void {
  const run = view.get('runs', runId);
  if (run) view.put('runs', runId, run.threadId, { ...run, ...change(run) });
}

/** Appends a turn item at the thread's next position, or updates it in place. */
function upsertItem(
  view: ProjectionOverlay,
  threadId: ThreadId,
  at: number,
  item: Omit<TurnItem, 'position' | 'threadId'>,
): void {
  const existing = view.get('turn_items', item.id);
  if (existing) {
    view.put(
      'turn_items',
      item.id,
      threadId,
      { ...existing, ...item, threadId, position: existing.position },
      existing.position,
    );
    return;
  }
  const shell = updateThread(view, threadId, at, (t) => ({ turnItemCount: t.turnItemCount + 1 }));
  const position = shell ? shell.turnItemCount - 1 : 0;
  view.put('turn_items', item.id, threadId, { ...item, threadId, position, rolledBack: false }, position);
}

function patchItem(view: ProjectionOverlay, id: string, change: (i: TurnItem) => Partial<TurnItem>): void {
  const item = view.get('turn_items', id);
  if (item) view.put('turn_items', id, item.threadId, { ...item, ...change(item) }, item.position);
}

const itemKindOfNode = { tool_call: 'tool_call', subagent: 'subagent', reasoning: 'reasoning' } as const;

const handlers: { [K in EventType]?: Handler<K> } = {
  'thread.created': ({ payload: { thread }, at }, view) =>
    view.put(
      'threads',
      thread.id,
      thread.id,
      {
        ...thread,
        lineage: { ...thread.lineage, forkedFrom: null },
        acpAgent: thread.acpAgent ?? null,
        agentMode: null,
        runCount: 0,
        activeRunId: null,
        activeRunStatus: null,
        queuedRunCount: 0,
        queueHeld: false,
        pendingRequestCount: 0,
        turnItemCount: 0,
        warnings: [],
        activityCount: 0,
        updatedAt: at,
      },
      thread.createdAt,
    ),
  'thread.forked': ({ payload, at }, view) =>
    void updateThread(view, payload.threadId, at, (t) => ({
      lineage: { ...t.lineage, forkedFrom: payload.forkedFrom },
    })),
  'thread.settings-updated': ({ payload, at }, view) =>
    void updateThread(view, payload.threadId, at, () => payload.changes),
  'thread.archived': ({ payload, at }, view) =>
    void updateThread(view, payload.threadId, at, () => ({ status: 'archived' })),
  'thread.deleted': ({ payload, at }, view) =>
    void updateThread(view, payload.threadId, at, () => ({ status: 'deleted' })),
  'thread.queue-held': ({ payload, at }, view) =>
    void updateThread(view, payload.threadId, at, () => ({ queueHeld: payload.held })),
  'thread.agent-mode-changed': ({ payload, at }, view) =>
    void updateThread(view, payload.threadId, at, () => ({ agentMode: payload.mode })),

  'message.created': ({ payload: { message }, at }, view) => {
    view.put('messages', message.id, message.threadId, { ...message, rolledBack: false });
    upsertItem(view, message.threadId, at, {
      id: message.id,
      runId: message.runId,
      nodeId: message.nodeId,
      kind: message.role === 'user' ? 'user_message' : 'assistant_message',
      status: message.completed ? 'completed' : 'streaming',
      text: message.text,
      data: {},
    });
  },
  // Streamed text is appended, never rewritten: a delta costs the same at any length (issue 12).
  'message.delta': ({ payload }, view) => {
    view.append('messages', payload.messageId, 'text', payload.delta);
    view.append('turn_items', payload.messageId, 'text', payload.delta);
  },
  'message.completed': ({ payload }, view) => {
    const m = view.get('messages', payload.messageId);
    if (m) view.put('messages', m.id, m.threadId, { ...m, text: payload.text, completed: true });
    patchItem(view, payload.messageId, () => ({ text: payload.text, status: 'completed' }));
  },

  'run.queued': ({ payload: p, at }, view) => {
    const queued = view.list('runs', p.threadId, (r) => r.status === 'queued').length;
    view.put('runs', p.runId, p.threadId, {
      id: p.runId,
      threadId: p.threadId,
      ordinal: null,
      status: 'queued',
      provider: p.provider,
      model: p.model,
      providerThreadId: null,
      userMessageId: p.userMessageId,
      rootNodeId: p.rootNodeId,
      activeAttemptId: null,
      checkpointId: null,
      contextHandoffId: null,
      supersedesRunId: null,
      attempts: [],
      diff: null,
      queuePosition: queued,
      interruptRequested: false,
      error: null,
      ...(p.origin ? { origin: p.origin } : {}),
    });
    updateThread(view, p.threadId, at, (t) => ({ queuedRunCount: t.queuedRunCount + 1 }));
  },
  'run.started': ({ payload: p, at }, view) => {
    updateRun(view, p.runId, () => ({
      ordinal: p.ordinal,
      activeAttemptId: p.attemptId,
      providerThreadId: p.providerThreadId,
      queuePosition: null,
      ...(p.provider ? { provider: p.provider, model: p.model ?? null } : {}),
    }));
    updateThread(view, p.threadId, at, (t) => ({
      runCount: p.ordinal,
      activeRunId: p.runId,
      activeRunStatus: 'starting',
      queuedRunCount: Math.max(0, t.queuedRunCount - 1),
      // A provider switch returns to an earlier provider thread: the run's is the thread's active one.
      ...(p.providerThreadId ? { activeProviderThreadId: p.providerThreadId } : {}),
    }));
    renumberQueue(view, p.threadId);
  },
  'run.status-changed': ({ payload: p, at }, view) => {
    updateRun(view, p.runId, () => ({ status: p.to }));
    updateThread(view, p.threadId, at, (t) => (t.activeRunId === p.runId ? { activeRunStatus: p.to } : {}));
  },
  'run.diff-updated': ({ payload: p }, view) => updateRun(view, p.runId, () => ({ diff: p.diff })),
  'run.interrupt-requested': ({ payload: p }, view) => updateRun(view, p.runId, () => ({ interruptRequested: true })),
  'run.terminal': ({ payload: p, at }, view) => {
    const wasQueued = view.get('runs', p.runId)?.ordinal === null;
    updateRun(view, p.runId, () => ({
      status: p.status,
      checkpointId: p.checkpointId,
      queuePosition: null,
      error: p.error ? { code: p.error.code, message: p.error.message } : null,
    }));
    updateThread(view, p.threadId, at, (t) =>
      t.activeRunId === p.runId
        ? { activeRunId: null, activeRunStatus: null }
        : wasQueued
          ? { queuedRunCount: Math.max(0, t.queuedRunCount - 1) }
          : {},
    );
    renumberQueue(view, p.threadId);
  },
  'delegated-task.updated': ({ payload: { task } }, view) => view.put('delegated_tasks', task.id, task.threadId, task),
  'run.queue-reordered': ({ payload: p }, view) =>
    p.order.forEach((runId, i) => updateRun(view, runId, () => ({ queuePosition: i }))),
  'thread.rolled-back': ({ payload: p, at }, view) => {
    updateThread(view, p.threadId, at, () => ({ runCount: p.runOrdinal }));
    markRolledBack(view, p.threadId, new Set<string>(p.rolledBackRunIds));
  },
  // The seed a provider thread was given: an item of the run it was given with, there for anyone to read.
  'context.seeded': (e, view) => {
    projectHandoff(e, view);
    const { payload: p, at } = e;
    upsertItem(view, p.threadId, at, {
      id: p.itemId,
      runId: p.runId,
      nodeId: null,
      kind: 'system',
      status: 'ready',
      text: p.text,
      data: {
        contextSeed: true,
        strategy: p.strategy,
        coveredRunOrdinals: p.coveredRunOrdinals,
        omittedItems: p.omittedItems,
        chars: p.chars,
        providerThreadId: p.providerThreadId,
        attemptId: p.attemptId,
        fromThreadId: p.fromThreadId ?? p.threadId,
        ...(p.handoffId ? { handoffId: p.handoffId } : {}),
      },
    });
  },
  ...contextTransferHandlers,

  'attempt.created': ({ payload: { attempt } }, view) =>
    updateRun(view, attempt.runId, (r) => ({
      attempts: [...r.attempts, attempt],
      activeAttemptId: attempt.id,
      rootNodeId: attempt.rootNodeId,
      providerThreadId: attempt.providerThreadId ?? r.providerThreadId,
    })),
  'attempt.status-changed': ({ payload: p }, view) =>
    updateRun(view, p.runId, (r) => ({
      attempts: r.attempts.map((a) => (a.id === p.attemptId ? { ...a, status: p.to } : a)),
    })),

  'node.created': ({ payload: { node }, threadId, at }, view) => {
    view.put('graph_nodes', node.id, threadId, node);
    const kind = itemKindOfNode[node.kind as keyof typeof itemKindOfNode];
    if (kind)
      upsertItem(view, threadId, at, {
        id: node.id,
        runId: node.runId,
        nodeId: node.id,
        kind,
        status: node.status,
        text: node.title ?? '',
        data: { parentNodeId: node.parentNodeId },
      });
  },
  'node.status-changed': ({ payload: p }, view) => {
    const node = view.get('graph_nodes', p.nodeId);
    if (node) view.put('graph_nodes', p.nodeId, p.threadId, { ...node, status: p.to });
    patchItem(view, p.nodeId, () => ({ status: p.to }));
  },

  // A reasoning node streams its text; a tool node streams its output.
  'node.output': ({ payload: p }, view) => {
    const item = view.get('turn_items', p.nodeId);
    if (item) view.append('turn_items', p.nodeId, item.kind === 'reasoning' ? 'text' : 'data.output', p.delta);
  },
  'node.detail': ({ payload: p }, view) => {
    const node = view.get('graph_nodes', p.nodeId);
    // A subagent's detail naming its own provider thread is the node's `providerThreadId` too.
    const providerThreadId = ProviderThreadId.safeParse(p.detail['providerThreadId']).data ?? node?.providerThreadId;
    if (node)
      view.put('graph_nodes', p.nodeId, p.threadId, {
        ...node,
        ...(p.title ? { title: p.title } : {}),
        providerThreadId: providerThreadId ?? null,
        detail: { ...node.detail, ...p.detail },
      });
    // A tool's item is told by its node's title (node.created), so a new title is its text too.
    patchItem(view, p.nodeId, (i) => ({
      ...(p.title ? { text: p.title } : {}),
      ...(p.text === null ? {} : { text: p.text }),
      data: { ...i.data, ...p.detail },
    }));
  },

  'plan.updated': ({ payload: { plan }, at }, view) => {
    view.put('plans', plan.id, plan.threadId, plan);
    // A questions artifact is shown by its request's turn item.
    if (plan.kind === 'questions') return;
    upsertItem(view, plan.threadId, at, {
      id: plan.id,
      runId: plan.runId,
      nodeId: plan.nodeId,
      kind: plan.kind === 'todo_list' ? 'todo_list' : 'plan',
      status: plan.final ? 'final' : 'updating',
      text: plan.text ?? '',
      data: { steps: plan.steps, planKind: plan.kind },
    });
  },
  'plan.delta': ({ payload: p }, view) => {
    view.append('plans', p.planId, 'text', p.delta);
    view.append('turn_items', p.planId, 'text', p.delta);
  },

  'runtime-request.opened': ({ payload: { request }, at }, view) => {
    view.put('requests', request.id, request.threadId, request);
    updateThread(view, request.threadId, at, (t) => ({ pendingRequestCount: t.pendingRequestCount + 1 }));
    upsertItem(view, request.threadId, at, {
      id: request.id,
      runId: request.runId,
      nodeId: request.nodeId,
      kind: request.kind === 'user_input' ? 'user_input_request' : 'approval_request',
      status: 'pending',
      text: request.prompt,
      data: { requestKind: request.kind, details: request.details },
    });
  },
  // Answered: no longer waiting for the user (the pending count), not resolved until the provider takes it.
  'runtime-request.answering': ({ payload: p, at }, view) => {
    const r = view.get('requests', p.requestId);
    if (r?.status !== 'pending') return;
    view.put('requests', r.id, r.threadId, { ...r, status: 'answering' });
    updateThread(view, p.threadId, at, (t) => ({ pendingRequestCount: Math.max(0, t.pendingRequestCount - 1) }));
    patchItem(view, p.requestId, (i) => ({
      status: 'answering',
      data: { ...i.data, decision: p.decision, answers: p.answers },
    }));
  },
  'runtime-request.resolved': ({ payload: p, at }, view) =>
    settleRequest(view, p.threadId, p.requestId, 'resolved', at, { decision: p.decision, answers: p.answers }),
  'runtime-request.expired': ({ payload: p, at }, view) =>
    settleRequest(view, p.threadId, p.requestId, 'expired', at, { reason: p.reason }),
  'runtime-request.cancelled': ({ payload: p, at }, view) =>
    settleRequest(view, p.threadId, p.requestId, 'cancelled', at, { reason: p.reason }),
  'runtime-request.capability-changed': ({ payload: p }, view) => {
    const r = view.get('requests', p.requestId);
    if (r) view.put('requests', r.id, r.threadId, { ...r, responseCapability: p.responseCapability });
  },

  'runtime.warning': ({ payload: p, at }, view) =>
    void updateThread(view, p.threadId, at, (t) => ({
      warnings: [...(t.warnings ?? []), { runId: p.runId, message: p.message, at }].slice(-threadWarningLimit),
    })),

  'provider-session.changed': ({ payload: p }, view) =>
    view.put('sessions', p.session.id, p.threadId, { ...p.session, threadId: p.threadId }),
  // A subagent's own provider thread is its node's, never the thread's active one.
  'provider-thread.bound': ({ payload: p, at }, view) => {
    if (p.providerThread.owner.type === 'thread')
      updateThread(view, p.threadId, at, () => ({ activeProviderThreadId: p.providerThread.id }));
  },

  'checkpoint.recorded': ({ payload: { checkpoint }, at }, view) => {
    view.put('checkpoints', checkpoint.id, checkpoint.threadId, checkpoint, checkpoint.runOrdinal ?? 0);
    upsertItem(view, checkpoint.threadId, at, {
      id: checkpoint.id,
      runId: checkpoint.runId,
      nodeId: null,
      kind: 'checkpoint',
      status: checkpoint.status,
      text: checkpoint.reason ?? '',
      data: { runOrdinal: checkpoint.runOrdinal, diff: checkpoint.diff },
    });
  },
  'checkpoint.stale': ({ payload: p }, view) => {
    for (const id of p.checkpointIds) {
      const c = view.get('checkpoints', id);
      if (c) view.put('checkpoints', id, c.threadId, { ...c, status: 'stale' }, c.runOrdinal ?? 0);
      patchItem(view, id, () => ({ status: 'stale' }));
    }
  },
};

function settleRequest(
  view: ProjectionOverlay,
  threadId: string,
  requestId: string,
  status: 'resolved' | 'expired' | 'cancelled',
  at: number,
  data: Record<string, unknown>,
): void {
  const r = view.get('requests', requestId);
  if (!r || (r.status !== 'pending' && r.status !== 'answering')) return;
  view.put('requests', requestId, threadId, { ...r, status });
  // An answered request left the pending count when it was answered.
  if (r.status === 'pending')
    updateThread(view, threadId, at, (t) => ({ pendingRequestCount: Math.max(0, t.pendingRequestCount - 1) }));
  patchItem(view, requestId, (i) => ({ status, data: { ...i.data, ...data } }));
}

/** Items and messages of rolled-back runs stay on record, marked, and leave the visible conversation. */
function markRolledBack(view: ProjectionOverlay, threadId: string, runIds: Set<string>): void {
  for (const i of view.list('turn_items', threadId, (i) => i.runId !== null && runIds.has(i.runId) && !i.rolledBack))
    view.put('turn_items', i.id, threadId, { ...i, rolledBack: true }, i.position);
  for (const m of view.list('messages', threadId, (m) => m.runId !== null && runIds.has(m.runId) && !m.rolledBack))
    view.put('messages', m.id, threadId, { ...m, rolledBack: true });
}

/** Queued runs are numbered 0..n-1 in their current order. */
function renumberQueue(view: ProjectionOverlay, threadId: string): void {
  const queued = view
    .list('runs', threadId, (r) => r.status === 'queued')
    .sort((a, b) => (a.queuePosition ?? 0) - (b.queuePosition ?? 0));
  queued.forEach((r, i) => {
    if (r.queuePosition !== i) view.put('runs', r.id, threadId, { ...r, queuePosition: i });
  });
}

export function project<K extends EventType>(event: Projected<K>, view: ProjectionOverlay): void {
  projectActivity(event, view);
  const handler: Handler<K> | undefined = handlers[event.type];
  handler?.(event, view);
}
