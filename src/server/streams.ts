import { BatonError } from '../domain/errors.js';
import type { DomainEvent } from '../domain/events.js';
import type { ThreadId } from '../domain/ids.js';
import type { ForkedFrom } from '../domain/entities.js';
import type { ProjectionRow } from '../domain/projections.js';
import type { StreamRequest } from '../domain/stream-request.js';
import type { Store } from '../persistence/store.js';
import { activityEventTypes } from '../projections/activities.js';

// The subscription streams of the Socket.IO API, one per projection: what a snapshot of
// it holds, and which committed events belong to it. A subscriber gets the snapshot with
// its `snapshotSequence`, then every matching event with a greater sequence, in order.

const threadEvents = (type: string) => type.startsWith('thread.') || type.startsWith('run.');
const requestEvents = (type: string) => type.startsWith('runtime-request.');
const graphEvents = (type: string) =>
  type.startsWith('node.') ||
  type.startsWith('attempt.') ||
  type.startsWith('run.') ||
  type.startsWith('provider-thread.');

/** Which committed events a stream carries. */
export function streamMatches(req: StreamRequest, event: DomainEvent): boolean {
  switch (req.stream) {
    case 'threads':
      return threadEvents(event.type);
    case 'thread':
      return event.threadId === req.threadId;
    case 'graph':
      return event.threadId === req.threadId && graphEvents(event.type);
    case 'activities':
      return event.threadId === req.threadId && activityEventTypes.has(event.type);
    case 'requests':
      return requestEvents(event.type);
    case 'sessions':
      return event.type.startsWith('provider-session.');
  }
}

/**
 * A stream or query of one thread that Baton does not have: refused `not_found`, not
 * accepted to stay silent for ever (a mistyped id would look like a quiet thread).
 */
export function unknownThread(
  store: Store,
  req: StreamRequest | { threadId?: ThreadId | undefined },
): BatonError | null {
  const threadId = 'threadId' in req ? req.threadId : undefined;
  if (threadId === undefined || store.projections.get('threads', threadId)) return null;
  return new BatonError('not_found', `no thread ${threadId}`, { threadId });
}

/** The stream's snapshot, read from the projections (a consistent read at one sequence). */
export function streamSnapshot(store: Store, req: StreamRequest): unknown {
  const p = store.projections;
  switch (req.stream) {
    case 'threads':
      return { threads: p.list('threads').filter((t) => t.status !== 'deleted') };
    case 'thread': {
      const thread = p.get('threads', req.threadId);
      if (!thread) return null;
      const turnItems = p.list('turn_items', req.threadId);
      return {
        thread,
        runs: p.list('runs', req.threadId),
        turnItems,
        // The conversation as it stands: items of rolled-back runs stay in `turnItems`, marked, and leave this;
        // a fork's starts with its source's up to the fork point.
        visibleTurnItems: [
          ...inheritedItems(store, thread.lineage.forkedFrom ?? null),
          ...turnItems.filter((i) => !i.rolledBack),
        ],
        messages: p.list('messages', req.threadId),
        plans: p.list('plans', req.threadId),
        pendingRequests: p.list('requests', req.threadId).filter((r) => r.status === 'pending'),
        checkpoints: p.list('checkpoints', req.threadId),
        // What its provider threads were owed (forks, switches, merge-backs) and exactly what they were told.
        contextTransfers: p.list('context_transfers', req.threadId),
        handoffs: p.list('context_handoffs', req.threadId),
        // The tasks its agents delegated, and whether each still owes the thread a wake-up.
        delegatedTasks: p.list('delegated_tasks', req.threadId),
      };
    }
    case 'graph':
      return { nodes: p.list('graph_nodes', req.threadId), runs: p.list('runs', req.threadId) };
    case 'activities':
      return { activities: p.list('activities', req.threadId) };
    case 'requests':
      return { requests: p.list('requests').filter((r) => r.status === 'pending') };
    case 'sessions':
      return { sessions: p.list('sessions') };
  }
}

type TurnItemRow = ProjectionRow<'turn_items'>;

/**
 * A fork's history from its source, marked `inherited`: the source's conversation as it
 * stood at the fork point (with its own inherited items first, for a fork of a fork). That
 * is the items of the runs live then, up to and including the fork run (each ordinal's
 * latest run created up to the fork run, so a later rollback in the source does not rewrite
 * the fork's past), and the items of no run (a baseline checkpoint) among them.
 */
function inheritedItems(store: Store, from: ForkedFrom | null, depth = 0): TurnItemRow[] {
  if (!from || depth > 100) return [];
  const p = store.projections;
  const source = p.get('threads', from.threadId);
  if (!source) return [];
  const runs = p.list('runs', from.threadId);
  const live = new Map<number, string>();
  for (const r of runs.slice(0, runs.findIndex((r) => r.id === from.runId) + 1))
    if (r.ordinal !== null && r.ordinal <= from.runOrdinal) live.set(r.ordinal, r.id);
  const kept = new Set(live.values());
  const items = p.list('turn_items', from.threadId);
  const end = items.reduce((last, i) => (i.runId !== null && kept.has(i.runId) ? i.position : last), -1);
  const own = items.filter((i) => (i.runId === null ? i.position < end : kept.has(i.runId)));
  // Live in the fork's conversation even where the source has since rolled them back.
  return [...inheritedItems(store, source.lineage.forkedFrom ?? null, depth + 1), ...own].map((i) => ({
    ...i,
    rolledBack: false,
    inherited: true,
  }));
}
